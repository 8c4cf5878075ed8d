// Binomial GLM on cell totals, with the case-cluster-robust covariance computed from cluster
// cross-moments instead of rows: the fast path of the specification curve.
//
// When every covariate is categorical, all rows of one cell (a combination of factor levels)
// share their design row x_c and fitted mean mu_c, so the likelihood, the score and X'WX depend
// on the rows only through the cell totals y_c (successes) and n_c (rows): IRLS runs over cells,
// not rows, with the same estimates. The cluster-robust meat sum_g S_g S_g' needs per-cluster
// score sums S_g = sum_c s_c x_c r_gc, with r_gc = y_gc - n_gc mu_c (s_c = 1 for the logit,
// phi(eta_c) / (mu_c (1 - mu_c)) for the probit). Expanding,
//   sum_g r_ga r_gb = YY[a,b] - mu_b YN[a,b] - mu_a YN[b,a] + mu_a mu_b NN[a,b]
// with YY[a,b] = sum_g y_ga y_gb, YN[a,b] = sum_g y_ga n_gb, NN[a,b] = sum_g n_ga n_gb: moments that
// do not depend on the fit. So the moments are accumulated once per data set (one pass over the
// rows), and every model on a subset of its cells (a specification dropping a benchmark, a model,
// a facet level) reads the sub-block, with no further pass over rows or clusters. The variance of
// one coefficient j is then c * sum_ab v_a v_b M[a,b] with v_a = s_a x_a' B e_j (B the bread),
// O(cells^2) per fit. c = G/(G-1) * (N-1)/(N-K), the statsmodels / sandwich HC1 cluster factor of
// binomialRegression (golden/README.md), so the results are the row-level fit's to rounding.
//
// Firth's (1993) bias-reduced logit maximises l(b) + log det(X'WX) / 2; its modified score adds
// sum_c h_c (1/2 - mu_c) x_c, with h_c = w_c x_c' (X'WX)^-1 x_c the cell's hat value (the sum of
// its rows' hat values). Its estimate exists under separation. Its standard error here is the same
// cluster-robust sandwich evaluated at the penalised estimate.
import { type AliasedColumn, aliasedDenseColumns, describeAliased } from "./design.js";
import { SeparationError, ConvergenceError, type Link, NotEstimableError } from "./glm.js";
import { cholesky, choleskySolve, invertSpd, unlessSingular } from "./linalg.js";
import { normalCdf, normalPdf, twoSidedNormalP } from "./tails.js";

/**
 * Cell totals and cluster cross-moments of one data set: as cells x cells matrices (row-major,
 * `cellMoments`), or only at a given support's entries (`supportMoments`, the blocked moments of
 * spec-curve-moments.ts, which never hold the matrices: most of their entries are zeros).
 */
export interface CellMoments {
  readonly nCells: number;
  readonly successes: Float64Array;
  readonly trials: Float64Array;
  readonly yy?: Float64Array;
  readonly yn?: Float64Array;
  readonly nn?: Float64Array;
  /**
   * Per cell, the cells it shares a non-zero moment with (ascending), built on first use by the
   * robust SE; whoever refills the moments in place clears it.
   */
  support?: CellSupport;
  /**
   * The moments at the support's entries, four per entry (YY[a,b], YN[a,b], YN[b,a], NN[a,b]) in
   * the support's order: read in sequence by the robust SE. Built on first use from the matrices
   * (cleared with `support`), or filled directly when there are none.
   */
  supportMoments?: Float64Array;
}

/** The moments' matrices: their own, or (support moments only) spread into new ones, zero off the support. */
export function momentMatrices(moments: CellMoments): { yy: Float64Array; yn: Float64Array; nn: Float64Array } {
  if (moments.yy && moments.yn && moments.nn) return { yy: moments.yy, yn: moments.yn, nn: moments.nn };
  const { nCells, support, supportMoments: values } = moments;
  if (!support || !values) throw new Error("cell moments hold neither matrices nor support moments");
  const size = nCells * nCells;
  const yy = new Float64Array(size);
  const yn = new Float64Array(size);
  const nn = new Float64Array(size);
  for (let a = 0; a < nCells; a++) {
    for (let s = support.start[a]; s < support.start[a + 1]; s++) {
      const b = support.cells[s];
      yy[a * nCells + b] = values[4 * s];
      yn[a * nCells + b] = values[4 * s + 1];
      nn[a * nCells + b] = values[4 * s + 3];
    }
  }
  return { yy, yn, nn };
}

