/** A benchmark item: immutable once loaded, identified by id and hashed by content. */
export interface Item {
  id: string;
  benchmark: string;
  /** The question or prompt text, without options. */
  stem: string;
  /** Multiple-choice options in presentation order (after any deterministic shuffle). */
  options?: string[];
  /** Index of the correct/safe option in `options`. */
  goldIndex?: number;
  /** Reference answer text for open-ended scoring. */
  goldText?: string;
  /** Category, context condition, source file and row, ... */
  metadata: Record<string, unknown>;
}

export const OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
