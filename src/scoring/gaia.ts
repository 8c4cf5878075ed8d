/**
 * The GAIA answer normaliser and scorer, written from the public description of the official
 * GAIA scorer (Mialon et al., 2023; used unmodified by the GAIA scaffold comparison, §3.2):
 * - a reference that parses as a number (Python float rules) is compared numerically, after
 *   removing "$", "%" and "," from the answer; an answer that does not parse never matches;
 * - a reference containing "," or ";" is a list: both sides are split on those characters, the
 *   lengths must agree, and each element is compared as a number (when the reference element
 *   is one) or as a string with whitespace removed and case folded (punctuation kept);
 * - any other reference is a string: whitespace and ASCII punctuation removed, case folded.
 * The answer is the value of the last "FINAL ANSWER:" / "Answer:" line of the response; no
 * such line is a parse failure (score 0, intention-to-treat).
 */
import { lastAnswerLine } from "./exact-answer.js";
import type { Scorer } from "./types.js";

const PY_FLOAT =
  /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.?(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i;

/** Python's float(text), or undefined when Python would raise. */
export function pyFloat(text: string): number | undefined {
  const trimmed = text.trim();
  if (!PY_FLOAT.test(trimmed)) return undefined;
  const lower = trimmed.toLowerCase().replace(/_/g, "");
  if (/^[+-]?inf/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
  if (/nan$/.test(lower)) return Number.NaN;
  return Number(lower);
}

/** The official number normaliser: strip $ % and commas, then float; unparseable = Infinity (never equal). */
export function normaliseNumber(text: string): number {
  return pyFloat(text.replace(/[$%,]/g, "")) ?? Number.POSITIVE_INFINITY;
}

const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** Whitespace removed, optionally ASCII punctuation removed, lower-cased. */
export function normaliseString(text: string, removePunctuation = true): string {
  const noSpaces = text.replace(/\s/g, "");
  return (removePunctuation ? noSpaces.replace(ASCII_PUNCTUATION, "") : noSpaces).toLowerCase();
}

/** Whether `answer` matches the GAIA reference `truth` under the official rules. */
export function gaiaMatch(answer: string, truth: string): boolean {
  const truthNumber = pyFloat(truth);
  if (truthNumber !== undefined) return normaliseNumber(answer) === truthNumber;
  if (/[,;]/.test(truth)) {
    const truths = truth.split(/[,;]/);
    const answers = answer.split(/[,;]/);
    if (truths.length !== answers.length) return false;
    return truths.every((t, i) => {
      const n = pyFloat(t);
      if (n !== undefined) return normaliseNumber(answers[i]) === n;
      return normaliseString(answers[i], false) === normaliseString(t, false);
    });
  }
  return normaliseString(answer) === normaliseString(truth);
}

export const gaiaScorer: Scorer = {
  name: "gaia_exact",
  version: "1.0.0",
  kind: "text",
  validated: [
    {
      loaders: ["gaia"],
      formats: ["oe"],
      evidence:
        "the official GAIA scorer's normalisation rules (Mialon et al., 2023), reproduced case by case in tests/scoring/scorers.test.ts",
    },
  ],
  score(item, _task, finalText) {
    const answer = lastAnswerLine(finalText);
    if (answer === undefined) return { parsedAnswer: null, parseStatus: "failed", score: 0 };
    if (item.goldText === undefined) return { parsedAnswer: answer, parseStatus: "ok", score: null };
    return { parsedAnswer: answer, parseStatus: "ok", score: gaiaMatch(answer, item.goldText) ? 1 : 0 };
  },
};
