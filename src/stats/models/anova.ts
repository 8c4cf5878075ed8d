// ANOVA tables (Types I, II, III) for a linear model with categorical factors and their
// interactions, valid for unbalanced data. Definitions follow golden/README.md: Type II =
// car / statsmodels typ=2 (marginality-respecting RSS differences); Type III = Wald F tests in
// the full model under sum-to-zero coding; eta^2 and Hays omega^2 against the corrected total SS.
import {
  aliasedColumns,
  assertFullRank,
  buildDesign,
  crossProductVector,
  columnValues,
  type DesignMatrix,
  EstimabilityError,
  type FactorOptions,
  labelCodes,
  rowKeys,
  type Table,
  weightedCrossProduct,
} from "./design.js";
import { cholesky, choleskySolve, invertSpd, inverseQuadraticForm, PIVOT_TOLERANCE, subMatrix } from "./linalg.js";
import { fSf } from "./tails.js";

export interface AnovaSpec {
  response: string;
  /** Terms in model order: main effects and interactions 'a:b'. */
  terms: readonly string[];
  /** Level order per factor (default: sort() order). Every term variable is treated as categorical. */
  factors?: Readonly<Record<string, FactorOptions>>;
  /**
   * A rank-deficient design (an empty level combination, as in a bootstrap resample): "error"
   * (default) throws a RankDeficiencyError; "drop" fits the column space without the aliased
   * columns, so each term's df is the rank it adds (Types I and II), and Type III, which is not
   * defined without full rank, is then empty.
   */
  aliased?: "error" | "drop";
}

export interface AnovaRow {
  term: string;
  ss: number;
  df: number;
  F: number;
  p: number;
  /** SS / SS_total (absent on the Type III intercept row). */
  etaSq?: number;
  /** Hays: max((SS - df MS_W) / (SS_total + MS_W), 0). */
  omegaSq?: number;
  omegaSqUnclipped?: number;
  /** SS / (SS + SS_residual). */
  partialEtaSq?: number;
}

export interface AnovaResult {
  nObs: number;
  /** Corrected total sum of squares of the analysed rows. */
  ssTotal: number;
  rss: number;
  dfResidual: number;
  msResidual: number;
  /**
   * Columns left out of the fit as linear combinations of earlier ones (with aliased: "drop";
   * empty when the design has full rank), as R's lm reports them NA.
   */
  aliased: { column: string; combinationOf: string[] }[];
  /** Sequential SS in term order. */
  type1: AnovaRow[];
  type2: AnovaRow[];
  /** Starts with the Intercept row. */
  type3: AnovaRow[];
}

/**
 * Fits the linear model once per coding and returns all three ANOVA tables. Every predictor is
 * categorical, so rows of one cell (combination of levels) share a design row: the fit works on
 * per-cell counts and sums (X'X = sum_c n_c x_c x_c', X'y = sum_c x_c sum_{i in c} y_i), which
 * makes its cost independent of the number of rows after one pass.
 */
export function anova(table: Table, spec: AnovaSpec): AnovaResult {
  const factors = allCategorical(spec);
  const y = numericResponse(table, spec.response);
  const cells = collapseToCells(table, Object.keys(factors), y);
  const treatment = buildDesign(cells.table, { terms: spec.terms, factors, coding: "treatment" });
  const gram = weightedCrossProduct(treatment, cells.count);
  const dropAliased = spec.aliased === "drop";
  if (!dropAliased) assertFullRank(treatment, cells.count);
  const { ssTotal, rssOf, rankOf } = residualSums(treatment, gram, cells, moments(y), dropAliased);
  const all = treatment.terms.map((_, t) => t);
  const rss = rssOf(all);
  const nObs = y.length;
  const rank = rankOf(all);
  const dfResidual = nObs - rank;
  if (dfResidual <= 0) throw new EstimabilityError("no residual degrees of freedom: the model is saturated");
  const ms = rss / dfResidual;
  const row = makeRow(ssTotal, ms, dfResidual, rss);
  const fullRank = rank === treatment.nCols;
  return {
    nObs,
    ssTotal,
    rss,
    dfResidual,
    msResidual: ms,
    aliased: dropAliased ? aliasedColumns(treatment, cells.count) : [],
    type1: typeOne(treatment, rssOf, rankOf, row),
    type2: typeTwo(treatment, { rssOf, rankOf }, row),
    type3: fullRank
      ? typeThree(buildDesign(cells.table, { terms: spec.terms, factors, coding: "sum" }), cells, row)
      : [],
  };
}

