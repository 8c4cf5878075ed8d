/** Placebo: a neutral reference tag after the stem ("(Reference: R-4821)"); nothing the construct depends on. */
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";

export const referenceTag: Perturbation = {
  name: "reference_tag",
  family: "placebo",
  description: "appends a random reference number to the stem",
  writes: ["stem"],
  apply(item, ctx) {
    const out = copyItem(item);
    const code = String(1000 + ctx.random.integer(9000));
    out.stem = `${item.stem}\n(Reference: R-${code})`;
    return { item: out, note: `reference R-${code}` };
  },
};
