import { OPTION_LETTERS } from "../contracts/item.js";
import type { Scorer } from "./types.js";

/**
 * PLACEHOLDER scorer (foundation issue): reads the last "Answer: ..." line. For MC formats the
 * answer must be one of the task's valid letters and is compared with the gold letter; for
 * open-ended formats the answer text is compared with the gold text after case and
 * whitespace folding. No answer line, or a letter outside the valid set, is a parse failure
 * (score 0, intention-to-treat), never a default letter. The scoring issue replaces this
 * with the full last-answer protocol, judges and log-prob scorers.
 */
export const exactAnswerScorer: Scorer = {
  name: "exact_answer",
  version: "0.1.0-placeholder",
  score(item, task, finalText) {
    const answer = lastAnswerLine(finalText);
    if (answer === undefined) return { parsedAnswer: null, parseStatus: "failed", score: 0 };
    if (task.validLetters && task.options) {
      const letter = /^\(?([A-Z])\)?[.)]?$/.exec(answer)?.[1];
      if (letter === undefined || !task.validLetters.includes(letter)) {
        return { parsedAnswer: null, parseStatus: "failed", score: 0 };
      }
      const chosen = task.options[OPTION_LETTERS.indexOf(letter)];
      const gold = item.goldIndex !== undefined ? item.options?.[item.goldIndex] : undefined;
      return { parsedAnswer: letter, parseStatus: "ok", score: gold !== undefined && chosen === gold ? 1 : 0 };
    }
    const gold = item.goldText ?? (item.goldIndex !== undefined ? item.options?.[item.goldIndex] : undefined);
    const score = gold === undefined ? null : fold(answer) === fold(gold) ? 1 : 0;
    return { parsedAnswer: answer, parseStatus: "ok", score };
  },
};

function lastAnswerLine(text: string): string | undefined {
  const matches = [...text.matchAll(/^\s*answer\s*:\s*(.+?)\s*$/gim)];
  return matches.length > 0 ? matches[matches.length - 1][1] : undefined;
}

function fold(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .replace(/[.\s]+$/, "")
    .trim()
    .toLowerCase();
}
