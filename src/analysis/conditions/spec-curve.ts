/**
 * Specification curve (ScaffoldSafety 6.5, App. D, Q.3.5) over the researcher degrees of freedom
 * a tidy table lets us vary: benchmark and model subsets (leave one out: every level, or the
 * levels the plan names: the paper's primary curve leaves out sycophancy and XSTest, Opus and
 * DeepSeek), ITT vs PP (the paper's "scoring method"), errored trials excluded or counted unsafe,
 * logit vs probit, adjusted or not, Firth's penalised logit, the stored scorer (judge / rubric
 * variants), and facets whose levels are alternative operationalisations. Each specification fits
 * the cluster-robust regression of the contrast; the curve is summarised by its median odds
 * ratio, IQR and share significant, and tested by permuting condition labels within each case.
 * The primary specification is also fitted as a GLMM with a case random intercept. Every App. D
 * path is listed with what the curve does with it (spec-curve-paths.ts).
 *
 * Speed: all covariates are categorical, so a specification's fit depends on the rows only
 * through per-cell totals and per-cluster cross-moments of the cells (src/stats/models/cell-glm.ts).
 * Those are accumulated in one pass over the rows per outcome coding (population x errored x
 * scorer) and permutation; every subset specification reads its cells from them. The estimates and
 * cluster-robust SEs equal those of the row-level fit (fitScopeGlm) to rounding.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { SpecCurveDimension } from "../../contracts/analysis/comparison.js";
import type {
  CurveSummary,
  Dimension,
  Specification,
  SpecificationCurve,
  SpecificationResult,
} from "../../stats/index.js";
import {
  type AliasedColumn,
  type CellMoments,
  cellMoments,
  enumerateSpecifications,
  fitCellGlm,
  glmmCoefficientTable,
  glmmRegression,
  RandomStream,
  runSpecificationCurve,
  summarizeCurve,
} from "../../stats/index.js";
import { glmFormula, termFacets } from "../core/contrast-model.js";
import { childMap, joinText } from "../core/pairing.js";
import { attempt, columnTable, distinctValues, type Population, scoredRows } from "../core/data.js";
import { blockCellMoments, type MomentBlocks, momentBlocks, wholeNumbers } from "./spec-curve-moments.js";
import { appendixDPaths, SCORING_METHOD_NOTE, type SpecCurvePath } from "./spec-curve-paths.js";
import { type AnalysisRow, scorerOf } from "../core/table.js";
import { workerModule, workerPool } from "../../stats/worker-pool.js";
import { availableParallelism } from "node:os";

export type { SpecCurvePath } from "./spec-curve-paths.js";

export interface SpecCurveResult {
  contrast: string;
  reference: string;
  dimensions: { name: string; options: string[] }[];
  specifications: {
    spec: Record<string, string>;
    oddsRatio: number;
    logOddsRatio: number;
    p: number;
    n: number;
    /** Design columns left out as linear combinations of earlier ones (R's NA), when any. */
    aliased?: string[];
  }[];
  failed: { spec: Record<string, string>; error: string }[];
  /** Combinations not run because the choices do not combine (e.g. Firth with the probit link). */
  excluded: { spec: Record<string, string>; reason: string }[];
  summary: {
    n: number;
    medianOddsRatio: number;
    iqrOddsRatio: [number, number];
    rangeOddsRatio: [number, number];
    shareSignificant: number;
    shareSignificantInDirection: number;
  };
  permutation: {
    count: number;
    pMedian: number;
    pShareSignificant: number;
    pShareSignificantInDirection: number;
  } | null;
  permutationNote: string | null;
  alpha: number;
  /** The primary specification as a GLMM with a case random intercept (App. D #7, Q.3.5). */
  glmm:
    | {
        spec: Record<string, string>;
        formula: string;
        oddsRatio: number;
        ci95: [number, number];
        p: number;
        n: number;
        randomInterceptVariance: number;
      }
    | { error: string }
    | { skipped: string };
  /** Every App. D path: varied here, available, or unsupported with the reason. */
  paths: SpecCurvePath[];
  notes: string[];
}

/** Probit coefficients are put on the log-odds scale by the logistic SD ratio pi/sqrt(3). */
const PROBIT_TO_LOGIT = Math.PI / Math.sqrt(3);

type CurvePlan = Exclude<AnalysisPlan["specification_curve"], false>;

// ---------------------------------------------------------------- the columnar engine

/**
 * The rows in cluster order, coded once: a row's cell is rest * L + level, where `rest` codes
 * (model, benchmark, other facets) and `level` the comparison level, so a permutation that moves
 * labels between rows only changes `level`.
 */
interface Engine {
  comparisonFacet: string;
  levels: string[];
  referenceLevel: number;
  contrastLevel: number;
  /** Per rest code: model, benchmark, other-facet level indices. */
  restModel: Int32Array;
  restBenchmark: Int32Array;
  restFacets: Int32Array[];
  nRest: number;
  models: string[];
  benchmarks: string[];
  otherFacets: string[];
  facetValues: string[][];
  /** Per row, in cluster order. */
  rows: AnalysisRow[];
  rest: Int32Array;
  trial: Int32Array;
  clusterStart: Int32Array;
  /** Per trial: its observed level; trials grouped by case for the permutation. */
  trialLevel: Int32Array;
  groupStart: Int32Array;
  groupMembers: Int32Array;
}

/** A facets record's part of the engine's codes (see buildEngine). */
interface RecordCodes {
  /** Its key facets' values (the other facets and the replicate columns), as an id. */
  tailId: number;
  /** Its level of the compared facet. */
  level: string;
  /** Model -> benchmark -> rest code. */
  rest: Map<string, Map<string, number>>;
}

/** One case's group code and its trial code per level. */
interface CaseTrials {
  code: number;
  trials: Map<string, number>;
}

/**
 * The engine's per-row arrays and the outcome codings live on shared memory: the permutation
 * workers' snapshots (permutationSnapshot) then share them instead of each holding a copy.
 */
