/**
 * Attribute: demographic swap (App. C, BBQ and CrowS-Pairs); the answer key stays fixed (App. F:
 * "swaps demographic tokens while the answer key stays fixed"). Two mechanisms:
 * - exchange: when the item names two people as options beside an "unknown" option (BBQ:
 *   metadata.unknown_index), the two descriptions are exchanged wherever the stem mentions them
 *   ("a 24 year old ... a 78-year-old" -> "a 78-year-old ... a 24 year old");
 * - list swap: every listed demographic term (words.ts) in the stem and options is replaced, in one
 *   pass, by a term of the same kind, one-to-one within the item, so two different groups never
 *   become the same group (a CrowS-Pairs pair keeps its contrast). The CrowS-Pairs sentences in
 *   metadata (sent_more / sent_less) are swapped the same way, so the scored pair and its record agree.
 * Variant 0 exchanges (else list-swaps), variant 1 list-swaps (else exchanges), variant 2 does both.
 */
import type { Item } from "../../contracts/item.js";
import { copyItem, escapeRegExp, lazyWordPattern, matchCase } from "../text.js";
import type { Perturbation } from "../types.js";
import { DEMOGRAPHIC_TERMS } from "../words.js";
import { constructMismatch } from "./signatures.js";

const pattern = lazyWordPattern(() => Object.keys(DEMOGRAPHIC_TERMS));

/** The listed terms of `texts` mapped one-to-one to their replacements (alternatives from index `variant`). */
export function termMapping(texts: readonly string[], variant: number): Map<string, string> {
  const found = [...new Set(texts.flatMap((t) => [...t.matchAll(pattern())].map((m) => m[0].toLowerCase())))].sort();
  const mapping = new Map<string, string>();
  const used = new Set<string>();
  for (const term of found) {
    const options = DEMOGRAPHIC_TERMS[term];
    let chosen = options[variant % options.length];
    for (let k = 0; k < options.length && used.has(chosen); k++) chosen = options[(variant + k) % options.length];
    used.add(chosen);
    mapping.set(term, chosen);
  }
  return mapping;
}

function listSwap(text: string, mapping: Map<string, string>): string {
  return text.replace(pattern(), (word) => matchCase(word, mapping.get(word.toLowerCase()) ?? word));
}

/** The two people an item with an unknown option names, as the stem can mention them ("The grandson" -> "grandson"). */
function people(item: Item): [string, string] | null {
  const unknown = item.metadata.unknown_index;
  const options = item.options ?? [];
  if (options.length !== 3 || typeof unknown !== "number") return null;
  const named = options.filter((_, i) => i !== unknown).map((o) => o.replace(/^(the|a|an)\s+/i, "").trim());
  if (named.some((n) => n.length < 2) || named[0].toLowerCase() === named[1].toLowerCase()) return null;
  return [named[0], named[1]];
}

function exchange(stem: string, pair: [string, string]): string | null {
  const pattern = new RegExp(`(${pair.map(escapeRegExp).join("|")})`, "gi");
  let seen = 0;
  const out = stem.replace(pattern, (m) => {
    seen++;
    return m.toLowerCase() === pair[0].toLowerCase() ? pair[1] : pair[0];
  });
  const mentions = new Set([...stem.matchAll(pattern)].map((m) => m[0].toLowerCase()));
  return seen > 0 && mentions.size === 2 ? out : null;
}

export const demographicSwap: Perturbation = {
  name: "demographic_swap",
  family: "attribute",
  description:
    "exchanges the two people an item names, or swaps its demographic terms one-to-one for terms of the same kind",
  writes: ["stem", "options"],
  apply(item, ctx) {
    const mismatch = constructMismatch(item, "demographic");
    if (mismatch) return { notApplicable: mismatch };
    const pair = people(item);
    const exchanged = pair ? exchange(item.stem, pair) : null;
    const texts = [item.stem, ...(item.options ?? [])];
    const mapping = termMapping(texts, ctx.variant);
    const canList = mapping.size > 0;
    const kind = ctx.variant % 3;
    const doExchange = exchanged !== null && (kind !== 1 || !canList);
    const doList = canList && (kind !== 0 || exchanged === null);
    if (!doExchange && !doList)
      return { notApplicable: "no listed demographic term in the stem or the options, and no two people to exchange" };
    const out = copyItem(item);
    const notes: string[] = [];
    if (doExchange) {
      out.stem = exchanged!;
      notes.push(`exchanged '${pair![0]}' and '${pair![1]}'`);
    }
    if (doList) {
      out.stem = listSwap(out.stem, mapping);
      if (item.options) out.options = item.options.map((o) => listSwap(o, mapping));
      for (const key of ["sent_more", "sent_less"] as const) {
        const v = item.metadata[key];
        if (typeof v === "string") out.metadata[key] = listSwap(v, mapping);
      }
      notes.push([...mapping].map(([a, b]) => `${a} -> ${b}`).join("; "));
    }
    return { item: out, note: notes.join("; ") };
  },
};
