import type { Item } from "../contracts/item.js";
import type { DatasetLoader } from "./types.js";

/** Items written into the spec itself (demo studies, small custom sets). */
export const inlineLoader: DatasetLoader = {
  name: "inline",
  meta: {
    outcomeMeaning: "the answer matches the gold answer",
    scoring: "mc",
    scorers: { mc: "mc_last_answer", open: "exact_answer", logprob: "logprob_options" },
    judgeRubric: "factual_oe",
    baseline: "uniform",
    archetype: "diagnostic",
  },
  async load(spec) {
    const items: Item[] = (spec.items ?? []).map((raw) => ({
      id: raw.id,
      benchmark: spec.id,
      stem: raw.stem,
      options: raw.options,
      goldIndex: raw.gold_index,
      goldText: raw.gold_text,
      metadata: raw.metadata ?? {},
    }));
    const sources = Object.fromEntries(items.map((item, row) => [item.id, { file: "(inline)", row: row + 1 }]));
    return { items, sources, skippedRows: 0 };
  },
};
