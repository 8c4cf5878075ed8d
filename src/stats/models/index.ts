// Regression-type models (GLM, GLMM, ANOVA, trend, generalizability, specification curve).
export {
  type AliasedColumn,
  aliasedColumns,
  assertFullRank,
  describeAliased,
  EstimabilityError,
  buildDesign,
  type Coding,
  type Column,
  columnValues,
  FactorColumnBuilder,
  type FactorColumn,
  isFactorColumn,
  labelCodes,
  columnIndices,
  type DesignMatrix,
  type DesignSpec,
  type DesignTerm,
  type FactorOptions,
  RankDeficiencyError,
  type RowPatterns,
  rowPatterns,
  sortedLevels,
  type Table,
  termColumnNames,
} from "./design.js";
export { type ParsedFormula, parseFormula } from "./formula.js";
export {
  binomialRegression,
  type CoefficientRow,
  ConvergenceError,
  type CovarianceType,
  coefficientTable,
  covarianceMatrix,
  defaultCovariance,
  fitBinomialGlm,
  type FormulaOptions,
  type GlmFit,
  type GlmOptions,
  glmWaldTest,
  type LikelihoodRatioTest,
  type Link,
  likelihoodRatioTest,
  NotEstimableError,
  SeparationError,
  termWaldTest,
  type WaldTest,
  waldTest,
} from "./glm.js";
export { type AnovaResult, type AnovaRow, type AnovaSpec, anova } from "./anova.js";
export {
  fitGlmmRandomIntercept,
  type GlmmCoefficientRow,
  type GlmmFit,
  type GlmmOptions,
  glmmCoefficientTable,
  glmmRegression,
} from "./glmm.js";
export { type OrdinalTrendResult, type OrdinalTrendSpec, ordinalTrendTest } from "./trend.js";
export {
  type DStudy,
  dStudy,
  type GStudyResult,
  type GStudySpec,
  generalizabilityStudy,
  type VarianceComponent,
} from "./generalizability.js";
export {
  type AnalyzePermuted,
  type CurveSummary,
  type Dimension,
  enumerateSpecifications,
  type NullCurves,
  type OptionValue,
  type PermutationOptions,
  permutationSeeds,
  runSpecificationCurve,
  type Specification,
  type SpecificationCurve,
  type SpecificationResult,
  summarizeCurve,
} from "./specification-curve.js";
export {
  type CellGlmInput,
  type CellGlmResult,
  type CellMoments,
  type CellSupport,
  momentMatrices,
  cellMoments,
  fitCellGlm,
} from "./cell-glm.js";
export { type SeededRandom, seededRandom } from "../random.js";
export { NotPositiveDefiniteError } from "./linalg.js";
