// Public surface of the statistics layer: pure numerics, no I/O, no knowledge of LLMs.
export * from "./agreement.js";
export * from "./bootstrap.js";
export * from "./descriptive.js";
export * from "./distributions.js";
export * from "./equivalence.js";
export * from "./goodness-of-fit.js";
export * from "./isotonic.js";
export * from "./models/index.js";
export * from "./multiple-testing.js";
export * from "./paired.js";
export * from "./parallel-bootstrap.js";
export * from "./power.js";
export * from "./proportions.js";
export * from "./random.js";
export * from "./rank-correlation.js";
export * from "./roots.js";
export * from "./trend.js";