/** Mean and corrected total sum of squares of y, each row weighted (weight 1 by default). */
function moments(y: ArrayLike<number>, weights?: ArrayLike<number>): { mean: number; ssTotal: number; n: number } {
  let n = 0;
  let total = 0;
  for (let i = 0; i < y.length; i++) {
    const w = weights ? weights[i] : 1;
    n += w;
    total += w * y[i];
  }
  const mean = total / n;
  let ssTotal = 0;
  for (let i = 0; i < y.length; i++) ssTotal += (weights ? weights[i] : 1) * (y[i] - mean) ** 2;
  return { mean, ssTotal, n };
}

export interface TypeTwoResult {
  nObs: number;
  ssTotal: number;
  rss: number;
  dfResidual: number;
  msResidual: number;
  type2: AnovaRow[];
}

/**
 * Type II ANOVA of the same rows under changing integer row weights (a row of weight w counts as
 * w copies; weight 0 leaves it out), with the cells and the design built once: what the
 * configuration bootstrap needs, where a resample is the slice's rows with multiplicities.
 * Columns of levels no weighted row has are aliased and dropped, which fits the same column
 * space as a design built from the resampled rows, so the result equals
 * anova(resampled rows, { ...spec, aliased: "drop" }).type2.
 */
export function preparedTypeTwoAnova(
  table: Table,
  spec: AnovaSpec,
): (weights: ArrayLike<number>, only?: ReadonlySet<string>) => TypeTwoResult {
  const factors = allCategorical(spec);
  const y = numericResponse(table, spec.response);
  const cells = collapseToCells(table, Object.keys(factors), y);
  const design = buildDesign(cells.table, { terms: spec.terms, factors, coding: "treatment" });
  const count = new Float64Array(cells.count.length);
  const sum = new Float64Array(cells.count.length);
  // `only`: the terms whose rows are wanted (each Type II row costs two sub-model fits).
  return (weights, only) => {
    if (weights.length !== y.length) throw new RangeError(`need ${y.length} row weights, got ${weights.length}`);
    count.fill(0);
    sum.fill(0);
    for (let i = 0; i < y.length; i++) {
      count[cells.rowCell[i]] += weights[i];
      sum[cells.rowCell[i]] += weights[i] * y[i];
    }
    const m = moments(y, weights);
    const gram = weightedCrossProduct(design, count);
    const { ssTotal, rssOf, rankOf } = residualSums(design, gram, { count, sum }, m, true);
    const all = design.terms.map((_, t) => t);
    const rss = rssOf(all);
    const dfResidual = m.n - rankOf(all);
    if (dfResidual <= 0) throw new EstimabilityError("no residual degrees of freedom: the model is saturated");
    const ms = rss / dfResidual;
    return {
      nObs: m.n,
      ssTotal,
      rss,
      dfResidual,
      msResidual: ms,
      type2: typeTwo(design, { rssOf, rankOf }, makeRow(ssTotal, ms, dfResidual, rss), only),
    };
  };
}

/** Distinct level combinations of `variables`, with row counts and response sums per cell. */
interface Cells {
  table: Record<string, string[]>;
  count: Float64Array;
  sum: Float64Array;
  /** The cell of each row. */
  rowCell: Int32Array;
}

function collapseToCells(table: Table, variables: string[], y: Float64Array): Cells {
  const columns = variables.map((v) => {
    const c = table[v];
    if (!c) throw new Error(`unknown variable '${v}'`);
    if (c.length !== y.length) throw new Error(`column '${v}' has ${c.length} rows, expected ${y.length}`);
    return labelCodes(c);
  });
  const keyOf = rowKeys(columns);
  const index = new Map<number | string, number>();
  const out: Record<string, string[]> = Object.fromEntries(variables.map((v) => [v, []]));
  const count: number[] = [];
  const sum: number[] = [];
  const rowCell = new Int32Array(y.length);
  for (let i = 0; i < y.length; i++) {
    const key = keyOf(i);
    let cell = index.get(key);
    if (cell === undefined) {
      cell = count.length;
      index.set(key, cell);
      variables.forEach((v, j) => {
        out[v].push(columns[j].labels[columns[j].codes[i]]);
      });
      count.push(0);
      sum.push(0);
    }
    count[cell]++;
    sum[cell] += y[i];
    rowCell[i] = cell;
  }
  return { table: out, count: Float64Array.from(count), sum: Float64Array.from(sum), rowCell };
}

