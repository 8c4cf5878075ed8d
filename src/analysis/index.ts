// The analysis layer's public face: the shared core, then each study kind's computations.
export * from "./across-studies/compare.js";
export * from "./across-studies/compare-links.js";
export * from "./across-studies/format.js";
export * from "./across-studies/profile.js";
export * from "./across-studies/profile-format.js";
export * from "./all-analyses.js";
export * from "./core/contrast-model.js";
export * from "./core/result-table.js";
export * from "./core/data.js";
export * from "./core/directory.js";
export * from "./core/inputs.js";
export * from "./core/methodology.js";
export * from "./core/pairing.js";
export * from "./core/plan.js";
export * from "./core/preregistration.js";
export * from "./core/record.js";
export * from "./core/registry.js";
export * from "./core/scorecard.js";
export * from "./core/study.js";
export * from "./core/summary.js";
export * from "./core/kinds.js";
export * from "./core/table.js";
export * from "./core/text.js";
// The scaffold and format comparison (ScaffoldSafety 3.7, 4-6, App. D, G, I, O).
export * from "./conditions/format.js";
export * from "./conditions/hypotheses.js";
export * from "./comparison/item-facts.js";
export * from "./conditions/paired.js";
export * from "./every-study/rates.js";
export * from "./conditions/spec-curve.js";
export * from "./conditions/variance.js";
// The kinds' card files: the comparison's scorecard, the agent card.
export { SCORECARD_JSON, SCORECARD_MD } from "./comparison/kind-card.js";
export { AGENT_CARD_JSON, AGENT_CARD_MD } from "./agents/kind-card.js";
// The configuration grid's card file (SafetyRepro App. B).
export { GRID_CARD_JSON, GRID_CARD_MD, writeGridCard } from "./grid/card.js";