/**
 * For each cell a, cells b including every one with a non-zero YY, YN, YN' or NN entry (more may
 * be listed): cells[start[a]] .. cells[start[a + 1] - 1], ascending.
 */
export interface CellSupport {
  start: Int32Array;
  cells: Int32Array;
}

/** The non-zero pattern of the moments (cells never seen in one cluster share only zeros). */
export function cellSupport(moments: CellMoments): CellSupport {
  if (moments.support) return moments.support;
  const { nCells } = moments;
  const { yy, yn, nn } = momentMatrices(moments);
  const start = new Int32Array(nCells + 1);
  let count = 0;
  for (let a = 0; a < nCells; a++) {
    const base = a * nCells;
    for (let b = 0; b < nCells; b++) {
      if (nn[base + b] !== 0 || yy[base + b] !== 0 || yn[base + b] !== 0 || yn[b * nCells + a] !== 0) count++;
    }
    start[a + 1] = count;
  }
  const cells = new Int32Array(count);
  let at = 0;
  for (let a = 0; a < nCells; a++) {
    const base = a * nCells;
    for (let b = 0; b < nCells; b++) {
      if (nn[base + b] !== 0 || yy[base + b] !== 0 || yn[base + b] !== 0 || yn[b * nCells + a] !== 0) cells[at++] = b;
    }
  }
  moments.support = { start, cells };
  return moments.support;
}

/** Cell moments that hold their matrices (`cellMoments`'s). */
type MatrixMoments = CellMoments & { readonly yy: Float64Array; readonly yn: Float64Array; readonly nn: Float64Array };

/** Moments' matrices for `nCells` cells: `reuse`'s when it has matrices of that size (their contents stale), else new. */
function cellMomentBuffers(nCells: number, reuse?: CellMoments): MatrixMoments {
  if (reuse?.nCells === nCells && reuse.yy && reuse.yn && reuse.nn) return reuse as MatrixMoments;
  const size = nCells * nCells;
  return {
    nCells,
    successes: new Float64Array(nCells),
    trials: new Float64Array(nCells),
    yy: new Float64Array(size),
    yn: new Float64Array(size),
    nn: new Float64Array(size),
  };
}

/**
 * Accumulates cell totals and cluster cross-moments. Rows come grouped by cluster: cluster g owns
 * rows clusterStart[g] .. clusterStart[g + 1] - 1 of `cell`, `y`, `n` (a row with n = 0 is not in
 * the data set). `reuse` (optional) refills an earlier result's matrices.
 */
export function cellMoments(
  nCells: number,
  clusterStart: Int32Array,
  cell: Int32Array,
  y: Float64Array,
  n: Float64Array,
  reuse?: CellMoments,
): CellMoments {
  const out = cellMomentBuffers(nCells, reuse);
  const { successes, trials, yy, yn, nn } = out;
  out.support = undefined;
  out.supportMoments = undefined;
  successes.fill(0);
  trials.fill(0);
  yy.fill(0);
  yn.fill(0);
  nn.fill(0);
  const ys = new Float64Array(nCells);
  const ns = new Float64Array(nCells);
  const touched = new Int32Array(nCells);
  const clusters = clusterStart.length - 1;
  for (let g = 0; g < clusters; g++) {
    let count = 0;
    for (let i = clusterStart[g]; i < clusterStart[g + 1]; i++) {
      const ni = n[i];
      if (ni === 0) continue;
      const c = cell[i];
      if (ns[c] === 0) touched[count++] = c;
      ys[c] += y[i];
      ns[c] += ni;
    }
    // YY and NN are symmetric: their upper triangles (in touched order) are accumulated here and
    // mirrored at the end; YN is not. Rows of cells with no successes add nothing to YY or YN.
    for (let a = 0; a < count; a++) {
      const ca = touched[a];
      const ya = ys[ca];
      const na = ns[ca];
      successes[ca] += ya;
      trials[ca] += na;
      const base = ca * nCells;
      for (let b = a; b < count; b++) {
        const cb = touched[b];
        const lo = ca < cb ? base + cb : cb * nCells + ca;
        nn[lo] += na * ns[cb];
      }
      if (ya === 0) continue;
      for (let b = a; b < count; b++) {
        const cb = touched[b];
        const yb = ys[cb];
        if (yb !== 0) yy[ca < cb ? base + cb : cb * nCells + ca] += ya * yb;
      }
      for (let b = 0; b < count; b++) {
        const cb = touched[b];
        yn[base + cb] += ya * ns[cb];
      }
    }
    for (let a = 0; a < count; a++) {
      ys[touched[a]] = 0;
      ns[touched[a]] = 0;
    }
  }
  for (let a = 0; a < nCells; a++) {
    for (let b = a + 1; b < nCells; b++) {
      yy[b * nCells + a] = yy[a * nCells + b];
      nn[b * nCells + a] = nn[a * nCells + b];
    }
  }
  return out;
}