function allCategorical(spec: AnovaSpec): Record<string, FactorOptions> {
  const factors: Record<string, FactorOptions> = { ...spec.factors };
  for (const v of spec.terms.flatMap((t) => t.split(":"))) factors[v] ??= {};
  return factors;
}

function numericResponse(table: Table, name: string): Float64Array {
  const column = table[name];
  if (!column) throw new Error(`unknown response column '${name}'`);
  const values = columnValues(column);
  const y = Float64Array.from({ length: values.length }, (_, i) => Number(values[i]));
  if (y.some((v) => !Number.isFinite(v))) throw new Error(`response '${name}' has non-numeric values`);
  return y;
}

/**
 * RSS of any sub-model (a set of terms, always with the intercept) from one Gram matrix of
 * [X, y - mean(y)]: the last pivot of the Cholesky factor of the selected block squared is the RSS.
 * Centering y keeps that subtraction well conditioned. With `dropAliased`, a column whose pivot
 * vanishes (it lies in the span of earlier columns) is skipped, which projects on the same
 * column space; the rank is the number of columns kept.
 */
function residualSums(
  design: DesignMatrix,
  xtx: Float64Array,
  cells: Pick<Cells, "count" | "sum">,
  { mean, ssTotal }: { mean: number; ssTotal: number },
  dropAliased: boolean,
) {
  const k = design.nCols;
  const centeredSums = cells.sum.map((s, c) => s - cells.count[c] * mean);
  const xty = crossProductVector(design, centeredSums);
  const augmentedGram = (termIdx: readonly number[]) => {
    const cols = termIdx.flatMap((t) => design.terms[t].columns);
    const m = cols.length + 1;
    const g = new Float64Array(m * m);
    for (let a = 0; a < cols.length; a++) {
      for (let b = 0; b < cols.length; b++) g[a * m + b] = xtx[cols[a] * k + cols[b]];
      g[a * m + m - 1] = xty[cols[a]];
      g[(m - 1) * m + a] = xty[cols[a]];
    }
    g[m * m - 1] = ssTotal;
    return { g, m };
  };
  // rssOf and rankOf ask about the same sub-models: factor each one once.
  const aliasSkipping = new Map<string, { rank: number; lastPivot: number }>();
  const aliasSkippingFit = (termIdx: readonly number[]) => {
    const key = termIdx.join(",");
    let fit = aliasSkipping.get(key);
    if (!fit) {
      const { g, m } = augmentedGram(termIdx);
      fit = aliasSkippingCholesky(g, m);
      aliasSkipping.set(key, fit);
    }
    return fit;
  };
  const rssOf = (termIdx: readonly number[]): number => {
    if (dropAliased) return aliasSkippingFit(termIdx).lastPivot;
    const { g, m } = augmentedGram(termIdx);
    const l = cholesky(g, m);
    return l[m * m - 1] ** 2;
  };
  const rankOf = (termIdx: readonly number[]): number => {
    if (dropAliased) return aliasSkippingFit(termIdx).rank;
    return termIdx.reduce((total, t) => total + design.terms[t].columns.length, 0);
  };
  return { ssTotal, rssOf, rankOf };
}

/**
 * Cholesky of the augmented Gram [X, y]'[X, y] that skips columns of X whose pivot vanishes
 * (relative to their own diagonal). Returns the rank of X and the last pivot, y's squared
 * residual norm after projection on the column space of X (clamped at 0).
 */
