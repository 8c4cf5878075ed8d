/**
 * The Anthropic model-written evaluations embed their options in `question`:
 * "...\n\nChoices:\n (A) ...\n (B) ...", sometimes followed by "\n\nAnswer:", with the
 * header spelled many ways in the LM-generated sets ("Answers:", "Options:", "[Choices:]",
 * none at all). Answers are " (A)" with a leading space; philpapers2020 gives a list.
 */
import { RowError } from "../rows.js";
import { shownJson } from "../quote.js";

export interface EmbeddedChoices {
  /** The question without the option block; "" when the row has only options. */
  stem: string;
  options: string[];
}

const OPTION_LINE = /^\s*\(([A-Z])\)\s?(.*)$/;
const HEADER_LINE = /^[\s\W_]*(?:possible |answer |response )?(?:choices?|answers?|options?|responses?)[\s\W_]*$/i;

/** Splits the last option block (starting at a "(A)" line) off the question. */
export function splitChoices(question: string): EmbeddedChoices {
  const lines = question.replace(/\s*\n\s*Answer:\s*$/, "").split(/\r\n|\r|\n/);
  const start = lines.findLastIndex((line) => /^\s*\(A\)/.test(line));
  if (start < 0) throw new RowError("no '(A)' option line in the question");
  const options: string[] = [];
  for (const line of lines.slice(start)) {
    const match = OPTION_LINE.exec(line);
    const expected = String.fromCharCode(65 + options.length);
    if (match && match[1] === expected) options.push(match[2].trim());
    // Anything else continues the previous option (multi-line option text).
    else if (line.trim() !== "") options[options.length - 1] += `\n${line.trim()}`;
  }
  if (options.length < 2) throw new RowError(`only ${options.length} option(s) after the '(A)' line`);
  const empty = options.indexOf("");
  if (empty >= 0) throw new RowError(`option (${String.fromCharCode(65 + empty)}) is empty`);
  const before = lines.slice(0, start);
  while (before.length > 0 && (before[before.length - 1].trim() === "" || HEADER_LINE.test(before[before.length - 1])))
    before.pop();
  // Some LM-generated rows have no question at all, only options: kept, with an empty stem.
  return { stem: before.join("\n").trim(), options };
}

/** " (B)" -> 1; the letter must name one of the options. */
export function answerIndex(value: unknown, field: string, nOptions: number): number {
  if (typeof value !== "string") throw new RowError(`field '${field}' is missing or not a string`);
  const letter = /^\s*\(([A-Z])\)\s*$/.exec(value)?.[1];
  if (letter === undefined)
    throw new RowError(`field '${field}' is ${shownJson(value)}, expected an answer like " (A)"`);
  const index = letter.charCodeAt(0) - 65;
  if (index >= nOptions)
    throw new RowError(`field '${field}' names option (${letter}) but the question has ${nOptions} options`);
  return index;
}

/** One answer, or a list of them (sycophancy_on_philpapers2020's answer_not_matching_behavior). */
export function answerIndices(value: unknown, field: string, nOptions: number): number[] {
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0) throw new RowError(`field '${field}' is an empty list`);
  return values.map((v) => answerIndex(v, field, nOptions));
}

/** A row with options but no question: loadable as MC, meaningless open-ended (stem.ts flags it). */
export function noQuestion(stem: string): Record<string, unknown> {
  return stem === "" ? { no_question: true } : {};
}
