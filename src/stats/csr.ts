// The Contrast Selectivity Ratio of a perturbation audit (Auditing the Audit §3, App. E, F).
//
// Per item i and family F with perturbations p (usually 3):
//   |Δ_F| = (1/N) Σ_i (1/|F_i|) Σ_{p ∈ F_i} |s_i^p − s_i^orig|
// over the N items that have at least one usable pair in F (a pair is usable when both scores
// are present: a parse failure on either side drops that pair, App. C, and is counted).
//   CSR = |Δ_attr| / max(|Δ_fmt|, |Δ_sem|, ε),   ε = 0.01 (an engineering floor, not a test).
// Its uncertainty is an item-paired bootstrap (F4 repair): an item is resampled once and brings
// its original score and ALL its perturbed scores, in every family. The functions below take
// items that carry their perturbations, so resampling originals and perturbations independently
// cannot be expressed.
import type { Interval } from "./descriptive.js";
import { quantileSorted, standardDeviation } from "./descriptive.js";
import { RandomStream } from "./random.js";

/** The perturbation families whose deltas CSR reads (the placebo family stands in for attribute in CSR_placebo). */
export const CSR_FAMILIES = ["format", "semantic", "attribute", "placebo"] as const;
export type CsrFamily = (typeof CSR_FAMILIES)[number];

/** ε of the CSR denominator (§3: "ε = 0.01"). */
export const CSR_EPSILON = 0.01;
/** Resamples of the paired bootstrap (§3, Fig. 2: "1000-resample paired-bootstrap 95% CIs"). */
export const CSR_RESAMPLES = 1000;
/** The seeds of the seed-stability check (App. F: "across seeds {42, 123, 2024}"). */
export const CSR_SEEDS = [42, 123, 2024] as const;

/**
 * One item of a cell with every perturbation it received: its score on the original and, per
 * family, its score on each of that family's perturbations (null: a parse failure or a missing
 * trial; a missing family: no perturbation applied to this item).
 */
export interface PairedItem {
  readonly id: string;
  readonly original: number | null;
  readonly perturbed: Readonly<Partial<Record<CsrFamily, readonly (number | null)[]>>>;
}

export interface FamilyDelta {
  /** |Δ_fam|, NaN when no item has a usable pair in the family. */
  delta: number;
  /** Items with at least one usable pair (the N of the mean). */
  items: number;
  /** Usable (original, perturbed) pairs. */
  pairs: number;
  /** Pairs dropped because either side was missing (symmetric drop, App. C). */
  droppedPairs: number;
}

/** |Δ_fam| over `items`: the mean over items of the mean over the family's usable pairs of |s^p − s^orig|. */
export function familyDelta(items: readonly PairedItem[], family: CsrFamily): FamilyDelta {
  let total = 0;
  let used = 0;
  let pairs = 0;
  let dropped = 0;
  for (const item of items) {
    const scores = item.perturbed[family];
    if (!scores || scores.length === 0) continue;
    const r = itemFamilyMean(item.original, scores);
    pairs += r.pairs;
    dropped += scores.length - r.pairs;
    if (r.pairs === 0) continue;
    total += r.mean;
    used++;
  }
  return { delta: used > 0 ? total / used : Number.NaN, items: used, pairs, droppedPairs: dropped };
}

function itemFamilyMean(original: number | null, scores: readonly (number | null)[]): { mean: number; pairs: number } {
  if (original === null || !Number.isFinite(original)) return { mean: Number.NaN, pairs: 0 };
  let sum = 0;
  let pairs = 0;
  for (const s of scores) {
    if (s === null || !Number.isFinite(s)) continue;
    sum += Math.abs(s - original);
    pairs++;
  }
  return { mean: pairs > 0 ? sum / pairs : Number.NaN, pairs };
}

/** CSR from family deltas: |Δ_attr| / max(|Δ_fmt|, |Δ_sem|, ε). NaN when Δ_attr is undefined. */
export function csrFromDeltas(attr: number, fmt: number, sem: number, epsilon = CSR_EPSILON): number {
  if (!(epsilon > 0)) throw new RangeError(`epsilon must be > 0, got ${epsilon}`);
  const floor = Math.max(Number.isNaN(fmt) ? 0 : fmt, Number.isNaN(sem) ? 0 : sem, epsilon);
  return attr / floor;
}

export interface CsrOptions {
  epsilon?: number;
  /** The family in the numerator: `attribute` (CSR) or `placebo` (CSR_placebo). */
  numerator?: "attribute" | "placebo";
}

export interface CsrEstimate {
  csr: number;
  /** max(|Δ_fmt|, |Δ_sem|): the quantity gate G3 reads (undefined deltas count as 0). */
  denominator: number;
  deltas: Record<CsrFamily, FamilyDelta>;
  epsilon: number;
}

/** The cell's family deltas and CSR. */
export function csr(items: readonly PairedItem[], options: CsrOptions = {}): CsrEstimate {
  const epsilon = options.epsilon ?? CSR_EPSILON;
  const deltas = Object.fromEntries(CSR_FAMILIES.map((f) => [f, familyDelta(items, f)])) as Record<
    CsrFamily,
    FamilyDelta
  >;
  const numerator = deltas[options.numerator ?? "attribute"].delta;
  const fmt = deltas.format.delta;
  const sem = deltas.semantic.delta;
  return {
    csr: csrFromDeltas(numerator, fmt, sem, epsilon),
    denominator: Math.max(Number.isNaN(fmt) ? 0 : fmt, Number.isNaN(sem) ? 0 : sem),
    deltas,
    epsilon,
  };
}