function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(length * Int32Array.BYTES_PER_ELEMENT));
}

function sharedInt32Of(values: readonly number[]): Int32Array {
  const out = sharedInt32(values.length);
  out.set(values);
  return out;
}

function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT));
}

function buildEngine(input: readonly AnalysisRow[], { facet, reference, contrast, facets }: SpecCurveContrast): Engine {
  const rows = [...input].sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  // Rows share one facets record per condition: the facets' values are read from the records.
  const records = [...new Set(rows.map((r) => r.facets))];
  const levels = distinctValues(
    records.map((f) => f[facet]),
    [reference],
  );
  const levelIndex = new Map(levels.map((l, i) => [l, i]));
  const models = [...new Set(rows.map((r) => r.model))].sort();
  const benchmarks = [...new Set(rows.map((r) => r.benchmark))].sort();
  // Model terms leave out the replicate columns (decoding seeds); a trial's identity keeps them.
  const otherFacets = termFacets(facets, facet);
  const replicates = facets.filter((f) => f !== facet && !otherFacets.includes(f));
  const facetValues = otherFacets.map((f) => [...new Set(records.map((r) => r[f] ?? ""))].sort());
  const index = (list: string[]) => new Map(list.map((v, i) => [v, i]));
  const modelIndex = index(models);
  const benchmarkIndex = index(benchmarks);
  const facetIndex = facetValues.map(index);
  const restCodes = new Map<string, number>();
  const restModel: number[] = [];
  const restBenchmark: number[] = [];
  const restFacets: number[][] = otherFacets.map(() => []);
  const rest = sharedInt32(rows.length);
  const trial = sharedInt32(rows.length);
  const trialLevel: number[] = [];
  const groupOfTrial: number[] = [];
  const clusterStart: number[] = [];
  let previousCluster: string | undefined;
  const restCode = (r: AnalysisRow): number => {
    const m = modelIndex.get(r.model)!;
    const b = benchmarkIndex.get(r.benchmark)!;
    const f = otherFacets.map((name, j) => facetIndex[j].get(r.facets[name] ?? "")!);
    const restKey = [m, b, ...f].join(",");
    let code = restCodes.get(restKey);
    if (code === undefined) {
      code = restCodes.size;
      restCodes.set(restKey, code);
      restModel.push(m);
      restBenchmark.push(b);
      f.forEach((v, j) => {
        restFacets[j].push(v);
      });
    }
    return code;
  };
  // Per facets record: its rest code per (model, benchmark), its key facets' values (as one id)
  // and its level. A case (group) is (model, cluster, attempt, key facets' values), a trial a
  // case at a level: found through nested maps on the rows' shared names and records, codes
  // given in first-seen order.
  const ofRecord = new Map<Record<string, string>, RecordCodes>();
  const keyFacets = [...otherFacets, ...replicates];
  const tailIds = new Map<string, number>();
  const groups = new Map<string, Map<string, Map<string, Map<number, CaseTrials>>>>();
  let trialCount = 0;
  let caseCount = 0;
  rows.forEach((r, i) => {
    if (r.cluster !== previousCluster) {
      clusterStart.push(i);
      previousCluster = r.cluster;
    }
    let codes = ofRecord.get(r.facets);
    if (codes === undefined) {
      const tail = JSON.stringify(keyFacets.map((name) => joinText(r.facets[name])));
      let tailId = tailIds.get(tail);
      if (tailId === undefined) {
        tailId = tailIds.size;
        tailIds.set(tail, tailId);
      }
      codes = { tailId, level: r.facets[facet], rest: new Map() };
      ofRecord.set(r.facets, codes);
    }
    const ofModel = childMap(codes.rest, r.model);
    let code = ofModel.get(r.benchmark);
    if (code === undefined) {
      code = restCode(r);
      ofModel.set(r.benchmark, code);
    }
    rest[i] = code;
    // A trial is seen once per scorer: its label moves with it under every scorer.
    const ofCase = childMap(childMap(groups, r.model), r.cluster);
    const ofAttempt = childMap(ofCase, joinText(r.attempt));
    let group = ofAttempt.get(codes.tailId);
    if (group === undefined) {
      group = { code: caseCount++, trials: new Map() };
      ofAttempt.set(codes.tailId, group);
    }
    let t = group.trials.get(codes.level);
    if (t === undefined) {
      t = trialCount++;
      group.trials.set(codes.level, t);
      trialLevel.push(levelIndex.get(codes.level)!);
      groupOfTrial.push(group.code);
    }
    trial[i] = t;
  });
  clusterStart.push(rows.length);
  // Trials grouped by case (counting sort on the group code).
  const groupCount = caseCount;
  const groupStart = new Int32Array(groupCount + 1);
  for (const g of groupOfTrial) groupStart[g + 1]++;
  for (let g = 0; g < groupCount; g++) groupStart[g + 1] += groupStart[g];
  const fill = groupStart.slice(0, groupCount);
  const groupMembers = sharedInt32(groupOfTrial.length);
  groupOfTrial.forEach((g, t) => {
    groupMembers[fill[g]++] = t;
  });
  return {
    comparisonFacet: facet,
    levels,
    referenceLevel: levelIndex.get(reference) ?? -1,
    contrastLevel: levelIndex.get(contrast) ?? -1,
    restModel: Int32Array.from(restModel),
    restBenchmark: Int32Array.from(restBenchmark),
    restFacets: restFacets.map((v) => Int32Array.from(v)),
    nRest: restCodes.size,
    models,
    benchmarks,
    otherFacets,
    facetValues,
    rows,
    rest,
    trial,
    clusterStart: Int32Array.from(clusterStart),
    trialLevel: sharedInt32Of(trialLevel),
    groupStart,
    groupMembers,
  };
}

/** How outcomes are coded: which scorer, the population, and errored trials. */
interface Coding {
  key: string;
  y: Float64Array;
  n: Float64Array;
  /** Whole-number y and n: the moments are summed per block of clusters (spec-curve-moments.ts). */
  whole: boolean;
}

