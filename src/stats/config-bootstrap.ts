// Configuration bootstrap (SafetyRepro App. G): resample the configurations of a slice with
// replacement, recompute the metric, and report point / mean / percentile range. These are
// within-grid sensitivity ranges, not confidence intervals for a population of harnesses (§4).
// The max-statistic variant (App. I) takes, in each resample, the maximum over many slices.
import { complianceFlipRate, scoreDispersion } from "./config-dispersion.js";
import type { Interval } from "./descriptive.js";
import { mean, quantileSorted, standardDeviation } from "./descriptive.js";
import { columnValues, EstimabilityError, type Table } from "./models/design.js";
import { NotPositiveDefiniteError } from "./models/linalg.js";
import { RandomStream } from "./random.js";
import { kendallTauBCoefficient } from "./rank-correlation.js";
import type { ModelScoreGrid } from "./score-grid.js";
import { preparedVarianceRatio, type VarianceAttributionOptions, varianceAttribution } from "./variance-attribution.js";

/** A statistic of the configurations drawn (indices into the slice's configurations); null or NaN = undefined. */
export type ConfigurationStatistic = (drawn: Int32Array) => number | null;

export interface ConfigurationBootstrapOptions {
  /** Resamples (default 1,000, as in App. G). */
  resamples?: number;
  /** Seed of the resampling streams (default 1). */
  seed?: number;
  /** Percentile range level (default 0.95: the 2.5 / 97.5 percentiles). */
  level?: number;
}

export interface ConfigurationBootstrapResult {
  /** The statistic on the configurations as observed (null where undefined). */
  point: number | null;
  /** Mean of the defined replicates (App. G's "mean" column). */
  mean: number | null;
  standardError: number | null;
  /** Type-7 percentile range of the defined replicates (App. G's lo / hi). */
  range: Interval | null;
  /** Replicates where the statistic was undefined, left out of mean, SE and range. */
  undefinedReplicates: number;
  replicates: Float64Array;
  resamples: number;
  seed: number;
  level: number;
}

/** Resamples per random stream: resample b always uses stream floor(b / 1000) of the seed. */
const BLOCK_SIZE = 1000;

/**
 * Nonparametric bootstrap over the `configurations` of one slice: each resample draws that many
 * configuration indices with replacement (one seeded stream per block of 1,000 resamples, the
 * convention of the case-cluster bootstrap) and evaluates `statistic` on them.
 */
export function configurationBootstrap(
  configurations: number,
  statistic: ConfigurationStatistic,
  options: ConfigurationBootstrapOptions = {},
): ConfigurationBootstrapResult {
  const { resamples, seed, level } = resolveOptions(options);
  const point = definedOrNull(statistic(identityIndices(configurations)));
  const replicates = drawReplicates([configurations], (drawn) => statistic(drawn[0]), { resamples, seed });
  return summarise(point, replicates, { resamples, seed, level });
}

export interface BootstrapSlice {
  /** Slices of one group share each resample's draw (e.g. all models of one benchmark). */
  group: string;
  configurations: number;
  statistic: ConfigurationStatistic;
}

export interface MaxStatisticResult extends ConfigurationBootstrapResult {
  slices: number;
  /** Index of the slice attaining the observed maximum. */
  argMax: number;
}

/**
 * Max-statistic bootstrap over slices (App. I): in each resample every group of slices gets its
 * own draw of configurations, every slice's metric is recomputed on its group's draw, and the
 * maximum over slices is kept; the percentile range of that maximum bounds the multiplicity
 * inflation of an "up to X" headline. Slices whose metric is undefined in a resample are skipped.
 * Within a resample the groups draw one after another, in order of first appearance, from the
 * same stream. App. I leaves rho_flip^max out of this correction (exact counts, no resampling).
 */
export function maxStatisticBootstrap(
  slices: readonly BootstrapSlice[],
  options: ConfigurationBootstrapOptions = {},
): MaxStatisticResult {
  if (slices.length === 0) throw new RangeError("no slices");
  const { resamples, seed, level } = resolveOptions(options);
  const groups = [...new Set(slices.map((s) => s.group))];
  const sizes = groups.map((group) => {
    const members = slices.filter((s) => s.group === group);
    const size = members[0].configurations;
    if (members.some((s) => s.configurations !== size)) {
      throw new RangeError(`slices of group '${group}' differ in their number of configurations`);
    }
    return size;
  });
  const groupOf = slices.map((s) => groups.indexOf(s.group));
  const maxOver = (drawn: readonly Int32Array[]) => maximum(slices.map((s, k) => s.statistic(drawn[groupOf[k]])));
  const observed = slices.map((s) => definedOrNaN(s.statistic(identityIndices(s.configurations))));
  const replicates = drawReplicates(sizes, maxOver, { resamples, seed });
  const argMax = observed.reduce(
    (best, value, k) => (value > observed[best] || Number.isNaN(observed[best]) ? k : best),
    0,
  );
  const point = definedOrNull(observed[argMax]);
  return { ...summarise(point, replicates, { resamples, seed, level }), slices: slices.length, argMax };
}