export interface PairedCsrBootstrapOptions extends CsrOptions {
  /** Resamples (default 1,000). */
  resamples?: number;
  /** Seed of the resampling stream (default 42). */
  seed?: number;
  /** Percentile interval level (default 0.95). */
  level?: number;
}

export interface PairedCsrBootstrap {
  estimate: CsrEstimate;
  /** Type-7 percentile interval of the finite replicates ([NaN, NaN] when none is finite). */
  ci: Interval;
  /** Pr(CSR > 1) over the finite replicates: bootstrap support for |Δ_attr| > max(|Δ_fmt|, |Δ_sem|), not a p-value. */
  support: number;
  /** SD of the finite replicates. */
  standardError: number;
  /** Replicates where CSR was undefined (a resample with no usable attribute pair). */
  undefinedReplicates: number;
  replicates: Float64Array;
  resamples: number;
  seed: number;
  level: number;
  /** Always "item": items are resampled with all their perturbations (there is no other mode). */
  resampling: "item";
}

/**
 * The item-paired bootstrap of CSR: each resample draws N items with replacement, and a drawn
 * item brings its original score and every perturbed score of every family.
 */
export function pairedCsrBootstrap(
  items: readonly PairedItem[],
  options: PairedCsrBootstrapOptions = {},
): PairedCsrBootstrap {
  if (items.length === 0) throw new RangeError("no items to resample");
  const epsilon = options.epsilon ?? CSR_EPSILON;
  const numeratorFamily = options.numerator ?? "attribute";
  const resamples = options.resamples ?? CSR_RESAMPLES;
  const seed = options.seed ?? 42;
  const level = options.level ?? 0.95;
  const estimate = csr(items, { epsilon, numerator: numeratorFamily });
  // Per item and family: its mean |s^p − s^orig| (NaN when it has no usable pair).
  const n = items.length;
  const means = (family: CsrFamily) =>
    Float64Array.from(items, (item) => {
      const scores = item.perturbed[family];
      return scores && scores.length > 0 ? itemFamilyMean(item.original, scores).mean : Number.NaN;
    });
  const num = means(numeratorFamily);
  const fmt = means("format");
  const sem = means("semantic");
  const replicates = new Float64Array(resamples);
  const stream = RandomStream.fromSeed(seed);
  const draws = new Int32Array(n);
  const meanOf = (values: Float64Array) => {
    let sum = 0;
    let used = 0;
    for (let j = 0; j < n; j++) {
      const v = values[draws[j]];
      if (Number.isNaN(v)) continue;
      sum += v;
      used++;
    }
    return used > 0 ? sum / used : Number.NaN;
  };
  for (let b = 0; b < resamples; b++) {
    stream.fillIntegers(draws, n);
    replicates[b] = csrFromDeltas(meanOf(num), meanOf(fmt), meanOf(sem), epsilon);
  }
  const finite = replicates.filter(Number.isFinite).sort();
  const ci: Interval =
    finite.length > 0
      ? [quantileSorted(finite, (1 - level) / 2), quantileSorted(finite, (1 + level) / 2)]
      : [Number.NaN, Number.NaN];
  let above = 0;
  for (const v of finite) if (v > 1) above++;
  return {
    estimate,
    ci,
    support: finite.length > 0 ? above / finite.length : Number.NaN,
    standardError: finite.length > 1 ? standardDeviation(finite) : Number.NaN,
    undefinedReplicates: resamples - finite.length,
    replicates,
    resamples,
    seed,
    level,
    resampling: "item",
  };
}

export interface SeedStability {
  /** CSR per seed, in the order given. */
  values: number[];
  mean: number;
  /** Sample SD (n − 1). */
  sd: number;
  /** sd / mean; NaN when fewer than 2 seeds, a value is not finite, or the mean is 0 (undefined, App. F). */
  cv: number;
  /** Why `cv` is NaN (absent when it is a number). */
  cvMissing?: string;
}

/** The coefficient of variation of CSR across seeds (App. F; the seeds' perturbations differ, the items do not). */
export function seedStability(csrBySeed: readonly number[]): SeedStability {
  const values = [...csrBySeed];
  const mean = values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
  const sd = values.length > 1 ? standardDeviation(values) : Number.NaN;
  const cvMissing =
    values.length < 2
      ? `${values.length} seed(s): a CV needs at least two`
      : !values.every(Number.isFinite)
        ? "CSR is not estimable at every seed"
        : mean === 0
          ? "CSR is 0 at every seed, so its CV (SD / mean) has no value"
          : undefined;
  return {
    values,
    mean,
    sd,
    cv: cvMissing === undefined ? sd / Math.abs(mean) : Number.NaN,
    ...(cvMissing ? { cvMissing } : {}),
  };
}

/** Placebo specificity CSR_real / CSR_placebo (App. F); NaN when CSR_placebo is 0 or undefined. */
export function placeboSpecificity(csrReal: number, csrPlacebo: number): number {
  if (!Number.isFinite(csrReal) || !Number.isFinite(csrPlacebo) || csrPlacebo === 0) return Number.NaN;
  return csrReal / csrPlacebo;
}
