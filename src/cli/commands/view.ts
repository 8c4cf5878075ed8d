import { spawn } from "node:child_process";
import { ParallaxError } from "../../core/errors.js";
import { LOOPBACK, startViewer } from "../../viewer/serve.js";

/**
 * `parallax view DIR|URL`: serves the study's trials read-only in the browser until interrupted;
 * with `--with B`, a second study read-only too, whose trials `/pair?a=&b=` shows beside the first's.
 * Listens on 127.0.0.1 unless --host says otherwise (with a warning); opens the browser unless
 * --no-open or stdout is not a terminal.
 */
export async function viewCommand(
  target: string,
  options: { port?: string; host?: string; open?: boolean; run?: string; with?: string },
): Promise<void> {
  const port = options.port === undefined ? 0 : parsePort(options.port);
  const host = options.host ?? LOOPBACK;
  if (host !== LOOPBACK) {
    process.stderr.write(
      `warning: --host ${host} exposes every prompt and response of this study to anyone who can reach this address (no authentication)\n`,
    );
  }
  const viewer = await startViewer(target, { port, host, runId: options.run, with: options.with });
  process.stdout.write(`viewing ${viewer.study.run.study} (run ${viewer.study.run.id}) at ${viewer.url}\n`);
  if (viewer.pairWith) {
    const b = viewer.pairWith.run;
    process.stdout.write(`paired with ${b.study} (run ${b.id}): ${viewer.url}pair?a=TRIAL_IN_A&b=TRIAL_IN_B\n`);
  }
  process.stdout.write("read-only; press Ctrl-C to stop\n");
  if (options.open !== false && process.stdout.isTTY) openBrowser(viewer.url);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await viewer.close();
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) {
    throw new ParallaxError(`--port: expected a port number 0-65535, found '${value}'`, 2);
  }
  return n;
}

/** The platform's URL opener, detached; a failure only means the user opens the URL printed above. */
function openBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    const child = spawn(command, [url], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // The URL is printed; nothing else to do.
  }
}
