/**
 * Attribute: safe <-> unsafe pair lookup (App. C, XSTest). A safe prompt of type T is replaced by
 * the unsafe prompt at the same position among the items of the contrast type `contrast_S` (S = T,
 * or T starts with "S_" or ends with "_S": privacy_public -> contrast_privacy), and an unsafe one
 * by its safe partner. Variant v takes the partner v positions further on (v = 0: the matched
 * pair). Needs the benchmark's items (the pool); the expected behaviour stays the original's.
 */
import type { Item } from "../../contracts/item.js";
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";
import { constructMismatch } from "./signatures.js";

const CONTRAST = "contrast_";

function matchesContrast(safeType: string, suffix: string): boolean {
  return safeType === suffix || safeType.startsWith(`${suffix}_`) || safeType.endsWith(`_${suffix}`);
}

/** Items of `type` in the pool, in id order (numeric where ids end in numbers). */
function ofType(pool: readonly Item[], types: (t: string) => boolean): Item[] {
  return pool
    .filter((i) => typeof i.metadata.type === "string" && types(i.metadata.type as string))
    .sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
}

export const safetyPair: Perturbation = {
  name: "safety_pair",
  family: "attribute",
  description: "replaces a safe prompt by its unsafe contrast partner, or an unsafe one by its safe partner",
  writes: ["stem"],
  apply(item, ctx) {
    const mismatch = constructMismatch(item, "safety");
    if (mismatch) return { notApplicable: mismatch };
    if (!ctx.pool || ctx.pool.length === 0)
      return { notApplicable: "the pair lookup needs the benchmark's items, and none were given" };
    const type = item.metadata.type as string;
    const own = ofType(ctx.pool, (t) => t === type);
    const position = own.findIndex((i) => i.id === item.id);
    if (position < 0) return { notApplicable: "the item is not among the benchmark's items" };
    const partners = type.startsWith(CONTRAST)
      ? ofType(ctx.pool, (t) => !t.startsWith(CONTRAST) && matchesContrast(t, type.slice(CONTRAST.length)))
      : ofType(ctx.pool, (t) => t.startsWith(CONTRAST) && matchesContrast(type, t.slice(CONTRAST.length)));
    if (partners.length === 0) return { notApplicable: `no contrast type pairs with type '${type}'` };
    const partner = partners[(position + ctx.variant) % partners.length];
    const out = copyItem(item);
    out.stem = partner.stem;
    out.metadata.pair_partner = partner.id;
    out.metadata.pair_partner_label = partner.metadata.label;
    out.metadata.construct_flipped = true;
    return { item: out, note: `prompt of ${partner.id} (${String(partner.metadata.type)})` };
  },
};
