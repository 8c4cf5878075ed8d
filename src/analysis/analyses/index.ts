/**
 * The registered analyses, in the order of their results, summary lines and scorecard fields.
 * A new study type adds its file here (one import), nothing else in the analysis layer.
 */
import "./integrity.js";
import "./rates.js";
import "./contrasts.js";
import "./hypotheses.js";
import "./format.js";
import "./option-preserving.js";
import "./paired.js";
import "./variance.js";
import "./specification-curve.js";
import "./methodology.js";

export type { NnhCard, NnhRow, ResidualNnhRow } from "./contrasts.js";
export { nnhExplanation, residualExplanation } from "./contrasts.js";
export { INTEGRITY_FAILED_LINE } from "./integrity.js";
export type { HypothesesResult } from "./hypotheses.js";
export type { MethodologyStamp } from "./methodology.js";
export type { MatrixCell, RateMatrices, RateMatrix } from "./rates.js";
export { benchmarkRowLabel, matrixDescription } from "./rates.js";
