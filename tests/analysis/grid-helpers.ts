/**
 * Simulated configuration grids (SafetyRepro §3) built directly as analysis rows, with planted
 * effects: every cell's success probability is a sum of a benchmark base, a model shift and
 * per-axis shifts (optionally different per model: a planted rank flip), and each item answers
 * correctly exactly when its fixed position (i + 0.5) / N lies below that probability. So a
 * cell's score is known from the design alone (`plantedScore`), and the tests compute their
 * expected values from the same inputs instead of from a fixture.
 */
import { type AnalysisRow, type AnalysisTable, clusterKey } from "../../src/analysis/index.js";

export interface PlantedBenchmark {
  base: number;
  template?: Record<string, number>;
  decoding?: Record<string, number>;
  fewShot?: Record<string, number>;
  /** Shift of the logprob scoring path. */
  logprob?: number;
  /** Per model, extra shift per template (a planted rank flip). */
  modelTemplate?: Record<string, Record<string, number>>;
  /** CrowS-Pairs-like: only the logprob path (so only greedy). */
  logprobOnly?: boolean;
}

export interface GridDesign {
  models: Record<string, number>;
  benchmarks: Record<string, PlantedBenchmark>;
  items: number;
  templates: string[];
  decodings: string[];
  fewShots: string[];
  /** Seeds per stochastic decoding, and each seed's shift (they average out by design or not). */
  seedShifts: number[];
  /** Parse-failure share per (model, benchmark, template) cell: the first k items fail to parse. */
  parseFailures?: (model: string, benchmark: string, levels: Record<string, string>) => number;
}

export const GREEDY = "greedy";

export function plantedProbability(
  design: GridDesign,
  model: string,
  benchmark: string,
  levels: Record<string, string>,
): number {
  const b = design.benchmarks[benchmark];
  return (
    b.base +
    design.models[model] +
    (b.template?.[levels.template] ?? 0) +
    (b.decoding?.[levels.decoding] ?? 0) +
    (b.fewShot?.[levels.few_shot] ?? 0) +
    (levels.scoring_path === "logprob" ? (b.logprob ?? 0) : 0) +
    (b.modelTemplate?.[model]?.[levels.template] ?? 0)
  );
}

/** Items answering correctly at probability p: those with (i + 0.5) / N < p. */
export function plantedHits(p: number, items: number): boolean[] {
  return Array.from({ length: items }, (_, i) => (i + 0.5) / items < p);
}

/** The configurations of a benchmark under the paper's validity constraints. */
export function plantedConfigurations(design: GridDesign, benchmark: string): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  const onlyLogprob = design.benchmarks[benchmark].logprobOnly;
  for (const template of design.templates)
    for (const decoding of design.decodings)
      for (const few_shot of design.fewShots)
        for (const scoring_path of ["free_form", "logprob"]) {
          if (scoring_path === "logprob" && decoding !== GREEDY) continue;
          if (onlyLogprob && scoring_path === "free_form") continue;
          out.push({ template, decoding, few_shot, scoring_path });
        }
  return out;
}

function seedsOf(design: GridDesign, decoding: string): { label: string; shift: number }[] {
  return decoding === GREEDY
    ? [{ label: "-", shift: 0 }]
    : design.seedShifts.map((shift, k) => ({ label: String(k + 1), shift }));
}

/**
 * The expected cell score from the design: per item the mean over seeds, then the mean over
 * items (ITT: a parse failure counts 0).
 */
export function plantedScore(
  design: GridDesign,
  model: string,
  benchmark: string,
  levels: Record<string, string>,
): number {
  const p = plantedProbability(design, model, benchmark, levels);
  const failed = Math.round((design.parseFailures?.(model, benchmark, levels) ?? 0) * design.items);
  const seeds = seedsOf(design, levels.decoding);
  let total = 0;
  for (let i = 0; i < design.items; i++) {
    let item = 0;
    for (const s of seeds) item += i < failed ? 0 : plantedHits(p + s.shift, design.items)[i] ? 1 : 0;
    total += item / seeds.length;
  }
  return total / design.items;
}

export function plantedGridTable(design: GridDesign): AnalysisTable {
  const rows: AnalysisRow[] = [];
  for (const benchmark of Object.keys(design.benchmarks)) {
    for (const levels of plantedConfigurations(design, benchmark)) {
      for (const model of Object.keys(design.models)) {
        const p = plantedProbability(design, model, benchmark, levels);
        const failed = Math.round((design.parseFailures?.(model, benchmark, levels) ?? 0) * design.items);
        for (const seed of seedsOf(design, levels.decoding)) {
          const hits = plantedHits(p + seed.shift, design.items);
          hits.forEach((hit, i) => {
            const item = `${benchmark}-${String(i + 1).padStart(4, "0")}`;
            rows.push({
              trialId: null,
              model,
              benchmark,
              item,
              cluster: clusterKey(benchmark, item),
              attempt: 1,
              facets: { ...levels, decoding_seed: seed.label },
              outcome: i < failed ? 0 : hit ? 1 : 0,
              parseFailed: i < failed,
              errored: false,
              simulated: true,
              modelRevision: `sha256:${model.padEnd(8, "0")}`,
            });
          });
        }
      }
    }
  }
  const facets = ["template", "decoding", "few_shot", "scoring_path", "decoding_seed"];
  return {
    rows,
    facets,
    facetLevels: {
      template: design.templates,
      decoding: design.decodings,
      few_shot: design.fewShots,
      scoring_path: ["free_form", "logprob"],
      decoding_seed: ["-", ...design.seedShifts.map((_, k) => String(k + 1))],
    },
    source: {
      kind: "table",
      path: "planted-grid",
      runId: null,
      study: "planted grid",
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

/** The paper's design, scaled by `items`: T1-T4 x 3 decodings x 0/3/5 shots x 2 paths. */
export function paperDesign(
  items: number,
  benchmarks: Record<string, PlantedBenchmark>,
  models: Record<string, number>,
): GridDesign {
  return {
    models,
    benchmarks,
    items,
    templates: ["T1", "T2", "T3", "T4"],
    decodings: [GREEDY, "moderate", "diverse"],
    fewShots: ["0", "3", "5"],
    seedShifts: [-0.04, 0, 0.04],
  };
}
