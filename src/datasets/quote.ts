/**
 * Whether a message may quote a data file's content. A benchmark source inside the spec's folder
 * (or downloaded from the URL the spec names) is the user's own data, and a row's values help
 * to find the problem; a local file outside the spec's folder may be anything on the machine
 * (`source: /etc/shadow`), so a load of one runs under `withoutQuoting` and its messages name the
 * file, the row and the kind of problem, never the content.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const unquotable = new AsyncLocalStorage<true>();

/** What stands in a message for content that is not shown. */
export const NOT_SHOWN = "(content not shown: the file lies outside the spec's folder)";

/** Runs `load` so that the messages it raises quote no content of the files it reads. */
export function withoutQuoting<T>(load: () => Promise<T>): Promise<T> {
  return unquotable.run(true, load);
}

export function quotingAllowed(): boolean {
  return unquotable.getStore() !== true;
}

/** A value read from a data file, quoted in a message only where quoting is allowed. */
export function shown(value: string): string {
  return quotingAllowed() ? `'${value}'` : NOT_SHOWN;
}

/** A value read from a data file, as JSON, in a message only where quoting is allowed. */
export function shownJson(value: unknown): string {
  return quotingAllowed() ? JSON.stringify(value) : NOT_SHOWN;
}

/** A JSON.parse failure as words: V8's message quotes the text, so outside the spec's folder only its position. */
export function jsonParseProblem(error: unknown): string {
  const message = (error as Error).message;
  if (quotingAllowed()) return message;
  const position = /at position (\d+)/.exec(message)?.[1];
  return position === undefined ? NOT_SHOWN : `at position ${position} ${NOT_SHOWN}`;
}