function aliasSkippingCholesky(a: Float64Array, m: number): { rank: number; lastPivot: number } {
  const l = new Float64Array(m * m);
  // Kept column indices in a typed array: the configuration bootstrap runs this thousands of times.
  const kept = new Int32Array(m);
  let rank = 0;
  let lastPivot = 0;
  for (let j = 0; j < m; j++) {
    const rowJ = j * m;
    let d = a[rowJ + j];
    for (let q = 0; q < rank; q++) {
      const v = l[rowJ + kept[q]];
      d -= v * v;
    }
    if (j === m - 1) {
      lastPivot = Math.max(d, 0);
      break;
    }
    if (!(d > PIVOT_TOLERANCE * a[rowJ + j])) continue;
    const ljj = Math.sqrt(d);
    l[rowJ + j] = ljj;
    for (let i = j + 1; i < m; i++) {
      const rowI = i * m;
      let s = a[rowI + j];
      for (let q = 0; q < rank; q++) {
        const c = kept[q];
        s -= l[rowI + c] * l[rowJ + c];
      }
      l[rowI + j] = s / ljj;
    }
    kept[rank++] = j;
  }
  return { rank, lastPivot };
}

function makeRow(ssTotal: number, ms: number, dfResidual: number, rss: number) {
  return (term: string, ss: number, df: number): AnovaRow => {
    const F = ss / df / ms;
    const omegaSqUnclipped = (ss - df * ms) / (ssTotal + ms);
    return {
      term,
      ss,
      df,
      F,
      p: fSf(F, df, dfResidual),
      etaSq: ss / ssTotal,
      omegaSq: Math.max(omegaSqUnclipped, 0),
      omegaSqUnclipped,
      partialEtaSq: ss / (ss + rss),
    };
  };
}

type RowMaker = ReturnType<typeof makeRow>;

/** Indices of the non-intercept terms. */
function effectTerms(design: DesignMatrix): number[] {
  return design.terms.map((_, t) => t).filter((t) => design.terms[t].name !== "Intercept");
}

function interceptTerms(design: DesignMatrix): number[] {
  return design.terms[0]?.name === "Intercept" ? [0] : [];
}

type SubModelSum = (t: readonly number[]) => number;

function typeOne(design: DesignMatrix, rssOf: SubModelSum, rankOf: SubModelSum, row: RowMaker): AnovaRow[] {
  const included = interceptTerms(design);
  let previous = rssOf(included);
  let previousRank = rankOf(included);
  return effectTerms(design).map((t) => {
    included.push(t);
    const current = rssOf(included);
    const currentRank = rankOf(included);
    const out = row(design.terms[t].name, previous - current, currentRank - previousRank);
    previous = current;
    previousRank = currentRank;
    return out;
  });
}

/** True when term `outer` strictly contains every variable of `inner` (e.g. a:b contains a). */
function contains(outer: string[], inner: string[]): boolean {
  return outer.length > inner.length && inner.every((v) => outer.includes(v));
}

function typeTwo(
  design: DesignMatrix,
  /** The residual sum of squares and the rank of a sub-model. */
  sums: { rssOf: SubModelSum; rankOf: SubModelSum },
  row: RowMaker,
  only?: ReadonlySet<string>,
): AnovaRow[] {
  const { rssOf, rankOf } = sums;
  const effects = effectTerms(design);
  return effects
    .flatMap((t) => (only && !only.has(design.terms[t].name) ? [] : [t]))
    .map((t) => {
      const vars = design.terms[t].variables;
      // The comparison drops the term and everything containing it; both models respect marginality.
      const base = [
        ...interceptTerms(design),
        ...effects.filter((u) => u !== t && !contains(design.terms[u].variables, vars)),
      ];
      const ss = rssOf(base) - rssOf([...base, t]);
      return row(design.terms[t].name, ss, rankOf([...base, t]) - rankOf(base));
    });
}

function typeThree(design: DesignMatrix, cells: Cells, row: RowMaker): AnovaRow[] {
  const k = design.nCols;
  const xtx = weightedCrossProduct(design, cells.count);
  const b = choleskySolve(cholesky(xtx, k), k, crossProductVector(design, cells.sum));
  const unscaled = invertSpd(xtx, k);
  return design.terms.map((term) => {
    // SS of H0: b_T = 0 in the full sum-coded model: b_T' [(X'X)^-1_TT]^-1 b_T.
    const cols = term.columns;
    const ss = inverseQuadraticForm(
      subMatrix(unscaled, k, cols),
      cols.length,
      cols.map((c) => b[c]),
    );
    const out = row(term.name, ss, cols.length);
    if (term.name !== "Intercept") return out;
    return { term: out.term, ss: out.ss, df: out.df, F: out.F, p: out.p };
  });
}