export interface CellGlmInput {
  /** Dense design rows of the fitted cells (cells x k, row-major). */
  x: Float64Array;
  k: number;
  /** Index into the moments of each design row. */
  cells: Int32Array;
  moments: CellMoments;
  /** Rows and clusters of the data set (for the small-sample factor). */
  nObs: number;
  nClusters: number;
  /** The coefficient whose estimate and SE are reported. */
  coefficient: number;
  /** Names of the k columns (for the aliased ones; default 'column j'). */
  columnNames?: readonly string[];
  link?: Link;
  /** Firth's penalised likelihood (logit only). */
  firth?: boolean;
  maxIterations?: number;
  tolerance?: number;
  /** Starting coefficients (e.g. a neighbouring fit's); default zero. */
  start?: Float64Array;
  /**
   * The aliased columns, when a caller already has them for the same design rows and the same
   * cell trials (what `fitCellGlm` returned then): the pivoted QR that finds them is skipped.
   */
  aliasedColumns?: readonly AliasedColumn[];
}

export interface CellGlmResult {
  estimate: number;
  /** Cluster-robust SE (HC1-type cluster factor). */
  se: number;
  z: number;
  p: number;
  iterations: number;
  /** One per column; NaN for an aliased column (R's NA). */
  coefficients: Float64Array;
  /** Columns left out as linear combinations of earlier ones (empty at full rank). */
  aliased: AliasedColumn[];
}

interface CellPass {
  objective: number;
  info: Float64Array;
  score: Float64Array;
  mu: Float64Array;
  eta: Float64Array;
  weights: Float64Array;
}

/** The design's non-zero entries per row (designs of factors are mostly zeros). */
interface Sparse {
  start: Int32Array;
  col: Int32Array;
  value: Float64Array;
}

function sparseRows(x: Float64Array, m: number, k: number): Sparse {
  const start = new Int32Array(m + 1);
  let nnz = 0;
  for (let i = 0; i < m * k; i++) if (x[i] !== 0) nnz++;
  const col = new Int32Array(nnz);
  const value = new Float64Array(nnz);
  let a = 0;
  for (let r = 0; r < m; r++) {
    start[r] = a;
    for (let j = 0; j < k; j++) {
      const v = x[r * k + j];
      if (v === 0) continue;
      col[a] = j;
      value[a++] = v;
    }
  }
  start[m] = a;
  return { start, col, value };
}

function newPass(m: number, k: number): CellPass {
  return {
    objective: 0,
    info: new Float64Array(k * k),
    score: new Float64Array(k),
    mu: new Float64Array(m),
    eta: new Float64Array(m),
    weights: new Float64Array(m),
  };
}

