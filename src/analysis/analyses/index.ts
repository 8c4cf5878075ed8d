/**
 * The registered analyses, in the order of their results, summary lines and scorecard fields.
 * A new study type adds its file here (one import), nothing else in the analysis layer.
 */
import "./integrity.js";
import "./rates.js";
import "./contrasts.js";
import "./hypotheses.js";
import "./subhypotheses.js";
import "./bbq-bias.js";
import "./pairwise.js";
import "./independence-ci.js";
import "./format.js";
import "./option-preserving.js";
import "./paired.js";
import "./variance.js";
import "./baseline-dependence.js";
import "./sensitivity-profiles.js";
import "./specification-curve.js";
import "./agents.js";
import "./audit.js";
import "./grid.js";
import "./methodology.js";
import "./chronology.js";

export type { NnhCard, NnhRow, ResidualNnhRow } from "./contrasts.js";
export { nnhExplanation, residualExplanation } from "./contrasts.js";
export { INTEGRITY_FAILED_LINE } from "./integrity.js";
export type { HypothesesResult } from "./hypotheses.js";
export type { BbqBias, BbqBiasRow, BbqContextScore } from "./bbq-bias.js";
export type { SubHypothesesResult, SubHypothesisResult } from "./subhypotheses.js";
export type { BaselineCell, BaselineDependence } from "./baseline-dependence.js";
export type { IndependenceCi, IndependenceCiRow } from "./independence-ci.js";
export type { PairwiseContrast, PairwiseFamily } from "./pairwise.js";
export type { SensitivityProfile, SensitivityProfiles } from "./sensitivity-profiles.js";
export type { MethodologyStamp } from "./methodology.js";
export type { MatrixCell, RateMatrices, RateMatrix } from "./rates.js";
export { benchmarkRowLabel, matrixDescription } from "./rates.js";
export type { AgentCell, AgentSliceLevel, AgentsResult, H1Decision, TierLadder } from "./agents.js";
export { cellLabel } from "./agents.js";
export type { AuditResult, ScorerFidelityRow } from "./audit.js";
export type { GridEnvelope, GridResult } from "./grid.js";