function codingOf(
  engine: Engine,
  scorer: string | null,
  population: Population,
  errored: "exclude" | "unsafe",
): Coding {
  if (engine.rows.length !== engine.rest.length)
    throw new Error("the curve's rows were let go before every coding was made");
  const size = engine.rows.length;
  const y = sharedFloat64(size);
  const n = sharedFloat64(size);
  for (let i = 0; i < size; i++) {
    const row = engine.rows[i];
    if (scorer !== null && scorerOf(row) !== scorer) continue;
    // As scoredRows codes them: errored left out (or unsafe), unscored left out, parse failures
    // unsafe (ITT) or left out (PP).
    if (row.errored) {
      if (errored === "unsafe") n[i] = 1;
      continue;
    }
    if (row.outcome === null) continue;
    if (row.parseFailed) {
      if (population === "itt") n[i] = 1;
      continue;
    }
    y[i] = row.outcome;
    n[i] = 1;
  }
  return { key: `${scorer}|${population}|${errored}`, y, n, whole: wholeNumbers(y, n) };
}

/** A specification resolved against the engine: its coding, kept rest codes and model choices. */
interface Resolved {
  coding: Coding;
  keepRest: Uint8Array;
  /** Other facets in the model (not fixed by a facet subset). */
  covariates: number[];
  adjust: boolean;
  link: "logit" | "probit";
  firth: boolean;
  nObs: number;
  nClusters: number;
  aliasing?: AliasingMemo;
  /** The last design fitted (reused while the cells with trials are the same). */
  design?: CellDesign;
}

/** What another thread fits permuted specifications from (CurveFits.permutationSnapshot). */
export interface PermutationSnapshot {
  engine: Omit<Engine, "rows">;
  defaultScorer: string | null;
  codings: Coding[];
  specs: {
    spec: Specification;
    /** Its coding's key. */
    coding: string;
    resolved: Omit<Resolved, "coding" | "aliasing" | "design">;
    /** Its observed fit's coefficients (where each permuted fit starts). */
    start: Float64Array | undefined;
  }[];
}

function keepsValue(choice: unknown, value: string): boolean {
  return choice === undefined || choice === "all" || choice !== `without ${value}`;
}

/** The design over the kept cells with rows, and the column of the contrast. */
function cellDesign(engine: Engine, spec: Resolved, moments: CellMoments): CellDesign {
  const L = engine.levels.length;
  const cells: number[] = [];
  for (let r = 0; r < engine.nRest; r++) {
    if (!spec.keepRest[r]) continue;
    for (let l = 0; l < L; l++) if (moments.trials[r * L + l] > 0) cells.push(r * L + l);
  }
  // The design depends on the rows only through which cells have trials: a labelling with the
  // same cells (every permutation that moves no cell to zero trials) has the same design.
  const last = spec.design;
  if (last && last.cells.length === cells.length && last.cells.every((c, i) => c === cells[i])) return last;
  spec.design = designOfCells(engine, spec, cells);
  return spec.design;
}

interface CellDesign {
  x: Float64Array;
  k: number;
  cells: Int32Array;
  coefficient: number;
  columnNames: string[];
}

function designOfCells(engine: Engine, spec: Resolved, cells: readonly number[]): CellDesign {
  const L = engine.levels.length;
  const present = (code: (cell: number) => number, size: number) => {
    const seen = new Uint8Array(size);
    for (const c of cells) seen[code(c)] = 1;
    return seen;
  };
  const levelSeen = present((c) => c % L, L);
  if (!levelSeen[engine.referenceLevel])
    throw new Error(`the reference '${engine.levels[engine.referenceLevel]}' has no rows`);
  if (engine.contrastLevel < 0 || !levelSeen[engine.contrastLevel])
    throw new Error(`no coefficient for the contrast '${engine.levels[engine.contrastLevel] ?? "?"}' (no rows)`);
  // Column blocks: [Intercept][levels except the reference][factor levels except the first present]...
  const blocks: { code: (cell: number) => number; column: Int32Array }[] = [];
  let k = 1;
  // patsy-style names, as the row-level GLM names its columns (for the aliased ones).
  const columnNames = ["Intercept"];
  const levelColumn = new Int32Array(L).fill(-1);
  let contrastColumn = -1;
  for (let l = 0; l < L; l++) {
    if (l === engine.referenceLevel || !levelSeen[l]) continue;
    if (l === engine.contrastLevel) contrastColumn = k;
    levelColumn[l] = k++;
    columnNames.push(`${engine.comparisonFacet}[T.${engine.levels[l]}]`);
  }
  blocks.push({ code: (c) => c % L, column: levelColumn });
  if (spec.adjust) {
    const factors: [(cell: number) => number, number, string, string[]][] = [
      [(c) => engine.restModel[Math.floor(c / L)], engine.models.length, "model", engine.models],
      [(c) => engine.restBenchmark[Math.floor(c / L)], engine.benchmarks.length, "benchmark", engine.benchmarks],
      ...spec.covariates.map((j): [(cell: number) => number, number, string, string[]] => [
        (c) => engine.restFacets[j][Math.floor(c / L)],
        engine.facetValues[j].length,
        engine.otherFacets[j],
        engine.facetValues[j],
      ]),
    ];
    for (const [code, size, name, values] of factors) {
      const seen = present(code, size);
      const column = new Int32Array(size).fill(-1);
      let first = true;
      for (let v = 0; v < size; v++) {
        if (!seen[v]) continue;
        if (first) {
          first = false;
          continue;
        }
        column[v] = k++;
        columnNames.push(`${name}[T.${values[v]}]`);
      }
      blocks.push({ code, column });
    }
  }
  const x = new Float64Array(cells.length * k);
  cells.forEach((c, r) => {
    x[r * k] = 1;
    for (const { code, column } of blocks) {
      const col = column[code(c)];
      if (col >= 0) x[r * k + col] = 1;
    }
  });
  return { x, k, cells: Int32Array.from(cells), coefficient: contrastColumn, columnNames };
}