// ---------------------------------------------------------------- the paper's metrics

/** SDI of one (model, benchmark) slice under the configuration bootstrap. */
export function bootstrapScoreDispersion(
  scores: ArrayLike<number>,
  options?: ConfigurationBootstrapOptions,
): ConfigurationBootstrapResult {
  return configurationBootstrap(scores.length, sdiStatistic(scores), options);
}

/** CFR_theta of one (model, benchmark) slice under the configuration bootstrap. */
export function bootstrapComplianceFlipRate(
  scores: ArrayLike<number>,
  theta: number,
  options?: ConfigurationBootstrapOptions,
): ConfigurationBootstrapResult {
  return configurationBootstrap(scores.length, cfrStatistic(scores, theta), options);
}

/** tau_R of one benchmark: a drawn configuration brings every model's score under it. */
export function bootstrapRankConcordance(
  grid: ModelScoreGrid,
  options?: ConfigurationBootstrapOptions,
): ConfigurationBootstrapResult {
  return configurationBootstrap(grid.scores.length, tauRStatistic(grid), options);
}

export interface VarianceRatioBootstrapInput {
  /** The free-form slice's rows (columns as varianceAttribution reads them). */
  table: Table;
  /** Configuration id of each row; a drawn configuration brings all of its rows (every model). */
  configuration: ArrayLike<string>;
}

/**
 * rho = eta^2_impl / eta^2_model under the configuration bootstrap. A resample often misses a
 * level combination of an interaction (each template:decoding cell holds few configurations), so
 * resamples are fitted with the aliased columns dropped (the column space, hence Type II SS, is
 * still defined); Type III needs full rank, so its rank-deficient resamples count as undefined.
 */
export function bootstrapVarianceRatio(
  input: VarianceRatioBootstrapInput,
  attribution: VarianceAttributionOptions = {},
  options?: ConfigurationBootstrapOptions,
): ConfigurationBootstrapResult & { configurations: string[] } {
  const { configurations, statistic } = varianceRatioStatistic(input, attribution);
  return { ...configurationBootstrap(configurations.length, statistic, options), configurations };
}

/** SDI of the drawn configurations. */
export function sdiStatistic(scores: ArrayLike<number>): ConfigurationStatistic {
  return (drawn) => scoreDispersion(pick(scores, drawn)).sdi;
}

/** CFR_theta of the drawn configurations. */
export function cfrStatistic(scores: ArrayLike<number>, theta: number): ConfigurationStatistic {
  return (drawn) => complianceFlipRate(pick(scores, drawn), theta).cfr;
}

/**
 * tau_R of the drawn configurations (pairs of draws, so a configuration drawn twice pairs with
 * itself). The tau-b of every configuration pair is computed once, so a resample only averages
 * |C|(|C|-1)/2 table entries; the result equals rankConcordance on the drawn grid.
 */
export function tauRStatistic(grid: ModelScoreGrid): ConfigurationStatistic {
  const n = grid.scores.length;
  const tau = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = a; b < n; b++) {
      const value = kendallTauBCoefficient(grid.scores[a], grid.scores[b]);
      tau[a * n + b] = value;
      tau[b * n + a] = value;
    }
  }
  return (drawn) => {
    let total = 0;
    let used = 0;
    for (let i = 0; i < drawn.length; i++) {
      for (let j = i + 1; j < drawn.length; j++) {
        const value = tau[drawn[i] * n + drawn[j]];
        if (Number.isFinite(value)) {
          total += value;
          used++;
        }
      }
    }
    return used > 0 ? total / used : null;
  };
}

