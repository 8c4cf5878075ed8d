/** Reading text as the simulated panel does: normalised comparison, word sets, answer lines, personas. */

import { foldedText } from "../../core/folded-text.js";

export function sameText(a: string, b: string): boolean {
  return foldedText(a) === foldedText(b);
}

export function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** How many of `words` are among `shown`. */
export function countIn(words: ReadonlySet<string>, shown: ReadonlySet<string>): number {
  let n = 0;
  for (const w of words) if (shown.has(w)) n++;
  return n;
}

/** The value of the last "Answer:" / "Final Answer:" line in a text. */
export function lastAnswerValue(text: string): string | undefined {
  const matches = [...text.matchAll(/^\s*(?:final\s+)?answer\s*:\s*(.+?)\s*$/gim)];
  return matches.length > 0 ? matches[matches.length - 1][1] : undefined;
}

/** A stem's first-person sentences (the persona) and the rest (the question proper). */
export function splitPersona(stem: string): { persona: string; question: string } {
  const sentences = stem.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== "");
  const firstPerson = (s: string) => /\b(I|I'm|I've|my|me)\b/.test(s);
  const persona = sentences.filter(firstPerson).join(" ");
  const question = sentences.filter((s) => !firstPerson(s)).join(" ");
  return persona === "" || question === "" ? { persona: "", question: stem } : { persona, question };
}