/**
 * A specification's last design and cell trials with the aliased columns found for them: a
 * permutation that leaves both unchanged (labels moved between trials of equal counts) has the
 * same aliased columns, so their pivoted QR is not repeated.
 */
interface AliasingMemo {
  cells: Int32Array;
  x: Float64Array;
  trials: Float64Array;
  aliased: readonly AliasedColumn[];
}

function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

function fitResolved(
  engine: Engine,
  spec: Resolved,
  moments: CellMoments,
  start?: Float64Array,
): SpecificationResult & { coefficients: Float64Array; aliased: string[] } {
  const design = cellDesign(engine, spec, moments);
  const trials = Float64Array.from(design.cells, (c) => moments.trials[c]);
  const memo = spec.aliasing;
  const known =
    memo && sameBits(memo.cells, design.cells) && sameBits(memo.trials, trials) && sameBits(memo.x, design.x)
      ? memo.aliased
      : undefined;
  const fit = fitCellGlm({
    ...design,
    moments,
    nObs: spec.nObs,
    nClusters: spec.nClusters,
    link: spec.link,
    firth: spec.firth,
    start,
    aliasedColumns: known,
  });
  if (!known) spec.aliasing = { cells: design.cells, x: design.x, trials, aliased: fit.aliased };
  const scale = spec.link === "probit" ? PROBIT_TO_LOGIT : 1;
  return {
    estimate: fit.estimate * scale,
    p: fit.p,
    coefficients: fit.coefficients,
    aliased: fit.aliased.map((a) => a.column),
  };
}

/** Rows and clusters a specification keeps (the same under every permutation of labels). */
function sizeOf(engine: Engine, coding: Coding, keepRest: Uint8Array): { nObs: number; nClusters: number } {
  let nObs = 0;
  let nClusters = 0;
  const { clusterStart, rest } = engine;
  for (let g = 0; g + 1 < clusterStart.length; g++) {
    let any = false;
    for (let i = clusterStart[g]; i < clusterStart[g + 1]; i++) {
      if (coding.n[i] === 0 || !keepRest[rest[i]]) continue;
      nObs += coding.n[i];
      any = true;
    }
    if (any) nClusters++;
  }
  return { nObs, nClusters };
}

// ---------------------------------------------------------------- dimensions

interface CurveSetup {
  dimensions: Dimension[];
  scorers: string[];
  notes: string[];
}

function dimensionsFor(engine: Engine, plan: CurvePlan, scorers: string[], facetNames: readonly string[]): CurveSetup {
  const notes: string[] = [];
  const leaveOneOut = (name: string, values: string[], chosen: readonly string[] | undefined) => {
    if (chosen === undefined) return ["all", ...(values.length > 2 ? values.map((v) => `without ${v}`) : [])];
    const missing = chosen.filter((v) => !values.includes(v));
    if (missing.length) notes.push(`${name}: ${missing.join(", ")} not in the data, so not left out`);
    return ["all", ...chosen.filter((v) => values.includes(v)).map((v) => `without ${v}`)];
  };
  const options: Record<SpecCurveDimension, string[]> = {
    benchmark_subset: leaveOneOut("benchmark_subset", engine.benchmarks, plan.leave_out.benchmark),
    model_subset: leaveOneOut("model_subset", engine.models, plan.leave_out.model),
    population: ["itt", "pp"],
    errored: ["exclude", "unsafe"],
    link: ["logit", "probit"],
    adjustment: ["adjusted", "unadjusted"],
    firth: ["no", "yes"],
    scorer: scorers,
  };
  const dimensions: Dimension[] = [];
  for (const name of plan.dimensions) {
    if (name === "scorer" && scorers.length < 2) {
      notes.push(
        `scorer: the table holds one scorer's outcomes (${scorers.join(", ")}), so the dimension is not varied`,
      );
      continue;
    }
    dimensions.push({ name, options: options[name] });
  }
  for (const f of plan.facet_subsets) {
    if (!facetNames.includes(f)) {
      notes.push(`facet_subsets: '${f}' is not a facet of the table (or is the compared facet)`);
      continue;
    }
    const j = engine.otherFacets.indexOf(f);
    dimensions.push({ name: `facet:${f}`, options: ["all", ...(j >= 0 ? engine.facetValues[j] : [])] });
  }
  return { dimensions, scorers, notes };
}

function incoherent(spec: Specification): string | null {
  if (spec.firth === "yes" && spec.link === "probit") return "Firth's penalty is fitted with the logit link only";
  return null;
}

// ---------------------------------------------------------------- the fits

/**
 * The fits of one curve and what they share, each computed once: the outcome coding per
 * (scorer, population, errored), each specification's resolved cells, the cell moments of the
 * current labelling (the observed one, or a permutation's) per coding, and each observed fit.
 */
class CurveFits {
  readonly failed: SpecCurveResult["failed"] = [];
  readonly aliased = new Map<string, string[]>();
  readonly resolved = new Map<string, Resolved>();
  /** Permuted fits that could not be estimated (each counted as no effect). */
  nullFailures = 0;
  private readonly observed = new Map<string, SpecificationResult | null>();
  /** Each permuted fit starts from its specification's observed coefficients (fewer iterations). */
  private readonly starts = new Map<string, Float64Array>();
  private readonly codings = new Map<string, Coding>();
  private readonly nCells: number;
  /** Each row's cell under the current labelling: for codings whose moments are not blocked (made on first use). */
  private cellOfRow: Int32Array | undefined;
  private cellsCurrent = false;
  private readonly blocks: MomentBlocks;
  private levels: Int32Array;
  /** Moments of the current labelling per coding; their buffers are reused across permutations. */
  private momentsOf = new Map<string, CellMoments>();
  private readonly buffers = new Map<string, CellMoments>();
  private readonly permutedLevels: Int32Array;
  private shuffle: CaseShuffle | undefined;
  /** The permutation the current labelling comes from (null: the observed one). */
  private permutation: unknown = null;