/** rho of the rows of the drawn configurations, with the configuration list the indices refer to. */
export function varianceRatioStatistic(
  input: VarianceRatioBootstrapInput,
  attribution: VarianceAttributionOptions = {},
): { configurations: string[]; statistic: ConfigurationStatistic } {
  const rowCount = input.configuration.length;
  const configurations = [...new Set(Array.from(input.configuration))].sort();
  const rowsOf = configurations.map(() => [] as number[]);
  const index = new Map(configurations.map((c, k) => [c, k]));
  for (let r = 0; r < rowCount; r++) rowsOf[index.get(input.configuration[r])!].push(r);
  if ((attribution.sums ?? "II") === "II") {
    // Type II: the design is built once and a resample only reweights rows by multiplicity.
    const { sums: _sums, aliased: _aliased, ...options } = attribution;
    const rhoOf = preparedVarianceRatio(input.table, options);
    const weights = new Float64Array(rowCount);
    const statistic: ConfigurationStatistic = (drawn) => {
      weights.fill(0);
      for (const c of drawn) for (const r of rowsOf[c]) weights[r]++;
      return undefinedOnResample(() => rhoOf(weights));
    };
    return { configurations, statistic };
  }
  // Each column's values row by row, read once: every resample draws rows from them.
  const columns = Object.entries(input.table).map(([name, column]) => [name, columnValues(column)] as const);
  const statistic: ConfigurationStatistic = (drawn) => {
    const rows = Array.from(drawn, (c) => rowsOf[c]).flat();
    const table = Object.fromEntries(columns.map(([name, values]) => [name, rows.map((r) => values[r])]));
    return undefinedOnResample(() => varianceAttribution(table, { aliased: "drop", ...attribution }).rho);
  };
  return { configurations, statistic };
}

/**
 * rho of one resample, or null where the resample cannot support the fit (too few levels, no
 * residual df, a singular matrix): those are outcomes of the draw; any other error is a bug and
 * is rethrown.
 */
function undefinedOnResample(statistic: () => number | null): number | null {
  try {
    return statistic();
  } catch (error) {
    if (error instanceof EstimabilityError || error instanceof NotPositiveDefiniteError) return null;
    throw error;
  }
}

/**
 * Point / mean / SE / percentile range of replicates drawn elsewhere (e.g. one slice's values
 * recorded inside a max-statistic bootstrap, so per-slice ranges and the maximum share draws).
 */
export function summariseConfigurationReplicates(
  point: number | null,
  replicates: Float64Array,
  options: ConfigurationBootstrapOptions = {},
): ConfigurationBootstrapResult {
  const resolved = resolveOptions({ ...options, resamples: replicates.length || 1 });
  return summarise(definedOrNull(point), replicates, { ...resolved, resamples: replicates.length });
}

// ---------------------------------------------------------------- machinery

function resolveOptions(options: ConfigurationBootstrapOptions) {
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 1;
  const level = options.level ?? 0.95;
  if (!(Number.isInteger(resamples) && resamples >= 1)) throw new RangeError(`resamples must be a positive integer`);
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  return { resamples, seed, level };
}

/**
 * Draws `resamples` resamples, one index vector per group size (sizes[g] indices in [0, sizes[g])),
 * and records statistic(draws) per resample. Resample b uses stream floor(b / BLOCK_SIZE).
 */
function drawReplicates(
  sizes: readonly number[],
  statistic: (drawn: readonly Int32Array[]) => number | null,
  { resamples, seed }: { resamples: number; seed: number },
): Float64Array {
  for (const size of sizes) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`a slice needs configurations, got ${size}`);
  }
  const streams = RandomStream.independentStreams(seed, Math.ceil(resamples / BLOCK_SIZE));
  const draws = sizes.map((size) => new Int32Array(size));
  const replicates = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    const stream = streams[Math.floor(b / BLOCK_SIZE)];
    draws.forEach((draw, g) => {
      stream.fillIntegers(draw, sizes[g]);
    });
    replicates[b] = definedOrNaN(statistic(draws));
  }
  return replicates;
}

function summarise(
  point: number | null,
  replicates: Float64Array,
  { resamples, seed, level }: { resamples: number; seed: number; level: number },
): ConfigurationBootstrapResult {
  const finite = replicates.filter(Number.isFinite).sort();
  const defined = finite.length > 0;
  return {
    point,
    mean: defined ? mean(finite) : null,
    standardError: finite.length > 1 ? standardDeviation(finite) : null,
    range: defined ? [quantileSorted(finite, (1 - level) / 2), quantileSorted(finite, (1 + level) / 2)] : null,
    undefinedReplicates: resamples - finite.length,
    replicates,
    resamples,
    seed,
    level,
  };
}

function identityIndices(n: number): Int32Array {
  return Int32Array.from({ length: n }, (_, i) => i);
}

function pick(values: ArrayLike<number>, drawn: Int32Array): Float64Array {
  return Float64Array.from(drawn, (c) => values[c]);
}

function definedOrNull(value: number | null): number | null {
  return value === null || !Number.isFinite(value) ? null : value;
}

function definedOrNaN(value: number | null): number {
  return value === null || !Number.isFinite(value) ? Number.NaN : value;
}

/** Maximum of the defined values; null when none is defined. */
function maximum(values: readonly (number | null)[]): number | null {
  let best: number | null = null;
  for (const v of values) if (v !== null && Number.isFinite(v) && (best === null || v > best)) best = v;
  return best;
}
