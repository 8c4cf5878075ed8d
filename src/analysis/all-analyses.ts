/**
 * The registered analyses, in the order of their results, summary lines, scorecard fields and
 * files. A new analysis adds its import here, nothing else in the core. This is the one core file
 * that imports the study-kind folders (comparison/, grid/, audit/, agents/); check:layers holds it.
 */
import "./integrity/integrity-analysis.js";
// Before the contrasts: a sequential run's repeated CIs are read before the fixed-n tables.
import "./every-study/sequential-analysis.js";
import "./every-study/rates-analysis.js";
import "./conditions/contrasts-analysis.js";
import "./conditions/hypotheses-analysis.js";
import "./comparison/subhypotheses-analysis.js";
import "./comparison/bbq-bias-analysis.js";
import "./conditions/pairwise-analysis.js";
import "./conditions/independence-ci-analysis.js";
import "./comparison/format-analysis.js";
import "./comparison/option-preserving-analysis.js";
import "./conditions/paired-analysis.js";
import "./conditions/variance-analysis.js";
import "./comparison/baseline-dependence-analysis.js";
import "./comparison/sensitivity-profiles-analysis.js";
import "./conditions/spec-curve-analysis.js";
import "./agents/agents-analysis.js";
import "./audit/audit-analysis.js";
import "./grid/grid-analysis.js";
import "./every-study/methodology-analysis.js";
import "./every-study/chronology-analysis.js";
// Each kind's card (its heading and the files it writes).
import "./comparison/kind-card.js";
import "./grid/kind-card.js";
import "./audit/kind-card.js";
import "./agents/kind-card.js";

export type { NnhCard, NnhRow, ResidualNnhRow } from "./conditions/contrasts-analysis.js";
export { nnhExplanation, residualExplanation } from "./conditions/contrasts-analysis.js";
export {
  CONTRAST_TABLE,
  CONTRAST_OVERVIEW_TABLE,
  NNH_TABLE,
  RESIDUAL_NNH_TABLE,
} from "./conditions/contrasts-tables.js";
export { INTEGRITY_FAILED_LINE } from "./integrity/integrity-analysis.js";
export { failedCheckLabel } from "./integrity/planted.js";
export type { HypothesesResult } from "./conditions/hypotheses-analysis.js";
export { interactionsTable } from "./conditions/hypotheses-analysis.js";
export type { BbqBias, BbqBiasRow, BbqContextScore } from "./comparison/bbq-bias-analysis.js";
export { BBQ_BIAS_TABLE } from "./comparison/bbq-bias-analysis.js";
export type { SubHypothesesResult, SubHypothesisResult } from "./comparison/subhypotheses-analysis.js";
export { SUBHYPOTHESES_TABLE } from "./comparison/subhypotheses-analysis.js";
export type { BaselineCell, BaselineDependence } from "./comparison/baseline-dependence-analysis.js";
export { BASELINE_CELLS_TABLE } from "./comparison/baseline-dependence-analysis.js";
export { DIFFICULTY_TABLE, FLIPS_TABLE } from "./conditions/paired-analysis.js";
export { PAIRWISE_TABLE } from "./conditions/pairwise-analysis.js";
export type { IndependenceCi, IndependenceCiRow } from "./conditions/independence-ci-analysis.js";
export { INDEPENDENCE_CI_TABLE } from "./conditions/independence-ci-analysis.js";
export type { DecompositionRow, GDesignRow } from "./conditions/variance-analysis.js";
export {
  DECOMPOSITION_TABLE,
  decompositionRows,
  G_COMPONENTS_TABLE,
  G_DESIGNS_TABLE,
  gDesignRows,
} from "./conditions/variance-analysis.js";
export type { PairwiseContrast, PairwiseFamily } from "./conditions/pairwise-analysis.js";
export { formatGapsTable, formatTwoByTwoTable } from "./comparison/format-analysis.js";
export { RESIDUAL_RECOVERY_TABLE, recoveryTable } from "./comparison/option-preserving-analysis.js";
export type { SensitivityProfile, SensitivityProfiles } from "./comparison/sensitivity-profiles-analysis.js";
export { sensitivityProfilesTable } from "./comparison/sensitivity-profiles-analysis.js";
export { SPEC_CURVE_PATHS_TABLE } from "./conditions/spec-curve-analysis.js";
export type { MethodologyStamp } from "./every-study/methodology-analysis.js";
export { blindedWord, blindingReading, crossValidatedWord, specCurveWord } from "./every-study/methodology-analysis.js";
export type { MatrixCell, RateMatrices, RateMatrix } from "./every-study/rates-analysis.js";
export { benchmarkRowLabel, matrixDescription } from "./every-study/rates-analysis.js";
export {
  CONFIGURATION_RATES_TABLE,
  DESCRIBED_RATES_TABLE,
  matrixCellAt,
  matrixColumnKey,
  rateMatrixTable,
} from "./every-study/rates-analysis.js";
export type { AgentCell, AgentSliceLevel, AgentsResult, H1Decision, TierLadder } from "./agents/agents-analysis.js";
export { cellLabel } from "./agents/agents-analysis.js";
export type { AuditResult, ScorerFidelityRow } from "./audit/audit-analysis.js";
export type { GridEnvelope, GridResult } from "./grid/grid-analysis.js";
