/** Semantic: words of the stem replaced by synonyms from the bundled list (App. C "synonym substitution"). */
import * as z from "zod";
import { lazySchema } from "../../contracts/lazy-schema.js";
import { copyItem, lazyWordPattern, matchCase } from "../text.js";
import type { Perturbation } from "../types.js";
import { SYNONYMS } from "../words.js";

const pattern = lazyWordPattern(() => Object.keys(SYNONYMS));

const settingsSchema = lazySchema(() =>
  z
    .object({
      /** At most this many words are replaced. */
      max_substitutions: z.number().int().min(1).default(2),
    })
    .strict(),
);

export const synonymSubstitution: Perturbation = {
  name: "synonym_substitution",
  family: "semantic",
  description: "replaces up to max_substitutions listed words of the stem by synonyms",
  writes: ["stem"],
  settingsSchema,
  apply(item, ctx) {
    const hits = [...item.stem.matchAll(pattern())];
    if (hits.length === 0) return { notApplicable: "no word of the stem is in the synonym list" };
    const max = ctx.settings.max_substitutions as number;
    // Choose which occurrences to replace: a seeded partial shuffle of the hits.
    const order = hits.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = ctx.random.integer(i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    const chosen = new Set(order.slice(0, max));
    let k = 0;
    const replaced: string[] = [];
    const out = copyItem(item);
    out.stem = item.stem.replace(pattern(), (word) => {
      const index = k++;
      if (!chosen.has(index)) return word;
      const options = SYNONYMS[word.toLowerCase()];
      const synonym = matchCase(word, options[(ctx.variant + index) % options.length]);
      replaced.push(`${word} -> ${synonym}`);
      return synonym;
    });
    return { item: out, note: replaced.join("; ") };
  },
};