function pass(input: CellGlmInput, sparse: Sparse, b: Float64Array, link: Link, out: CellPass): CellPass {
  const { k, cells, moments } = input;
  const m = cells.length;
  const { info, score, mu, eta, weights } = out;
  const { start, col, value } = sparse;
  info.fill(0);
  score.fill(0);
  let objective = 0;
  for (let r = 0; r < m; r++) {
    const from = start[r];
    const to = start[r + 1];
    let e = 0;
    for (let a = from; a < to; a++) e += value[a] * b[col[a]];
    const yc = moments.successes[cells[r]];
    const nc = moments.trials[cells[r]];
    let mean: number;
    let weight: number;
    let factor: number;
    if (link === "logit") {
      const ex = Math.exp(-Math.abs(e));
      mean = e >= 0 ? 1 / (1 + ex) : ex / (1 + ex);
      weight = nc * mean * (1 - mean);
      factor = yc - nc * mean;
      objective += yc * e - nc * (Math.max(e, 0) + Math.log1p(ex));
    } else {
      mean = normalCdf(e);
      const upper = normalCdf(-e);
      const phi = normalPdf(e);
      const variance = mean * upper;
      weight = variance > 0 ? (nc * phi * phi) / variance : 0;
      factor = variance > 0 ? ((yc - nc * mean) * phi) / variance : 0;
      objective += (yc > 0 ? yc * Math.log(mean) : 0) + (nc - yc > 0 ? (nc - yc) * Math.log(upper) : 0);
    }
    mu[r] = mean;
    eta[r] = e;
    weights[r] = weight;
    for (let a = from; a < to; a++) {
      const i = col[a];
      score[i] += factor * value[a];
      const wi = weight * value[a];
      for (let c = from; c < to; c++) info[i * k + col[c]] += wi * value[c];
    }
  }
  if (input.firth) {
    // Penalised objective and modified score (logit): + log det / 2, + sum_c h_c (1/2 - mu_c) x_c.
    const l = unlessSingular(() => cholesky(info, k));
    if (!l) {
      out.objective = Number.NEGATIVE_INFINITY;
      return out;
    }
    let logDet = 0;
    for (let j = 0; j < k; j++) logDet += 2 * Math.log(l[j * k + j]);
    objective += logDet / 2;
    const row = new Float64Array(k);
    for (let r = 0; r < m; r++) {
      row.fill(0);
      for (let a = start[r]; a < start[r + 1]; a++) row[col[a]] = value[a];
      const solved = choleskySolve(l, k, row);
      let q = 0;
      for (let a = start[r]; a < start[r + 1]; a++) q += value[a] * solved[col[a]];
      const adjust = weights[r] * q * (0.5 - mu[r]);
      for (let a = start[r]; a < start[r + 1]; a++) score[col[a]] += adjust * value[a];
    }
  }
  out.objective = objective;
  return out;
}

/** Indicator columns whose rows all share one outcome: the ML estimate diverges (as glm.ts checks). */
function checkSeparation(input: CellGlmInput): void {
  const { x, k, cells, moments } = input;
  const ones = new Float64Array(k);
  const total = new Float64Array(k);
  const negative = new Uint8Array(k);
  for (let r = 0; r < cells.length; r++) {
    const yc = moments.successes[cells[r]];
    const nc = moments.trials[cells[r]];
    for (let j = 0; j < k; j++) {
      const v = x[r * k + j];
      if (v === 0) continue;
      if (v < 0) negative[j] = 1;
      total[j] += nc;
      ones[j] += yc;
    }
  }
  for (let j = 0; j < k; j++) {
    if (negative[j] || total[j] === 0) continue;
    if (ones[j] === 0 || ones[j] === total[j]) {
      const name = input.columnNames?.[j] ?? `design column ${j}`;
      throw new SeparationError(
        `quasi-complete separation: all ${total[j]} rows with ${name} != 0 have outcome ${ones[j] === 0 ? 0 : 1}`,
        [name],
      );
    }
  }
}