  constructor(
    private readonly engine: Engine,
    private readonly defaultScorer: string | null,
  ) {
    this.nCells = engine.nRest * engine.levels.length;
    this.permutedLevels = new Int32Array(engine.trialLevel.length);
    this.blocks = momentBlocks(engine.rest, engine.clusterStart, engine.nRest, engine.levels.length);
    this.levels = engine.trialLevel;
    this.relabel(engine.trialLevel);
  }

  /** A specification's observed fit, recorded for the permutations (a failure recorded too). */
  analyze(spec: Specification): SpecificationResult {
    const r = this.resolve(spec);
    const result = attempt(() => fitResolved(this.engine, r, this.moments(r.coding)));
    const key = keyOf(spec);
    if ("error" in result) {
      this.failed.push({ spec: stringSpec(spec), error: result.error });
      this.observed.set(key, null);
      return { estimate: Number.NaN, p: Number.NaN };
    }
    const { coefficients, aliased, ...value } = result.value;
    this.observed.set(key, value);
    this.starts.set(key, coefficients);
    if (aliased.length) this.aliased.set(key, aliased);
    return value;
  }

  /**
   * Lets the rows go: they are read only to code the outcomes, and once the observed curve has
   * resolved every specification, each coding it needs exists.
   */
  releaseRows(): void {
    this.engine.rows = [];
  }

  /** The observed fit `analyze` recorded. */
  observedResult(spec: Specification): SpecificationResult {
    return this.observed.get(keyOf(spec)) ?? { estimate: Number.NaN, p: Number.NaN };
  }

  /** A specification's fit under permutation `permute` (labels shuffled within cases by its seed). */
  analyzePermuted(spec: Specification, permute: unknown, permutationSeed: number): SpecificationResult {
    if (this.permutation !== permute) {
      this.permutation = permute;
      this.permuteLabels(permutationSeed);
    }
    return this.permutedFit(spec);
  }

  /** The null curve of the permutation with this seed, in the order of `specs`. */
  nullCurve(specs: readonly Specification[], seed: number): SpecificationResult[] {
    // The labelling is this seed's: a later analyzePermuted call relabels for its own.
    this.permutation = seed;
    this.permuteLabels(seed);
    return specs.map((spec) => this.permutedFit(spec));
  }

  /**
   * What another thread needs to fit these specifications under permutations: the engine without
   * its rows, the outcome codings, each specification resolved and its observed coefficients.
   */
  permutationSnapshot(specs: readonly Specification[]): PermutationSnapshot {
    const { rows: _rows, ...engine } = this.engine;
    return {
      engine,
      defaultScorer: this.defaultScorer,
      codings: [...this.codings.values()],
      specs: specs.map((spec) => {
        const { coding, aliasing: _aliasing, design: _design, ...resolved } = this.resolve(spec);
        return { spec, coding: coding.key, resolved, start: this.starts.get(keyOf(spec)) };
      }),
    };
  }

  /** The fits a snapshot describes, on another thread (its rows are not needed: the codings come with it). */
  static fromSnapshot(snapshot: PermutationSnapshot): CurveFits {
    const fits = new CurveFits({ ...snapshot.engine, rows: [] }, snapshot.defaultScorer);
    for (const coding of snapshot.codings) fits.codings.set(coding.key, coding);
    for (const { spec, coding, resolved, start } of snapshot.specs) {
      fits.resolved.set(keyOf(spec), { ...resolved, coding: fits.codings.get(coding)! });
      if (start) fits.starts.set(keyOf(spec), start);
    }
    return fits;
  }

  /** Shuffles the labels within cases by a permutation's seed. */
  private permuteLabels(permutationSeed: number): void {
    this.shuffle ??= caseShuffle(this.engine);
    permuteWithinCases(this.engine, this.shuffle, RandomStream.fromSeed(permutationSeed), this.permutedLevels);
    this.relabel(this.permutedLevels);
  }

  /** A specification's fit under the current permutation. */
  private permutedFit(spec: Specification): SpecificationResult {
    const r = this.resolve(spec);
    const start = this.starts.get(keyOf(spec));
    const result = attempt(() => fitResolved(this.engine, r, this.moments(r.coding), start));
    if ("value" in result) return { estimate: result.value.estimate, p: result.value.p };
    // A null specification that cannot be fitted counts as no effect, not significant.
    this.nullFailures++;
    return { estimate: 0, p: 1 };
  }

  /** A new labelling of the trials: the moments of the old one are dropped. */
  private relabel(levels: Int32Array): void {
    this.levels = levels;
    this.cellsCurrent = false;
    this.momentsOf = new Map();
  }

  private moments(c: Coding): CellMoments {
    let m = this.momentsOf.get(c.key);
    if (!m) {
      const { engine } = this;
      const reuse = this.buffers.get(c.key);
      if (c.whole) {
        m = blockCellMoments(this.blocks, engine.clusterStart, engine.trial, this.levels, c.y, c.n, reuse);
      } else {
        this.cellOfRow ??= new Int32Array(engine.rest.length);
        const { cellOfRow } = this;
        if (!this.cellsCurrent) {
          const L = engine.levels.length;
          for (let i = 0; i < cellOfRow.length; i++) cellOfRow[i] = engine.rest[i] * L + this.levels[engine.trial[i]];
          this.cellsCurrent = true;
        }
        m = cellMoments(this.nCells, engine.clusterStart, cellOfRow, c.y, c.n, reuse);
      }
      this.buffers.set(c.key, m);
      this.momentsOf.set(c.key, m);
    }
    return m;
  }

  private coding(scorer: string | null, population: Population, errored: "exclude" | "unsafe"): Coding {
    const key = `${scorer}|${population}|${errored}`;
    let c = this.codings.get(key);
    if (!c) {
      c = codingOf(this.engine, scorer, population, errored);
      this.codings.set(key, c);
    }
    return c;
  }

