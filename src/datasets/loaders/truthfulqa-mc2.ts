import type { DatasetLoader } from "../types.js";
import { loadTruthfulMc } from "./truthfulqa-mc.js";

/**
 * TruthfulQA MC2: 2–24 options, 1–14 of them true, shuffled per item. Scoring convention:
 * metadata.gold_indices holds every true option (shown positions). On the log-prob path the
 * score is upstream's normalised probability mass on the true options; for a chosen letter
 * the outcome is 1 when the chosen option is any true one. goldIndex is the first true
 * option shown, kept only so single-gold code stays defined: it undercounts, use gold_indices.
 */
export const truthfulqaMc2Loader: DatasetLoader = {
  name: "truthfulqa_mc2",
  meta: {
    outcomeMeaning:
      "probability mass on the true options (log-prob), or the chosen option is one of metadata.gold_indices",
    scoring: "logprob",
    scorers: { mc: "mc_last_answer", open: "exact_answer", logprob: "logprob_options" },
    judgeRubric: "truthfulqa_oe",
    judgeRequired: true,
    baseline: "uniform",
    archetype: "diagnostic",
    measures: "safety",
  },
  load: (spec, ctx) => loadTruthfulMc(spec, ctx, "mc2"),
};