/** Fits the cell-level GLM and returns one coefficient with its cluster-robust Wald test. */
export function fitCellGlm(input: CellGlmInput): CellGlmResult {
  const names = input.columnNames ?? Array.from({ length: input.k }, (_, j) => `column ${j}`);
  const aliased = input.aliasedColumns ? [...input.aliasedColumns] : aliasedCellColumns(input, names);
  if (aliased.length === 0) return { ...fitEstimable(input), aliased };
  const dropped = new Set(aliased.map((a) => names.indexOf(a.column)));
  if (dropped.has(input.coefficient)) {
    throw new NotEstimableError(`the contrast is aliased: ${describeAliased(aliased)}`);
  }
  const kept = names.flatMap((_, j) => (dropped.has(j) ? [] : [j]));
  const m = input.cells.length;
  const x = new Float64Array(m * kept.length);
  for (let r = 0; r < m; r++)
    kept.forEach((j, a) => {
      x[r * kept.length + a] = input.x[r * input.k + j];
    });
  const start = input.start?.length === input.k ? Float64Array.from(kept, (j) => input.start![j]) : undefined;
  const fit = fitEstimable({
    ...input,
    x,
    k: kept.length,
    coefficient: kept.indexOf(input.coefficient),
    start,
    columnNames: kept.map((j) => names[j]),
  });
  const coefficients = new Float64Array(input.k).fill(Number.NaN);
  kept.forEach((j, a) => {
    coefficients[j] = fit.coefficients[a];
  });
  return { ...fit, coefficients, aliased };
}

/** Aliased columns of the cell design: each cell's row counts sqrt(rows) times, as in X'X. */
function aliasedCellColumns(input: CellGlmInput, names: readonly string[]): AliasedColumn[] {
  const { k, cells, moments } = input;
  const m = cells.length;
  const x = new Float64Array(m * k);
  for (let r = 0; r < m; r++) {
    const scale = Math.sqrt(moments.trials[cells[r]]);
    for (let j = 0; j < k; j++) x[r * k + j] = scale * input.x[r * k + j];
  }
  return aliasedDenseColumns(x, m, k, names);
}

function fitEstimable(input: CellGlmInput): Omit<CellGlmResult, "aliased"> {
  const link = input.link ?? "logit";
  if (input.firth && link !== "logit") throw new Error("Firth's penalty is implemented for the logit link");
  const { k } = input;
  const m = input.cells.length;
  if (m === 0) throw new Error("no cells to fit");
  if (!input.firth) checkSeparation(input);
  const sparse = sparseRows(input.x, m, k);
  const maxIterations = input.maxIterations ?? 100;
  const tolerance = input.tolerance ?? 1e-10;
  let b = input.start && input.start.length === k ? Float64Array.from(input.start) : new Float64Array(k);
  let last = pass(input, sparse, b, link, newPass(m, k));
  if (!Number.isFinite(last.objective) && input.start) {
    b = new Float64Array(k);
    last = pass(input, sparse, b, link, last);
  }
  let spare = newPass(m, k);
  let iterations = 0;
  let converged = false;
  let candidate = new Float64Array(k);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    iterations = iteration;
    const delta = unlessSingular(() => choleskySolve(cholesky(last.info, k), k, last.score));
    // With the aliased columns dropped, a singular information means weights underflowed.
    if (!delta) throw new SeparationError("fitted probabilities reached 0 or 1 (separation)", []);
    let step = 1;
    for (let halvings = 0; halvings < 40; halvings++) {
      for (let j = 0; j < k; j++) candidate[j] = b[j] + step * delta[j];
      pass(input, sparse, candidate, link, spare);
      if (spare.objective >= last.objective - 1e-12 * Math.abs(last.objective)) break;
      step /= 2;
    }
    converged = true;
    for (let j = 0; j < k; j++) {
      if (Math.abs(candidate[j] - b[j]) > tolerance * (1 + Math.abs(candidate[j]))) converged = false;
    }
    [b, candidate] = [candidate, b];
    [last, spare] = [spare, last];
    if (converged) break;
  }
  if (!converged) throw new ConvergenceError(`IRLS did not converge in ${maxIterations} iterations`);
  const se = clusterSe(input, last, link);
  const estimate = b[input.coefficient];
  const z = estimate / se;
  return { estimate, se, z, p: twoSidedNormalP(z), iterations, coefficients: b };
}

