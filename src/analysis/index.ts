// Study-level analyses on the tidy table (ScaffoldSafety 3.7, 4-6, App. D, F, G, I, O).
export * from "./contrasts.js";
export * from "./data.js";
export * from "./directory.js";
export * from "./format.js";
export * from "./hypotheses.js";
export * from "./methodology.js";
export * from "./paired.js";
export * from "./plan.js";
export * from "./preregistration.js";
export * from "./rates.js";
export * from "./scorecard.js";
export * from "./spec-curve.js";
export * from "./study.js";
export * from "./summary.js";
export * from "./table.js";
export * from "./variance.js";
