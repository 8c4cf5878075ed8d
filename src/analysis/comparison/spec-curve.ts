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
import type { Dimension, Specification, SpecificationResult } from "../../stats/index.js";
import {
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
import { glmFormula, termFacets } from "../contrast-model.js";
import { attempt, columnTable, distinctValues, type Population, scoredRows } from "../data.js";
import { appendixDPaths, SCORING_METHOD_NOTE, type SpecCurvePath } from "./spec-curve-paths.js";
import { type AnalysisRow, scorerOf } from "../table.js";

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

export interface SpecCurveOptions {
  /** Rows of every stored scorer of the same trials (the `scorer` dimension); default: `rows`. */
  scorerRows?: readonly AnalysisRow[];
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

function buildEngine(
  input: readonly AnalysisRow[],
  facet: string,
  reference: string,
  contrast: string,
  facets: readonly string[],
): Engine {
  const rows = [...input].sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  const levels = distinctValues(
    rows.map((r) => r.facets[facet]),
    [reference],
  );
  const levelIndex = new Map(levels.map((l, i) => [l, i]));
  const models = [...new Set(rows.map((r) => r.model))].sort();
  const benchmarks = [...new Set(rows.map((r) => r.benchmark))].sort();
  // Model terms leave out the replicate columns (decoding seeds); a trial's identity keeps them.
  const otherFacets = termFacets(facets, facet);
  const replicates = facets.filter((f) => f !== facet && !otherFacets.includes(f));
  const facetValues = otherFacets.map((f) => [...new Set(rows.map((r) => r.facets[f] ?? ""))].sort());
  const index = (list: string[]) => new Map(list.map((v, i) => [v, i]));
  const modelIndex = index(models);
  const benchmarkIndex = index(benchmarks);
  const facetIndex = facetValues.map(index);
  const restCodes = new Map<string, number>();
  const restModel: number[] = [];
  const restBenchmark: number[] = [];
  const restFacets: number[][] = otherFacets.map(() => []);
  const rest = new Int32Array(rows.length);
  const trial = new Int32Array(rows.length);
  const trialCodes = new Map<string, number>();
  const trialLevel: number[] = [];
  const groupOfTrial: number[] = [];
  const groupCodes = new Map<string, number>();
  const clusterStart: number[] = [];
  let previousCluster: string | undefined;
  rows.forEach((r, i) => {
    if (r.cluster !== previousCluster) {
      clusterStart.push(i);
      previousCluster = r.cluster;
    }
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
    rest[i] = code;
    // A trial is seen once per scorer: its label moves with it under every scorer.
    const groupKey = [
      r.model,
      r.cluster,
      r.attempt,
      ...[...otherFacets, ...replicates].map((name) => r.facets[name]),
    ].join("\u0000");
    const trialKey = `${groupKey}\u0000${r.facets[facet]}`;
    let t = trialCodes.get(trialKey);
    if (t === undefined) {
      t = trialCodes.size;
      trialCodes.set(trialKey, t);
      trialLevel.push(levelIndex.get(r.facets[facet])!);
      let g = groupCodes.get(groupKey);
      if (g === undefined) {
        g = groupCodes.size;
        groupCodes.set(groupKey, g);
      }
      groupOfTrial.push(g);
    }
    trial[i] = t;
  });
  clusterStart.push(rows.length);
  // Trials grouped by case (counting sort on the group code).
  const groupCount = groupCodes.size;
  const groupStart = new Int32Array(groupCount + 1);
  for (const g of groupOfTrial) groupStart[g + 1]++;
  for (let g = 0; g < groupCount; g++) groupStart[g + 1] += groupStart[g];
  const fill = groupStart.slice(0, groupCount);
  const groupMembers = new Int32Array(groupOfTrial.length);
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
    trialLevel: Int32Array.from(trialLevel),
    groupStart,
    groupMembers,
  };
}

/** How outcomes are coded: which scorer, the population, and errored trials. */
interface Coding {
  key: string;
  y: Float64Array;
  n: Float64Array;
}

function codingOf(
  engine: Engine,
  scorer: string | null,
  population: Population,
  errored: "exclude" | "unsafe",
): Coding {
  const size = engine.rows.length;
  const y = new Float64Array(size);
  const n = new Float64Array(size);
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
  return { key: `${scorer}|${population}|${errored}`, y, n };
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
}

function keepsValue(choice: unknown, value: string): boolean {
  return choice === undefined || choice === "all" || choice !== `without ${value}`;
}

/** The design over the kept cells with rows, and the column of the contrast. */
function cellDesign(engine: Engine, spec: Resolved, moments: CellMoments) {
  const L = engine.levels.length;
  const cells: number[] = [];
  for (let r = 0; r < engine.nRest; r++) {
    if (!spec.keepRest[r]) continue;
    for (let l = 0; l < L; l++) if (moments.trials[r * L + l] > 0) cells.push(r * L + l);
  }
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

function fitResolved(
  engine: Engine,
  spec: Resolved,
  moments: CellMoments,
  start?: Float64Array,
): SpecificationResult & { coefficients: Float64Array; aliased: string[] } {
  const design = cellDesign(engine, spec, moments);
  const fit = fitCellGlm({
    ...design,
    moments,
    nObs: spec.nObs,
    nClusters: spec.nClusters,
    link: spec.link,
    firth: spec.firth,
    start,
  });
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

// ---------------------------------------------------------------- the curve

export async function specificationCurve(
  rows: readonly AnalysisRow[],
  facet: string,
  reference: string,
  contrast: string,
  facets: readonly string[],
  plan: AnalysisPlan,
  options: SpecCurveOptions = {},
): Promise<SpecCurveResult | null> {
  const curvePlan = plan.specification_curve;
  if (curvePlan === false) return null;
  const wantsScorer = curvePlan.dimensions.includes("scorer");
  const universe = wantsScorer && options.scorerRows ? options.scorerRows : rows;
  const scorers = [...new Set(universe.map(scorerOf))];
  const engine = buildEngine(universe, facet, reference, contrast, facets);
  const setup = dimensionsFor(engine, curvePlan, scorers, engine.otherFacets);
  const { dimensions } = setup;
  const defaultScorer = scorers.length > 1 ? scorerOf(rows[0] ?? ({} as AnalysisRow)) : null;
  const codings = new Map<string, Coding>();
  const coding = (scorer: string | null, population: Population, errored: "exclude" | "unsafe") => {
    const key = `${scorer}|${population}|${errored}`;
    let c = codings.get(key);
    if (!c) {
      c = codingOf(engine, scorer, population, errored);
      codings.set(key, c);
    }
    return c;
  };
  const resolvedBySpec = new Map<string, Resolved>();
  const resolve = (spec: Specification): Resolved => {
    const key = keyOf(spec);
    const known = resolvedBySpec.get(key);
    if (known) return known;
    const scorer = spec.scorer !== undefined ? String(spec.scorer) : defaultScorer;
    const c = coding(
      scorer,
      ((spec.population as Population | undefined) ?? "itt") as Population,
      spec.errored === "unsafe" ? "unsafe" : "exclude",
    );
    const keepRest = new Uint8Array(engine.nRest);
    const fixed = engine.otherFacets.map((f) => spec[`facet:${f}`]);
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
    resolvedBySpec.set(key, resolved);
    return resolved;
  };

  // Moments per coding under one labelling (the observed one, or a permutation's).
  const L = engine.levels.length;
  const nCells = engine.nRest * L;
  const cellOfRow = new Int32Array(engine.rows.length);
  const label = (levels: Int32Array) => {
    for (let i = 0; i < cellOfRow.length; i++) cellOfRow[i] = engine.rest[i] * L + levels[engine.trial[i]];
  };
  // Moments of the current labelling per coding; their buffers are reused across permutations.
  let momentsOf = new Map<string, CellMoments>();
  const buffers = new Map<string, CellMoments>();
  const moments = (c: Coding) => {
    let m = momentsOf.get(c.key);
    if (!m) {
      m = cellMoments(nCells, engine.clusterStart, cellOfRow, c.y, c.n, buffers.get(c.key));
      buffers.set(c.key, m);
      momentsOf.set(c.key, m);
    }
    return m;
  };

  const failed: SpecCurveResult["failed"] = [];
  const aliasedBySpec = new Map<string, string[]>();
  const excluded: SpecCurveResult["excluded"] = [];
  const alpha = plan.multiplicity.alpha;
  label(engine.trialLevel);
  const observed = new Map<string, SpecificationResult | null>();
  // Each permuted fit starts from its specification's observed coefficients (fewer iterations).
  const starts = new Map<string, Float64Array>();
  const include = (spec: Specification) => incoherent(spec) === null;
  const analyze = (spec: Specification): SpecificationResult => {
    const r = resolve(spec);
    const result = attempt(() => fitResolved(engine, r, moments(r.coding)));
    if ("error" in result) {
      failed.push({ spec: stringSpec(spec), error: result.error });
      observed.set(keyOf(spec), null);
      return { estimate: Number.NaN, p: Number.NaN };
    }
    const { coefficients, aliased, ...value } = result.value;
    observed.set(keyOf(spec), value);
    starts.set(keyOf(spec), coefficients);
    if (aliased.length) aliasedBySpec.set(keyOf(spec), aliased);
    return value;
  };
  for (const spec of enumerateSpecifications(dimensions)) {
    const why = incoherent(spec);
    if (why) excluded.push({ spec: stringSpec(spec), reason: why });
  }
  let curve = await runSpecificationCurve({ dimensions, alpha, analyze, include });
  let permutationNote: string | null = null;
  if (curvePlan.permutations > 0 && failed.length === 0) {
    let nullFailures = 0;
    const permutedLevels = new Int32Array(engine.trialLevel.length);
    let current: unknown = null;
    curve = await runSpecificationCurve({
      dimensions,
      alpha,
      include,
      analyze: (spec) => observed.get(keyOf(spec)) ?? { estimate: Number.NaN, p: Number.NaN },
      permutation: {
        count: curvePlan.permutations,
        seed: curvePlan.seed,
        analyzePermuted: (spec, permute, permutationSeed) => {
          if (current !== permute) {
            current = permute;
            permuteWithinCases(engine, RandomStream.fromSeed(permutationSeed), permutedLevels);
            label(permutedLevels);
            momentsOf = new Map();
          }
          const r = resolve(spec);
          const start = starts.get(keyOf(spec));
          const result = attempt(() => fitResolved(engine, r, moments(r.coding), start));
          if ("value" in result) return { estimate: result.value.estimate, p: result.value.p };
          // A null specification that cannot be fitted counts as no effect, not significant.
          nullFailures++;
          return { estimate: 0, p: 1 };
        },
      },
    });
    if (nullFailures > 0) permutationNote = `${nullFailures} permuted fit(s) not estimable, counted as no effect`;
  } else if (curvePlan.permutations > 0) {
    permutationNote = "permutation test not run: some specifications are not estimable";
  }
  const ok = curve.specifications.filter((s) => Number.isFinite(s.result.estimate));
  const s = summarizeCurve(
    ok.map((o) => o.result),
    alpha,
  );
  const glmm = curvePlan.glmm
    ? primaryGlmm(rows, facet, reference, contrast, facets, plan, curvePlan.glmm_max_rows)
    : { skipped: "not in the plan" };
  const paths = appendixDPaths({
    varied: [...dimensions.map((d) => d.name), ...("skipped" in glmm || "error" in glmm ? [] : ["glmm"])],
    scorers,
    benchmarks: engine.benchmarks,
    facetLevels: Object.fromEntries(engine.otherFacets.map((f, j) => [f, engine.facetValues[j].length])),
    comparisonFacet: facet,
    glmm: "skipped" in glmm ? glmm.skipped : "error" in glmm ? glmm.error : true,
  });
  return {
    contrast,
    reference,
    dimensions: dimensions.map((d) => ({ name: d.name, options: d.options.map(String) })),
    specifications: ok.map(({ spec, result }) => ({
      spec: stringSpec(spec),
      oddsRatio: Math.exp(result.estimate),
      logOddsRatio: result.estimate,
      p: result.p,
      n: resolvedBySpec.get(keyOf(spec))?.nObs ?? 0,
      ...(aliasedBySpec.has(keyOf(spec)) ? { aliased: aliasedBySpec.get(keyOf(spec)) } : {}),
    })),
    failed,
    excluded,
    summary: {
      n: ok.length,
      medianOddsRatio: Math.exp(s.median),
      iqrOddsRatio: [Math.exp(s.q1), Math.exp(s.q3)],
      rangeOddsRatio: [Math.exp(s.min), Math.exp(s.max)],
      shareSignificant: s.shareSignificant,
      shareSignificantInDirection: s.shareSignificantInDirection,
    },
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
    paths,
    notes: [...(dimensions.some((d) => d.name === "population") ? [SCORING_METHOD_NOTE] : []), ...setup.notes],
  };
}

/**
 * Shuffles the condition labels within each case (same model, item, attempt, other facets):
 * a Fisher-Yates shuffle of each group's labels, drawn from permutation k's own stream.
 */
function permuteWithinCases(engine: Engine, random: RandomStream, out: Int32Array): void {
  const { groupStart, groupMembers, trialLevel } = engine;
  for (let g = 0; g + 1 < groupStart.length; g++) {
    const from = groupStart[g];
    const size = groupStart[g + 1] - from;
    for (let a = 0; a < size; a++) out[groupMembers[from + a]] = trialLevel[groupMembers[from + a]];
    for (let a = size - 1; a > 0; a--) {
      const b = random.integer(a + 1);
      const ta = groupMembers[from + a];
      const tb = groupMembers[from + b];
      const swap = out[ta];
      out[ta] = out[tb];
      out[tb] = swap;
    }
  }
}

/** The primary specification (every benchmark and model, the plan's population) as a GLMM. */
function primaryGlmm(
  rows: readonly AnalysisRow[],
  facet: string,
  reference: string,
  contrast: string,
  facets: readonly string[],
  plan: AnalysisPlan,
  maxRows: number,
): SpecCurveResult["glmm"] {
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
