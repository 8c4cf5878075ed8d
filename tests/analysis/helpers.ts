/**
 * Simulated studies with planted effects, generated directly as analysis rows (no model, no
 * store): each case has a random baseline (a case-level random effect), each model a shift,
 * and each condition a TRUE risk difference on the probability scale, optionally different by
 * benchmark (a planted condition x benchmark interaction). Seeded, so every test is exact.
 */
import { type AnalysisRow, type AnalysisTable, clusterKey } from "../../src/analysis/index.js";
import { seededRandom } from "../../src/stats/index.js";

export interface PlantedDesign {
  seed: number;
  models: Record<string, number>;
  benchmarks: string[];
  itemsPerBenchmark: number;
  /** Condition -> true RD vs the first condition, per benchmark (or one number for all). */
  effects: Record<string, number | Record<string, number>>;
  /** Baseline safe probability of a case: uniform on this range. */
  baseline?: [number, number];
  /** Extra facet crossed with everything (e.g. format), with its own shift per level (or per level and benchmark). */
  extraFacet?: { name: string; levels: Record<string, number | Record<string, number>> };
  parseFailureRate?: number;
  facet?: string;
}

export function plantedTable(design: PlantedDesign): AnalysisTable {
  const random = seededRandom(design.seed);
  const facet = design.facet ?? "scaffold";
  const [lo, hi] = design.baseline ?? [0.35, 0.8];
  const extra = design.extraFacet ?? { name: "", levels: { "": 0 } };
  const rows: AnalysisRow[] = [];
  for (const benchmark of design.benchmarks) {
    for (let i = 1; i <= design.itemsPerBenchmark; i++) {
      const item = `${benchmark}-${String(i).padStart(4, "0")}`;
      const base = lo + (hi - lo) * random.uniform();
      for (const [model, shift] of Object.entries(design.models)) {
        for (const [condition, effect] of Object.entries(design.effects)) {
          const rd = typeof effect === "number" ? effect : effect[benchmark];
          for (const [level, levelShift] of Object.entries(extra.levels)) {
            const extraShift = typeof levelShift === "number" ? levelShift : (levelShift[benchmark] ?? 0);
            const p = Math.min(1, Math.max(0, base + shift + rd + extraShift));
            const failed = random.uniform() < (design.parseFailureRate ?? 0);
            const outcome = failed ? 0 : random.uniform() < p ? 1 : 0;
            rows.push({
              trialId: null,
              model,
              benchmark,
              item,
              cluster: clusterKey(benchmark, item),
              attempt: 1,
              facets: extra.name ? { [facet]: condition, [extra.name]: level } : { [facet]: condition },
              outcome,
              parseFailed: failed,
              errored: false,
              simulated: true,
            });
          }
        }
      }
    }
  }
  const facets = extra.name ? [facet, extra.name] : [facet];
  return {
    rows,
    facets,
    facetLevels: Object.fromEntries(
      facets.map((f) => [f, f === facet ? Object.keys(design.effects) : Object.keys(extra.levels)]),
    ),
    source: {
      kind: "table",
      path: "(planted)",
      runId: null,
      study: "planted",
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}
