/** Format: the letter case of the stem and the options (upper, lower or title case; App. C "case changes"). */
import * as z from "zod";
import { lazySchema } from "../../contracts/lazy-schema.js";
import type { Item } from "../../contracts/item.js";
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";

const MODES = ["upper", "lower", "title"] as const;
type Mode = (typeof MODES)[number];

const settingsSchema = lazySchema(() =>
  z
    .object({
      /** Force one mode for every variant (default: variant 0 upper, 1 lower, 2 title). */
      mode: z.enum(MODES).optional(),
    })
    .strict(),
);

function recase(text: string, mode: Mode): string {
  if (mode === "upper") return text.toUpperCase();
  if (mode === "lower") return text.toLowerCase();
  return text.replace(/\p{L}[\p{L}'’]*/gu, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase());
}

export const caseChange: Perturbation = {
  name: "case_change",
  family: "format",
  description: "upper-, lower- or title-cases the stem and the options",
  writes: ["stem", "options"],
  settingsSchema,
  apply(item: Item, ctx) {
    const mode = (ctx.settings.mode as Mode | undefined) ?? MODES[ctx.variant % MODES.length];
    const out = copyItem(item);
    out.stem = recase(item.stem, mode);
    if (item.options) out.options = item.options.map((o) => recase(o, mode));
    return { item: out, note: `${mode} case` };
  },
};