function clusterSe(input: CellGlmInput, last: CellPass, link: Link): number {
  const { x, k, cells, moments, coefficient } = input;
  const bread = invertSpd(last.info, k);
  const m = cells.length;
  // v_r = s_r x_r' B e_j
  const v = new Float64Array(m);
  for (let r = 0; r < m; r++) {
    let dot = 0;
    for (let i = 0; i < k; i++) dot += x[r * k + i] * bread[i * k + coefficient];
    let s = 1;
    if (link === "probit") {
      const mu = last.mu[r];
      const variance = mu * (1 - mu);
      s = variance > 0 ? normalPdf(last.eta[r]) / variance : 0;
    }
    v[r] = s * dot;
  }
  const sparse = sparseMeat(cells, v, last.mu, moments);
  if (sparse !== null) return clusterFactor(input, sparse);
  const { nCells } = moments;
  const { yy, yn, nn } = momentMatrices(moments);
  let total = 0;
  for (let a = 0; a < m; a++) {
    if (v[a] === 0) continue;
    const ca = cells[a];
    const mua = last.mu[a];
    let row = 0;
    for (let c = 0; c < m; c++) {
      if (v[c] === 0) continue;
      const cb = cells[c];
      const mub = last.mu[c];
      const ab = ca * nCells + cb;
      row += v[c] * (yy[ab] - mub * yn[ab] - mua * yn[cb * nCells + ca] + mua * mub * nn[ab]);
    }
    total += v[a] * row;
  }
  return clusterFactor(input, total);
}

function clusterFactor(input: CellGlmInput, total: number): number {
  const g = input.nClusters;
  const n = input.nObs;
  const factor = (g / (g - 1)) * ((n - 1) / (n - input.k));
  return Math.sqrt(Math.max(total, 0) * factor);
}

/**
 * The meat's quadratic form over the moments' non-zero pattern only, in the dense loop's order:
 * a skipped pair's term is an exact zero, and adding a zero to a sum that starts at +0 leaves
 * its bits unchanged, so the total is the dense loop's to the last bit. Null (use the dense loop)
 * when the cells are not ascending or a weight or mean is not finite (a zero term could be NaN).
 */
function sparseMeat(cells: Int32Array, v: Float64Array, mu: Float64Array, moments: CellMoments): number | null {
  const m = cells.length;
  const { nCells } = moments;
  for (let r = 0; r < m; r++) {
    if (!Number.isFinite(v[r]) || !Number.isFinite(mu[r])) return null;
    if (r > 0 && cells[r] <= cells[r - 1]) return null;
  }
  const support = cellSupport(moments);
  const values = supportMoments(moments, support);
  const rowOf = new Int32Array(nCells).fill(-1);
  for (let r = 0; r < m; r++) rowOf[cells[r]] = r;
  let total = 0;
  for (let a = 0; a < m; a++) {
    if (v[a] === 0) continue;
    const ca = cells[a];
    const mua = mu[a];
    let row = 0;
    for (let s = support.start[ca]; s < support.start[ca + 1]; s++) {
      const cb = support.cells[s];
      const c = rowOf[cb];
      if (c < 0 || v[c] === 0) continue;
      const mub = mu[c];
      const at = 4 * s;
      row += v[c] * (values[at] - mub * values[at + 1] - mua * values[at + 2] + mua * mub * values[at + 3]);
    }
    total += v[a] * row;
  }
  return total;
}

/** Each moments object's buffer of support moments, refilled when the moments are. */
const supportBuffers = new WeakMap<CellMoments, Float64Array>();

function supportMoments(moments: CellMoments, support: CellSupport): Float64Array {
  if (moments.supportMoments) return moments.supportMoments;
  const { nCells } = moments;
  const { yy, yn, nn } = momentMatrices(moments);
  let out = supportBuffers.get(moments);
  if (out?.length !== 4 * support.cells.length) {
    out = new Float64Array(4 * support.cells.length);
    supportBuffers.set(moments, out);
  }
  for (let a = 0; a < nCells; a++) {
    for (let s = support.start[a]; s < support.start[a + 1]; s++) {
      const b = support.cells[s];
      out[4 * s] = yy[a * nCells + b];
      out[4 * s + 1] = yn[a * nCells + b];
      out[4 * s + 2] = yn[b * nCells + a];
      out[4 * s + 3] = nn[a * nCells + b];
    }
  }
  moments.supportMoments = out;
  return out;
}