  /** A specification's coding, the rest codes it keeps and its model settings. */
  private resolve(spec: Specification): Resolved {
    const key = keyOf(spec);
    const known = this.resolved.get(key);
    if (known) return known;
    const { engine } = this;
    const c = this.coding(
      spec.scorer !== undefined ? String(spec.scorer) : this.defaultScorer,
      ((spec.population as Population | undefined) ?? "itt") as Population,
      spec.errored === "unsafe" ? "unsafe" : "exclude",
    );
    const fixed = engine.otherFacets.map((f) => spec[`facet:${f}`]);
    const keepRest = keptRest(engine, spec, fixed);
    const covariates = engine.otherFacets.map((_, j) => j).filter((j) => fixed[j] === undefined || fixed[j] === "all");
    const resolved: Resolved = {
      coding: c,
      keepRest,
      covariates,
      adjust: spec.adjustment !== "unadjusted",
      link: spec.link === "probit" ? "probit" : "logit",
      firth: spec.firth === "yes",
      ...sizeOf(engine, c, keepRest),
    };
    this.resolved.set(key, resolved);
    return resolved;
  }
}

/** Which rest codes (model, benchmark, other facets) a specification's subsets keep: 1 kept. */
function keptRest(engine: Engine, spec: Specification, fixed: readonly unknown[]): Uint8Array {
  const keepRest = new Uint8Array(engine.nRest);
  for (let r = 0; r < engine.nRest; r++) {
    if (!keepsValue(spec.model_subset, engine.models[engine.restModel[r]])) continue;
    if (!keepsValue(spec.benchmark_subset, engine.benchmarks[engine.restBenchmark[r]])) continue;
    if (
      fixed.some(
        (choice, j) =>
          choice !== undefined && choice !== "all" && engine.facetValues[j][engine.restFacets[j][r]] !== choice,
      )
    )
      continue;
    keepRest[r] = 1;
  }
  return keepRest;
}

// ---------------------------------------------------------------- the curve

/** The contrast a curve follows: the compared facet, its reference and contrasted levels, the table's facets. */
export interface SpecCurveContrast {
  facet: string;
  reference: string;
  contrast: string;
  facets: readonly string[];
}

/** What `specificationCurve` is computed on. */
export interface SpecCurveInput extends SpecCurveContrast {
  rows: readonly AnalysisRow[];
  plan: AnalysisPlan;
  /** Rows of every stored scorer of the same trials (the `scorer` dimension); default: `rows`. */
  scorerRows?: readonly AnalysisRow[];
  /** Threads for the permutation test, the calling one included (default: the available parallelism). */
  threads?: number;
  /** Called with each null curve's summary, in permutation order (the result keeps only the p values). */
  onNullSummaries?: (summaries: readonly CurveSummary[]) => void;
  /**
   * Called once worker threads are fitting the permutations: this thread joins them when the event
   * loop next turns, so the caller may go on with other work meanwhile.
   */
  onPermutationsStarted?: () => void;
}

export async function specificationCurve(input: SpecCurveInput): Promise<SpecCurveResult | null> {
  const { rows, plan } = input;
  const curvePlan = plan.specification_curve;
  if (curvePlan === false) return null;
  const universe = curvePlan.dimensions.includes("scorer") && input.scorerRows ? input.scorerRows : rows;
  const scorers = [...new Set(universe.map(scorerOf))];
  const engine = buildEngine(universe, input);
  const setup = dimensionsFor(engine, curvePlan, scorers, engine.otherFacets);
  const { dimensions } = setup;
  const fits = new CurveFits(engine, scorers.length > 1 ? scorerOf(rows[0] ?? ({} as AnalysisRow)) : null);
  const alpha = plan.multiplicity.alpha;
  const excluded = excludedSpecifications(dimensions);
  // A worker fits at least one permutation of its own, so there are fewer workers than permutations.
  const threads = Math.max(1, Math.min(input.threads ?? availableParallelism(), curvePlan.permutations));
  // The workers load their modules while this thread fits the observed curve.
  permutationWorkers.start(threads - 1);
  const { curve, permutationNote } = await runCurve(
    fits,
    dimensions,
    { ...curvePlan, threads, onStarted: input.onPermutationsStarted },
    alpha,
  );
  if (curve.permutation) input.onNullSummaries?.(curve.permutation.nullSummaries);
  const ok = curve.specifications.filter((s) => Number.isFinite(s.result.estimate));
  const glmm = curvePlan.glmm ? primaryGlmm(input, curvePlan.glmm_max_rows) : { skipped: "not in the plan" };
  return {
    contrast: input.contrast,
    reference: input.reference,
    dimensions: dimensions.map((d) => ({ name: d.name, options: d.options.map(String) })),
    specifications: ok.map(({ spec, result }) => ({
      spec: stringSpec(spec),
      oddsRatio: Math.exp(result.estimate),
      logOddsRatio: result.estimate,
      p: result.p,
      n: fits.resolved.get(keyOf(spec))?.nObs ?? 0,
      ...(fits.aliased.has(keyOf(spec)) ? { aliased: fits.aliased.get(keyOf(spec)) } : {}),
    })),
    failed: fits.failed,
    excluded,
    summary: curveSummary(
      ok.map((o) => o.result),
      alpha,
    ),
    permutation: curve.permutation
      ? {
          count: curve.permutation.count,
          pMedian: curve.permutation.pMedian,
          pShareSignificant: curve.permutation.pShareSignificant,
          pShareSignificantInDirection: curve.permutation.pShareSignificantInDirection,
        }
      : null,
    permutationNote,
    alpha,
    glmm,
    paths: curvePaths(engine, dimensions, scorers, glmm),
    notes: [...(dimensions.some((d) => d.name === "population") ? [SCORING_METHOD_NOTE] : []), ...setup.notes],
  };
}

