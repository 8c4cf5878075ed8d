/**
 * Everything the command writes to the terminal (messages, notes, errors, progress lines and
 * bars, the worker processes' output, which is written by their own `parallax worker`) passes
 * through the same secret scrubber as the store (core/secrets.ts): a provider that echoes its
 * key, in any encoding, cannot put it on the screen or into a captured log. Writes are scrubbed
 * one at a time; every writer here writes whole lines.
 */
import { hasSecrets, scrubSecrets } from "../core/secrets.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function scrubTerminalOutput(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(scrubbedChunk(chunk), ...rest)) as typeof stream.write;
  }
}

/** The chunk with every registered secret replaced; binary (non-UTF-8) chunks are left as they are. */
function scrubbedChunk(chunk: unknown): unknown {
  if (!hasSecrets()) return chunk;
  if (typeof chunk === "string") return scrubSecrets(chunk);
  if (!(chunk instanceof Uint8Array)) return chunk;
  let text: string;
  try {
    text = utf8.decode(chunk);
  } catch {
    return chunk;
  }
  const scrubbed = scrubSecrets(text);
  return scrubbed === text ? chunk : Buffer.from(scrubbed, "utf8");
}
