import { fold } from "./mc-extract.js";
import { mcLastAnswerScorer } from "./mc-last-answer.js";
import type { Scorer } from "./types.js";

/**
 * Open-ended exact match: the value of the last "Answer: ..." (or "Final Answer: ...") line,
 * compared with the reference text (goldText, else the gold option's text) after folding case,
 * whitespace, markdown emphasis and trailing punctuation. No answer line is a parse failure
 * (score 0, intention-to-treat). A strict, cheap run-time score for open-ended formats: judges
 * (`parallax score --scorer judge`) give the graded reading. MC tasks are delegated to the
 * last-answer MC extractor so this scorer never guesses a letter (0.3.0: with mc_last_answer
 * 1.1.0's extraction).
 */
export const exactAnswerScorer: Scorer = {
  name: "exact_answer",
  version: "0.3.0",
  kind: "text",
  score(item, task, finalText) {
    if (task.validLetters && task.options) return mcLastAnswerScorer.score(item, task, finalText);
    const answer = lastAnswerLine(finalText);
    if (answer === undefined) return { parsedAnswer: null, parseStatus: "failed", score: 0 };
    const gold = item.goldText ?? (item.goldIndex !== undefined ? item.options?.[item.goldIndex] : undefined);
    const score = gold === undefined ? null : fold(answer) === fold(gold) ? 1 : 0;
    return { parsedAnswer: answer, parseStatus: "ok", score };
  },
};

/** The value of the last answer line ("Answer:", "Final Answer:", optionally bold). */
export function lastAnswerLine(text: string): string | undefined {
  const matches = [...text.matchAll(/^\s*(?:\*\*)?(?:final\s+)?answer(?:\*\*)?\s*:\s*(?:\*\*)?(.+?)(?:\*\*)?\s*$/gim)];
  return matches.length > 0 ? matches[matches.length - 1][1] : undefined;
}
