/**
 * The configuration bootstrap of the grid (SafetyRepro App. G and I): for each metric family
 * (SDI, CFR_theta per threshold, tau_R, rho) one max-statistic bootstrap over its slices, where
 * every benchmark draws its configurations once per resample and all of that benchmark's slices
 * are recomputed on that draw. Each slice's own range (App. G) is read from the same resamples
 * as the family's maximum (App. I computes the maximum "within each bootstrap").
 */
import type { GridPlan } from "../../contracts/analysis/grid.js";
import {
  type BootstrapSlice,
  type ConfigurationStatistic,
  cfrStatistic,
  type Interval,
  maxStatisticBootstrap,
  sdiStatistic,
  summariseConfigurationReplicates,
  tauRStatistic,
  varianceRatioStatistic,
} from "../../stats/index.js";
import { type BenchmarkGrid, type CfrReasons, cfrApplies } from "./envelope.js";
import { attributionTable, gridInteractions, implementationAxes, SCORING_AXIS } from "./robustness.js";
import { levelMatches, selectBenchmarkGrid } from "./envelope.js";

export interface SliceRange {
  benchmark: string;
  /** Absent for per-benchmark metrics (tau_R, rho). */
  model?: string;
  point: number | null;
  mean: number | null;
  range: Interval | null;
  undefinedReplicates: number;
}

export interface FamilyBootstrap {
  /** "SDI", "CFR_0.5", ..., "tau_R", "rho". */
  metric: string;
  resamples: number;
  seed: number;
  level: number;
  slices: SliceRange[];
  /** App. I: the maximum over slices and its resampling range. */
  max: { point: number | null; slice: string; mean: number | null; range: Interval | null };
}

interface LabelledSlice extends BootstrapSlice {
  benchmark: string;
  model?: string;
}

/** Every family's bootstrap over the benchmarks' envelopes. */
export function gridBootstrap(
  grids: readonly BenchmarkGrid[],
  plan: GridPlan,
  axes: readonly string[],
  reasons: CfrReasons = {},
): FamilyBootstrap[] {
  if (plan.resamples === 0) return [];
  const usable = grids.filter((g) => g.configurations.length > 0);
  const perModel = (
    statistic: (g: BenchmarkGrid, m: number) => ConfigurationStatistic,
    only = (_: BenchmarkGrid) => true,
  ) =>
    usable.filter(only).flatMap((g) =>
      g.models.map(
        (model, m): LabelledSlice => ({
          group: g.benchmark,
          configurations: g.configurations.length,
          benchmark: g.benchmark,
          model,
          statistic: statistic(g, m),
        }),
      ),
    );
  const column = (g: BenchmarkGrid, m: number) => g.scores.map((row) => row[m]);
  const families: [string, LabelledSlice[]][] = [
    ["SDI", perModel((g, m) => sdiStatistic(column(g, m)))],
    ...plan.thresholds.map((theta): [string, LabelledSlice[]] => [
      `CFR_${theta}`,
      perModel(
        (g, m) => cfrStatistic(column(g, m), theta),
        (g) => cfrApplies(plan, g.benchmark, reasons) && g.configurations.length >= 2,
      ),
    ]),
    [
      "tau_R",
      usable
        .filter((g) => g.models.length >= 2 && g.configurations.length >= 2)
        .map((g) => ({
          group: g.benchmark,
          configurations: g.configurations.length,
          benchmark: g.benchmark,
          statistic: tauRStatistic(g),
        })),
    ],
    ["rho", rhoSlices(usable, axes)],
  ];
  return families
    .filter(([, slices]) => slices.length > 0)
    .map(([metric, slices]) => familyBootstrap(metric, slices, plan));
}

/** rho per benchmark on its free-form slice (a drawn configuration brings every model's cell). */
function rhoSlices(grids: readonly BenchmarkGrid[], axes: readonly string[]): LabelledSlice[] {
  return grids.flatMap((g) => {
    const freeForm = g.levels
      .map((l, c) => (l[SCORING_AXIS] === undefined || levelMatches(l[SCORING_AXIS], ["free_form"]) ? c : -1))
      .filter((c) => c >= 0);
    const slice = selectBenchmarkGrid(g, freeForm);
    const implementation = implementationAxes(slice, axes);
    if (freeForm.length < 2 || implementation.length === 0 || g.models.length < 2) return [];
    const { table, configuration } = attributionTable(slice, implementation);
    const { configurations, statistic } = varianceRatioStatistic(
      { table, configuration },
      { implementation, interactions: gridInteractions(implementation) },
    );
    return [
      {
        group: `${g.benchmark}\u0000free_form`,
        configurations: configurations.length,
        benchmark: g.benchmark,
        statistic,
      },
    ];
  });
}

function familyBootstrap(metric: string, slices: readonly LabelledSlice[], plan: GridPlan): FamilyBootstrap {
  // Each slice's values in call order: the observed point first, then one per resample.
  const recorded = slices.map(() => [] as number[]);
  const recording = slices.map((s, k) => ({
    ...s,
    statistic: (drawn: Int32Array) => {
      const value = s.statistic(drawn);
      recorded[k].push(value === null || !Number.isFinite(value) ? Number.NaN : value);
      return value;
    },
  }));
  const options = { resamples: plan.resamples, seed: plan.seed, level: plan.level };
  const max = maxStatisticBootstrap(recording, options);
  const ranges = slices.map((s, k): SliceRange => {
    const [point, ...replicates] = recorded[k];
    const summary = summariseConfigurationReplicates(
      Number.isNaN(point) ? null : point,
      Float64Array.from(replicates),
      options,
    );
    return {
      benchmark: s.benchmark,
      ...(s.model !== undefined ? { model: s.model } : {}),
      point: summary.point,
      mean: summary.mean,
      range: summary.range,
      undefinedReplicates: summary.undefinedReplicates,
    };
  });
  const top = slices[max.argMax];
  return {
    metric,
    resamples: plan.resamples,
    seed: plan.seed,
    level: plan.level,
    slices: ranges,
    max: {
      point: max.point,
      slice: top.model ? `${top.model} / ${top.benchmark}` : top.benchmark,
      mean: max.mean,
      range: max.range,
    },
  };
}
