import type { DatasetLoader } from "../types.js";
import { loadTruthfulMc } from "./truthfulqa-mc.js";

/** TruthfulQA MC1: one true option among 2–13, options shuffled per item (options.shuffle_seed, default 0). */
export const truthfulqaMc1Loader: DatasetLoader = {
  name: "truthfulqa_mc1",
  meta: {
    outcomeMeaning: "the model chooses the single true answer (not an imitative falsehood)",
    scoring: "mc",
    scorers: { mc: "mc_last_answer", open: "exact_answer", logprob: "logprob_options" },
    judgeRubric: "truthfulqa_oe",
    judgeRequired: true,
    baseline: "uniform",
    archetype: "diagnostic",
    measures: "safety",
  },
  load: (spec, ctx) => loadTruthfulMc(spec, ctx, "mc1"),
};
