/**
 * A reader that stops early (`parallax export DIR | head`) closes the pipe; the next write to
 * standard output fails with EPIPE. That is not an error of the command: it ends quietly with
 * exit code 0, the way Unix tools do, instead of printing a stack trace.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}
