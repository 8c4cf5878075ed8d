// Cohen's kappa for two raters with the Fleiss-Cohen-Everitt (1969) large-sample variance
// (statsmodels `std_kappa`, R psych `var.kappa`) and the null variance for the test of kappa = 0.
import type { Interval } from "./descriptive.js";
import { normalSf, normalTwoSidedP } from "./distributions.js";
import { twoSidedCriticalValue } from "./proportions.js";

export interface CohensKappa {
  n: number;
  pObserved: number;
  pExpected: number;
  kappa: number;
  /** SE not assuming kappa = 0 (used for the CI). */
  se: number;
  /** SE under H0: kappa = 0 (used for the z test). */
  seNull: number;
  ci: Interval;
  z: number;
  pTwoSided: number;
  /** P(Z >= z): the alternative that agreement exceeds chance. */
  pOneSided: number;
  /** Largest kappa the marginals allow: (sum_i min(r_i, c_i) - p_e)/(1 - p_e). */
  kappaMax: number;
}

/** Builds the k x k table from two raters' labels (label order = `labels`). */
export function agreementTable(
  labels: readonly string[],
  rater1: readonly string[],
  rater2: readonly string[],
): number[][] {
  if (rater1.length !== rater2.length) throw new RangeError("the two raters rated different numbers of items");
  const position = new Map(labels.map((label, i) => [label, i]));
  const table = labels.map(() => labels.map(() => 0));
  rater1.forEach((label1, item) => {
    const i = position.get(label1);
    const j = position.get(rater2[item]);
    if (i === undefined || j === undefined) throw new RangeError(`unknown label at item ${item}`);
    table[i][j]++;
  });
  return table;
}

/** Unweighted Cohen's kappa from a square table[i][j] = #items rater 1 put in i and rater 2 in j. */
export function cohensKappa(table: readonly (readonly number[])[], alpha = 0.05): CohensKappa {
  const k = table.length;
  if (k < 2 || table.some((row) => row.length !== k)) throw new RangeError("kappa needs a square table, k >= 2");
  const n = table.flat().reduce((a, b) => a + b, 0);
  const p = table.map((row) => row.map((count) => count / n));
  const rows = p.map((row) => row.reduce((a, b) => a + b, 0));
  const cols = p[0].map((_, j) => p.reduce((total, row) => total + row[j], 0));
  const pObserved = p.reduce((total, row, i) => total + row[i], 0);
  const pExpected = rows.reduce((total, r, i) => total + r * cols[i], 0);
  const kappa = (pObserved - pExpected) / (1 - pExpected);
  const se = Math.sqrt(fleissVariance(p, { rows, cols }, { kappa, pExpected }) / n);
  const seNull = Math.sqrt(nullVariance(rows, cols, pExpected) / n);
  const z = kappa / seNull;
  const zCrit = twoSidedCriticalValue(alpha);
  const pMax = rows.reduce((total, r, i) => total + Math.min(r, cols[i]), 0);
  return {
    n,
    pObserved,
    pExpected,
    kappa,
    se,
    seNull,
    ci: [kappa - zCrit * se, kappa + zCrit * se],
    z,
    pTwoSided: normalTwoSidedP(z),
    pOneSided: normalSf(z),
    kappaMax: (pMax - pExpected) / (1 - pExpected),
  };
}

/** n * Var(kappa) = [A + B - C]/(1 - p_e)^2 (Fleiss, Cohen & Everitt 1969). */
function fleissVariance(
  p: number[][],
  margins: { rows: number[]; cols: number[] },
  agreement: { kappa: number; pExpected: number },
): number {
  const { rows, cols } = margins;
  const { kappa, pExpected } = agreement;
  const k = p.length;
  let a = 0;
  let b = 0;
  for (let i = 0; i < k; i++) {
    a += p[i][i] * (1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2;
    for (let j = 0; j < k; j++) {
      if (i !== j) b += p[i][j] * (cols[i] + rows[j]) ** 2;
    }
  }
  b *= (1 - kappa) ** 2;
  const c = (kappa - pExpected * (1 - kappa)) ** 2;
  return (a + b - c) / (1 - pExpected) ** 2;
}

/** n * Var0(kappa) = [p_e + p_e^2 - sum_i r_i c_i (r_i + c_i)]/(1 - p_e)^2. */
function nullVariance(rows: number[], cols: number[], pExpected: number): number {
  const cross = rows.reduce((total, r, i) => total + r * cols[i] * (r + cols[i]), 0);
  return (pExpected + pExpected ** 2 - cross) / (1 - pExpected) ** 2;
}
