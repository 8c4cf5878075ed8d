/** Text helpers shared by the perturbations (pure). */
import type { Item } from "../contracts/item.js";
import { sha256 } from "../core/hash.js";
import { RandomStream } from "../stats/random.js";

/** A stream seeded from SHA-256 of the key's parts (32 bits): the same key, the same draws, on every machine. */
export function streamFor(...parts: (string | number)[]): RandomStream {
  const hex = sha256(parts.map(String).join("\u0000"));
  return RandomStream.fromSeed(Number.parseInt(hex.slice(0, 8), 16));
}

/** A deep copy of an item (perturbations never mutate their input). */
export function copyItem(item: Item): Item {
  return structuredClone(item);
}

/** `replacement` in the letter case of `original` (ALL CAPS, Capitalised or lower). */
export function matchCase(original: string, replacement: string): string {
  if (original.length > 1 && original === original.toUpperCase() && original !== original.toLowerCase())
    return replacement.toUpperCase();
  if (original[0] === original[0].toUpperCase() && original[0] !== original[0].toLowerCase())
    return replacement[0].toUpperCase() + replacement.slice(1);
  return replacement;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A whole-word, case-insensitive pattern over `words` (longest first, so "grandfather" wins over "father"). */
export function wordPattern(words: Iterable<string>): RegExp {
  const sorted = [...words].sort((a, b) => b.length - a.length || a.localeCompare(b)).map(escapeRegExp);
  return new RegExp(`(?<![\\p{L}\\p{N}'-])(${sorted.join("|")})(?![\\p{L}\\p{N}-])`, "giu");
}

/**
 * `wordPattern` built on first use: sorting a word list with localeCompare starts ICU's collator,
 * which every command that loads the perturbation registry (plan too) would otherwise pay.
 */
export function lazyWordPattern(words: () => Iterable<string>): () => RegExp {
  let pattern: RegExp | undefined;
  return () => {
    pattern ??= wordPattern(words());
    return pattern;
  };
}

/** The index of the last question sentence of a paragraph: its start offset, or -1. */
export function lastSentenceStart(paragraph: string): number {
  const trimmed = paragraph.trimEnd();
  let start = 0;
  const re = /[.!?]["'”)]*\s+(?=\S)/g;
  for (let m = re.exec(trimmed); m !== null; m = re.exec(trimmed)) {
    if (m.index + m[0].length < trimmed.length) start = m.index + m[0].length;
  }
  return start;
}

/** Lower-cases the first letter unless the first word looks like a name or an acronym ("I", "US"). */
export function lowerFirst(text: string): string {
  const first = /^\S+/.exec(text)?.[0] ?? "";
  if (first === "I" || first.startsWith("I'") || (first.length > 1 && first === first.toUpperCase())) return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** Splits a stem into its first paragraph (where the question is) and the rest ("\n\n..."). */
export function splitLead(stem: string): { lead: string; rest: string } {
  const at = stem.indexOf("\n\n");
  return at < 0 ? { lead: stem, rest: "" } : { lead: stem.slice(0, at), rest: stem.slice(at) };
}
