/** Text matching shared by the auditors: whitespace-folded, case-folded, so re-wrapping is not loss. */

import { foldedText } from "../../core/folded-text.js";

/** Sentences of a prompt (split after . ! ? and at line breaks), folded. */
export function promptSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map(foldedText)
    .filter((s) => s.length > 0);
}

/** Share of `source`'s sentences found in the folded `haystack` (null: no source or no sentence). */
export function sentenceShare(source: string | undefined, haystack: string): number | null {
  if (!source) return null;
  const parts = promptSentences(source);
  if (parts.length === 0) return null;
  return parts.filter((s) => haystack.includes(s)).length / parts.length;
}
