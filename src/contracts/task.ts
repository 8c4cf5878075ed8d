import type { Condition } from "./condition.js";

/**
 * An item as a scaffold receives it: rendered for one answer format, without the gold
 * answer, so no scaffold can peek at it.
 */
export interface TaskInput {
  itemId: string;
  benchmark: string;
  /** "mc", "oe", "forced", ... (the `format` facet). */
  format: string;
  /** The question as it is shown in this format (MC artefacts removed for open-ended). */
  question: string;
  /** Visible options (MC formats only), in presentation order. */
  options?: string[];
  /** The letters the answer may take, e.g. ["A","B","C"] (MC formats only). */
  validLetters?: string[];
  /** The answer-format instruction, e.g. "End with a line 'Answer: X'...". */
  answerInstruction: string;
  /** Benchmark-level instructions embedded in the user message (deviation D-001). */
  benchmarkInstructions?: string;
  /** System prompt for the subject model, if any. */
  systemPrompt?: string;
  /** The whole condition, for scaffolds that read their own facet parameters. */
  condition: Condition;
}
