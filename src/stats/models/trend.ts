// Ordinal trend (dose-response) test: logistic regression of a 0/1 outcome on an ordinal score
// (e.g. scaffold complexity direct = 0, react = 1, multi_agent = 2, map_reduce = 3), optionally
// adjusted for other terms, with cluster-robust (case-level) standard errors. The slope is the
// change in log-odds per step of the score; H0 is slope = 0. ScaffoldSafety (App. Q.3.2, H4)
// pre-registers the one-sided version (complexity lowers safety: alternative 'less').
import { columnValues, type FactorOptions, type Table } from "./design.js";
import { binomialRegression, type CovarianceType, coefficientTable, type GlmFit } from "./glm.js";
import { normalCdf } from "./tails.js";

export interface OrdinalTrendSpec {
  response: string;
  /** Column holding the ordinal variable (numbers, or labels mapped by `scores`). */
  variable: string;
  /** Score of each label; omitted = the column's numeric values. */
  scores?: Readonly<Record<string, number>>;
  /** Adjustment terms (e.g. ['model', 'benchmark']). */
  covariates?: readonly string[];
  factors?: Readonly<Record<string, FactorOptions>>;
  /** Cluster column (e.g. case id); the test then uses the cluster-robust covariance. */
  cluster?: string;
  alternative?: "two-sided" | "less" | "greater";
}

export interface OrdinalTrendResult {
  /** Log-odds change per unit of the score. */
  slope: number;
  se: number;
  z: number;
  /** p for the requested alternative. */
  p: number;
  pTwoSided: number;
  alternative: "two-sided" | "less" | "greater";
  /** exp(slope): odds ratio per step, with its 95% interval. */
  oddsRatio: number;
  oddsRatioCi95: [number, number];
  covariance: CovarianceType;
  fit: GlmFit;
}

const SCORE_COLUMN = "__ordinal_score";

export function ordinalTrendTest(table: Table, spec: OrdinalTrendSpec): OrdinalTrendResult {
  const score = scoreColumn(table, spec);
  const terms = [SCORE_COLUMN, ...(spec.covariates ?? [])];
  const fit = binomialRegression({ ...table, [SCORE_COLUMN]: score }, `${spec.response} ~ ${terms.join(" + ")}`, {
    factors: spec.factors,
    cluster: spec.cluster,
  });
  const covariance: CovarianceType = spec.cluster ? "cluster" : "model";
  const row = coefficientTable(fit, covariance).find((r) => r.name === SCORE_COLUMN)!;
  const alternative = spec.alternative ?? "two-sided";
  const p = alternative === "two-sided" ? row.p : alternative === "less" ? normalCdf(row.z) : normalCdf(-row.z);
  return {
    slope: row.estimate,
    se: row.se,
    z: row.z,
    p,
    pTwoSided: row.p,
    alternative,
    oddsRatio: row.oddsRatio!,
    oddsRatioCi95: [row.oddsRatioCiLower!, row.oddsRatioCiUpper!],
    covariance,
    fit,
  };
}

function scoreColumn(table: Table, spec: OrdinalTrendSpec): Float64Array {
  const data = table[spec.variable];
  if (!data) throw new Error(`unknown ordinal variable '${spec.variable}'`);
  const column = columnValues(data);
  const out = new Float64Array(column.length);
  for (let i = 0; i < column.length; i++) {
    const raw = column[i];
    const v = spec.scores ? spec.scores[String(raw)] : typeof raw === "number" ? raw : Number.NaN;
    if (v === undefined || !Number.isFinite(v)) {
      throw new Error(`ordinal variable '${spec.variable}' row ${i}: no score for '${raw}'`);
    }
    out[i] = v;
  }
  return out;
}