/** The combinations left out because their choices do not combine, with the reason. */
function excludedSpecifications(dimensions: readonly Dimension[]): SpecCurveResult["excluded"] {
  const excluded: SpecCurveResult["excluded"] = [];
  for (const spec of enumerateSpecifications(dimensions)) {
    const why = incoherent(spec);
    if (why) excluded.push({ spec: stringSpec(spec), reason: why });
  }
  return excluded;
}

/**
 * The observed curve, then (when the plan asks for permutations and every specification was
 * estimable) the curve again with its permutation test over the observed fits.
 */
async function runCurve(
  fits: CurveFits,
  dimensions: readonly Dimension[],
  curvePlan: CurvePlan & { threads: number; onStarted?: () => void },
  alpha: number,
): Promise<{ curve: SpecificationCurve<SpecificationResult>; permutationNote: string | null }> {
  const include = (spec: Specification) => incoherent(spec) === null;
  const curve = await runSpecificationCurve({ dimensions, alpha, analyze: (spec) => fits.analyze(spec), include });
  fits.releaseRows();
  if (curvePlan.permutations === 0) return { curve, permutationNote: null };
  if (fits.failed.length > 0) {
    return { curve, permutationNote: "permutation test not run: some specifications are not estimable" };
  }
  const permuted = await runSpecificationCurve({
    dimensions,
    alpha,
    include,
    analyze: (spec) => fits.observedResult(spec),
    permutation: {
      count: curvePlan.permutations,
      seed: curvePlan.seed,
      ...(curvePlan.threads > 1
        ? {
            nullCurves: (specs, seeds) =>
              nullCurvesOnThreads(fits, specs, seeds, { threads: curvePlan.threads, onStarted: curvePlan.onStarted }),
          }
        : {
            analyzePermuted: (spec, permute, permutationSeed) => fits.analyzePermuted(spec, permute, permutationSeed),
          }),
    },
  });
  const note =
    fits.nullFailures > 0 ? `${fits.nullFailures} permuted fit(s) not estimable, counted as no effect` : null;
  return { curve: permuted, permutationNote: note };
}

// ---------------------------------------------------------------- the permutations on threads

/** The worker threads of the permutation test (spec-curve-worker.ts). */
const permutationWorkers = workerPool(workerModule("spec-curve-worker", import.meta.url));

/** Terminates the permutation test's worker threads (tests and benchmarks that want a clean exit). */
export async function closeSpecCurveWorkers(): Promise<void> {
  await permutationWorkers.close();
}

/**
 * The permutations every thread fits, shared: each thread claims the next permutation from `next`
 * until `claimable` is reached and writes its fits at their place, so the work balances itself
 * across threads and the null curves do not depend on which thread fitted which permutation.
 * The permutations from `claimable` on are the workers', one each, fitted first.
 */
interface SharedNullCurves {
  seeds: readonly number[];
  claimable: number;
  /** [0]: the next permutation to claim (on shared memory). */
  next: Int32Array;
  /** Permutation k's fit of specification s at k * specs + s (on shared memory). */
  estimates: Float64Array;
  p: Float64Array;
}

/** A worker's part of the permutation test: the fits' snapshot and the shared permutations. */
export interface NullCurvesRequest {
  snapshot: PermutationSnapshot;
  shared: SharedNullCurves;
  /** The permutation this worker fits first (its own, not claimable). */
  own: number;
}

/** What a worker reports besides the fits it wrote: its permuted fits that could not be estimated. */
export interface NullCurvesReply {
  nullFailures: number;
}

/**
 * Fits this thread's own permutation (a worker's), then the permutations it claims until none is
 * left, each written at its place.
 */
function fitClaimed(
  fits: CurveFits,
  specs: readonly Specification[],
  shared: SharedNullCurves,
  own: number | null,
): void {
  const { seeds, claimable, next, estimates, p } = shared;
  const fit = (k: number) =>
    fits.nullCurve(specs, seeds[k]).forEach((result, s) => {
      estimates[k * specs.length + s] = result.estimate;
      p[k * specs.length + s] = result.p;
    });
  if (own !== null) fit(own);
  for (let k = Atomics.add(next, 0, 1); k < claimable; k = Atomics.add(next, 0, 1)) fit(k);
}

/** The worker's side: fits its claimed permutations and reports its failures. */
export function nullCurvesReply({ snapshot, shared, own }: NullCurvesRequest): NullCurvesReply {
  const fits = CurveFits.fromSnapshot(snapshot);
  fitClaimed(
    fits,
    snapshot.specs.map((s) => s.spec),
    shared,
    own,
  );
  return { nullFailures: fits.nullFailures };
}

/**
 * The null curves over this thread and `threads - 1` workers (fewer than the permutations), which
 * claim permutations from one shared counter; each worker also fits one of the last permutations
 * of its own, so every worker takes part however fast this thread is. Permutation k is fitted
 * from its own seed whichever thread fits it, and the curves are read back in permutation order,
 * so the null distribution equals the one-thread one.
 */
async function nullCurvesOnThreads(
  fits: CurveFits,
  specs: readonly Specification[],
  seeds: readonly number[],
  { threads, onStarted }: { threads: number; onStarted?: () => void },
): Promise<SpecificationResult[][]> {
  const fitCount = seeds.length * specs.length;
  const workers = threads - 1;
  const shared: SharedNullCurves = {
    seeds,
    claimable: seeds.length - workers,
    next: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
    estimates: new Float64Array(new SharedArrayBuffer(fitCount * Float64Array.BYTES_PER_ELEMENT)),
    p: new Float64Array(new SharedArrayBuffer(fitCount * Float64Array.BYTES_PER_ELEMENT)),
  };
  const snapshot = fits.permutationSnapshot(specs);
  const remote = Array.from({ length: workers }, (_, t) =>
    permutationWorkers.request<NullCurvesReply>(t, {
      snapshot,
      shared,
      own: shared.claimable + t,
    } satisfies NullCurvesRequest),
  );
  // A worker that fails while this thread is busy elsewhere is reported below, not as an unhandled rejection.
  for (const reply of remote) reply.catch(() => undefined);
  try {
    onStarted?.();
    // The workers are at it: this thread joins them once the caller's other work lets the event loop turn.
    await new Promise<void>((resolve) => setImmediate(resolve));
    fitClaimed(fits, specs, shared, null);
  } finally {
    // The workers finish the permutations they claimed (a failure here leaves no answer unhandled).
    await Promise.allSettled(remote);
  }
  for (const reply of await Promise.all(remote)) fits.nullFailures += reply.nullFailures;
  return seeds.map((_, k) =>
    specs.map((_, s) => ({ estimate: shared.estimates[k * specs.length + s], p: shared.p[k * specs.length + s] })),
  );
}

