import { extractMcAnswer } from "./mc-extract.js";
import { outcomeOfChoice } from "./gold.js";
import type { Scorer } from "./types.js";

/**
 * The default scorer of MC formats: the last valid answer marker of the response (mc-extract.ts),
 * compared with the item's gold set. No valid answer is a parse failure: parsedAnswer null,
 * parse_status "failed", score 0 (the intention-to-treat reading; per-protocol analyses drop
 * failed rows through parse_status). Never a default letter; a hedged final statement ("A or
 * B") is no answer either. 1.1.0 reads the forms of tests/scoring/answer-forms.ts (markup around
 * the letter, answer tags and JSON fields, option text without a letter, hedges); 1.2.0 also a
 * noun naming an option before its letter and a bracketed letter closing a sentence of
 * agreement; 1.3.0 also that letter standing alone after the sentence of agreement it closes
 * ("I agree with the claim. (B)"; tests/scoring/mc-extract-styles.test.ts).
 */
export const mcLastAnswerScorer: Scorer = {
  name: "mc_last_answer",
  version: "1.3.0",
  kind: "text",
  // It reads only the answer letters of an MC task, whatever the benchmark.
  validated: [
    {
      loaders: "any",
      formats: ["mc"],
      evidence:
        "tests/scoring/mc-extract.test.ts: a table of responses with their expected extractions (last valid answer marker, no default letter)",
    },
  ],
  score(item, task, finalText) {
    const letters = task.validLetters;
    if (!letters || !task.options) {
      return { parsedAnswer: null, parseStatus: "not_applicable", score: null, details: { reason: "not an MC task" } };
    }
    const extraction = extractMcAnswer(finalText, letters, task.options);
    const details = {
      marker: extraction.marker,
      candidates: extraction.candidates.map((c) => `${c.letter}:${c.marker}${c.valid ? "" : ":invalid"}`),
    };
    if (extraction.letter === null) return { parsedAnswer: null, parseStatus: "failed", score: 0, details };
    const index = letters.indexOf(extraction.letter);
    return { parsedAnswer: extraction.letter, parseStatus: "ok", score: outcomeOfChoice(item, index), details };
  },
};
