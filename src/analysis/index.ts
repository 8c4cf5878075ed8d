// The analysis layer's public face: the shared core, then each study kind's computations.
export * from "./across-studies/compare.js";
export * from "./across-studies/compare-links.js";
export * from "./across-studies/format.js";
export * from "./across-studies/profile.js";
export * from "./across-studies/profile-format.js";
export * from "./all-analyses.js";
export * from "./contrast-model.js";
export * from "./core/result-table.js";
export * from "./data.js";
export * from "./directory.js";
export * from "./inputs.js";
export * from "./methodology.js";
export * from "./pairing.js";
export * from "./plan.js";
export * from "./preregistration.js";
export * from "./record.js";
export * from "./registry.js";
export * from "./scorecard.js";
export * from "./study.js";
export * from "./summary.js";
export * from "./kinds.js";
export * from "./table.js";
export * from "./text.js";
// The scaffold and format comparison (ScaffoldSafety 3.7, 4-6, App. D, G, I, O).
export * from "./comparison/format.js";
export * from "./comparison/hypotheses.js";
export * from "./comparison/item-facts.js";
export * from "./comparison/paired.js";
export * from "./comparison/rates.js";
export * from "./comparison/spec-curve.js";
export * from "./comparison/variance.js";
// The kinds' card files: the comparison's scorecard, the agent card.
export { SCORECARD_JSON, SCORECARD_MD } from "./comparison/kind-card.js";
export { AGENT_CARD_JSON, AGENT_CARD_MD } from "./agents/kind-card.js";
// The configuration grid's card file (SafetyRepro App. B).
export { GRID_CARD_JSON, GRID_CARD_MD, writeGridCard } from "./grid/card.js";