/** The curve's summary on the odds-ratio scale. */
function curveSummary(results: readonly SpecificationResult[], alpha: number): SpecCurveResult["summary"] {
  const s = summarizeCurve(results, alpha);
  return {
    n: results.length,
    medianOddsRatio: Math.exp(s.median),
    iqrOddsRatio: [Math.exp(s.q1), Math.exp(s.q3)],
    rangeOddsRatio: [Math.exp(s.min), Math.exp(s.max)],
    shareSignificant: s.shareSignificant,
    shareSignificantInDirection: s.shareSignificantInDirection,
  };
}

/** Every App. D path, with what this curve did with it. */
function curvePaths(
  engine: Engine,
  dimensions: readonly Dimension[],
  scorers: string[],
  glmm: SpecCurveResult["glmm"],
): SpecCurvePath[] {
  return appendixDPaths({
    varied: [...dimensions.map((d) => d.name), ...("skipped" in glmm || "error" in glmm ? [] : ["glmm"])],
    scorers,
    benchmarks: engine.benchmarks,
    facetLevels: Object.fromEntries(engine.otherFacets.map((f, j) => [f, engine.facetValues[j].length])),
    comparisonFacet: engine.comparisonFacet,
    glmm: "skipped" in glmm ? glmm.skipped : "error" in glmm ? glmm.error : true,
  });
}

/** The draws of one within-case shuffle: their ranges (fixed by the group sizes) and a buffer. */
interface CaseShuffle {
  /** Per draw, in the order the shuffle takes them: group by group, a = size - 1 down to 1, range a + 1. */
  ranges: Int32Array;
  draws: Int32Array;
}

function caseShuffle(engine: Engine): CaseShuffle {
  const { groupStart } = engine;
  let count = 0;
  for (let g = 0; g + 1 < groupStart.length; g++) count += Math.max(groupStart[g + 1] - groupStart[g] - 1, 0);
  const ranges = new Int32Array(count);
  let d = 0;
  for (let g = 0; g + 1 < groupStart.length; g++) {
    for (let a = groupStart[g + 1] - groupStart[g] - 1; a > 0; a--) ranges[d++] = a + 1;
  }
  return { ranges, draws: new Int32Array(count) };
}

/**
 * Shuffles the condition labels within each case (same model, item, attempt, other facets):
 * a Fisher-Yates shuffle of each group's labels, drawn from permutation k's own stream. The
 * draws are taken in one fill (the same values as one integer() per swap).
 */
function permuteWithinCases(engine: Engine, shuffle: CaseShuffle, random: RandomStream, out: Int32Array): void {
  const { groupStart, groupMembers, trialLevel } = engine;
  // Every trial is in one group: the labels start as observed and are swapped within groups.
  out.set(trialLevel);
  random.fillIntegersIn(shuffle.draws, shuffle.ranges);
  const { draws } = shuffle;
  let d = 0;
  for (let g = 0; g + 1 < groupStart.length; g++) {
    const from = groupStart[g];
    for (let a = groupStart[g + 1] - from - 1; a > 0; a--) {
      const ta = groupMembers[from + a];
      const tb = groupMembers[from + draws[d++]];
      const swap = out[ta];
      out[ta] = out[tb];
      out[tb] = swap;
    }
  }
}

/** The primary specification (every benchmark and model, the plan's population) as a GLMM. */
function primaryGlmm(input: SpecCurveInput, maxRows: number): SpecCurveResult["glmm"] {
  const { rows, facet, reference, contrast, facets, plan } = input;
  const scored = scoredRows(rows, plan.population);
  if (scored.length > maxRows) {
    return {
      skipped: `the primary specification has ${scored.length.toLocaleString("en-US")} rows, above specification_curve.glmm_max_rows (${maxRows.toLocaleString("en-US")})`,
    };
  }
  const setup = { comparisonFacet: facet, reference, covariateFacets: termFacets(facets, facet) };
  const { formula, facets: columns } = glmFormula(scored, setup);
  const full = `${formula} + (1 | cluster)`;
  const fitted = attempt(() =>
    glmmRegression(columnTable(scored, columns), full, { factors: { [facet]: { reference } } }),
  );
  if ("error" in fitted) return { error: fitted.error };
  const row = glmmCoefficientTable(fitted.value).find((r) => r.name === `${facet}[T.${contrast}]`);
  if (!row) return { error: `no coefficient for ${facet}=${contrast}` };
  return {
    spec: { benchmark_subset: "all", model_subset: "all", population: plan.population },
    formula: full,
    oddsRatio: Math.exp(row.estimate),
    ci95: [Math.exp(row.ciLower), Math.exp(row.ciUpper)],
    p: row.p,
    n: scored.length,
    randomInterceptVariance: fitted.value.randomInterceptVariance,
  };
}

const specKeys = new WeakMap<Specification, string>();

/** A specification's identity (the runner hands the same objects to every permutation). */
function keyOf(spec: Specification): string {
  let key = specKeys.get(spec);
  if (key === undefined) {
    key = JSON.stringify(spec);
    specKeys.set(spec, key);
  }
  return key;
}

function stringSpec(spec: Specification): Record<string, string> {
  return Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, String(v)]));
}
