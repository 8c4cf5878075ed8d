/** Format: whitespace and punctuation noise in the stem (App. C "whitespace / punctuation noise"). */
import * as z from "zod";
import { lazySchema } from "../../contracts/lazy-schema.js";
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";

const settingsSchema = lazySchema(() =>
  z
    .object({
      /** Share of word gaps that get a doubled space (variant 0), at least one. */
      rate: z.number().gt(0).max(1).default(0.25),
    })
    .strict(),
);

export const whitespaceNoise: Perturbation = {
  name: "whitespace_noise",
  family: "format",
  description: "doubles spaces, detaches punctuation or adds stray commas in the stem",
  writes: ["stem"],
  settingsSchema,
  apply(item, ctx) {
    const out = copyItem(item);
    const kind = ctx.variant % 3;
    if (kind === 0) {
      const gaps = [...item.stem.matchAll(/(?<=\S) (?=\S)/g)].map((m) => m.index);
      if (gaps.length === 0) return { notApplicable: "the stem has no space between words" };
      const chosen = new Set(gaps.filter(() => ctx.random.uniform() < (ctx.settings.rate as number)));
      if (chosen.size === 0) chosen.add(gaps[ctx.random.integer(gaps.length)]);
      out.stem = [...item.stem].map((ch, i) => (chosen.has(i) ? "  " : ch)).join("");
      return { item: out, note: `${chosen.size} doubled space(s)` };
    }
    if (kind === 1) {
      const stem = item.stem.replace(/(?<=\p{L})([?.!,;:])/gu, " $1");
      if (stem === item.stem) return { notApplicable: "the stem has no punctuation after a word" };
      out.stem = stem;
      return { item: out, note: "a space before each punctuation mark" };
    }
    const words = [...item.stem.matchAll(/\p{L}+(?= \p{L})/gu)];
    if (words.length === 0) return { notApplicable: "the stem has no two adjacent words" };
    const pick = words[ctx.random.integer(words.length)];
    const at = pick.index + pick[0].length;
    out.stem = `${item.stem.slice(0, at)},${item.stem.slice(at)}`;
    return { item: out, note: `a stray comma after '${pick[0]}'` };
  },
};
