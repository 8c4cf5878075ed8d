// Group-sequential boundaries by alpha spending (Lan & DeMets 1983) and their crossing
// probabilities, computed with the Armitage-McPherson-Rowe recursion: the density of the score
// S_k = Z_k sqrt(t_k) on the continuation region is carried from look to look by numerical
// integration (Simpson's rule on a grid), as gsDesign and ld98 do (Jennison & Turnbull 2000,
// ch. 19). Information is scaled so the planned maximum is 1: t_k is the information fraction.
import { normalCdf, normalPdf, normalQuantile, normalSf } from "./distributions.js";
import { bisect } from "./roots.js";
import type { Interval } from "./descriptive.js";

export const SPENDING_FUNCTIONS = ["obrien-fleming", "pocock"] as const;
export type SpendingFunction = (typeof SPENDING_FUNCTIONS)[number];

/**
 * Alpha spent by information fraction t on one side, of `alphaPerSide` in all (gsDesign's
 * sfLDOF and sfLDPocock): O'Brien-Fleming-type 2 - 2 Phi(z_(1-a/2) / sqrt t), Pocock-type
 * a ln(1 + (e - 1) t).
 */
export function spentAlpha(spending: SpendingFunction, alphaPerSide: number, t: number): number {
  if (t <= 0) return 0;
  const fraction = Math.min(1, t);
  if (spending === "pocock") return alphaPerSide * Math.log(1 + (Math.E - 1) * fraction);
  return 2 * normalSf(normalQuantile(1 - alphaPerSide / 2) / Math.sqrt(fraction));
}

export interface SequentialDesign {
  /** Information fractions of the looks, increasing, the last 1. */
  fractions: readonly number[];
  /** Two-sided: the total over both sides (alpha/2 per side); one-sided: the upper side's. */
  alpha: number;
  spending: SpendingFunction;
  sides: 1 | 2;
}

export interface SequentialBoundaries extends SequentialDesign {
  /** Critical |Z| (two-sided) or Z (one-sided) at each look. */
  critical: number[];
  /** Cumulative alpha spent per side by each look. */
  spentPerSide: number[];
}

/** Checks a look schedule: fractions in (0, 1], strictly increasing, ending at 1. */
export function checkFractions(fractions: readonly number[]): void {
  if (fractions.length === 0) throw new RangeError("a sequential design needs at least one look");
  fractions.forEach((t, k) => {
    if (!(t > 0 && t <= 1)) throw new RangeError(`look ${k + 1}: information fraction ${t} is not in (0, 1]`);
    if (k > 0 && !(t > fractions[k - 1]))
      throw new RangeError(`look ${k + 1}: information fractions must increase (${fractions[k - 1]} then ${t})`);
  });
  if (fractions[fractions.length - 1] !== 1) throw new RangeError("the last look must be at information fraction 1");
}

/** The boundaries that spend the design's alpha at its looks under H0 (drift 0). */
export function sequentialBoundaries(design: SequentialDesign): SequentialBoundaries {
  checkFractions(design.fractions);
  const alphaPerSide = design.sides === 2 ? design.alpha / 2 : design.alpha;
  const spentPerSide = design.fractions.map((t) => spentAlpha(design.spending, alphaPerSide, t));
  const critical: number[] = [];
  let density: ScoreDensity | null = null;
  design.fractions.forEach((_t, k) => {
    const increment = spentPerSide[k] - (k === 0 ? 0 : spentPerSide[k - 1]);
    const exitAt = (c: number) =>
      exitProbabilities(density, { fractions: design.fractions, k, sides: design.sides, drift: 0 }, c);
    // Exit probability falls as c rises: the root of exit(c) = increment per side.
    const c = increment <= 0 ? Number.POSITIVE_INFINITY : bisect((c) => exitAt(c).upper - increment, 0, 40, 1e-10);
    critical.push(c);
    density = carryDensity(density, design.fractions, k, c, design.sides, 0);
  });
  return { ...design, critical, spentPerSide };
}

export interface CrossingProbabilities {
  /** P(first crossing of the upper boundary at look k). */
  upper: number[];
  /** P(first crossing of the lower boundary at look k); zeros for one-sided designs. */
  lower: number[];
  /** P(reject at some look) = sum of both. */
  total: number;
  /** E[information fraction at stopping], the study stopping at its first crossing (or at t = 1). */
  expectedFraction: number;
}

/**
 * Crossing probabilities of the boundaries when Z at full information has mean `drift`
 * (drift = effect / se at t = 1; 0 gives the type I error actually spent).
 */
export function crossingProbabilities(boundaries: SequentialBoundaries, drift: number): CrossingProbabilities {
  const upper: number[] = [];
  const lower: number[] = [];
  let density: ScoreDensity | null = null;
  const { fractions, sides, critical } = boundaries;
  fractions.forEach((_t, k) => {
    const exit = exitProbabilities(density, { fractions, k, sides, drift }, critical[k]);
    upper.push(exit.upper);
    lower.push(exit.lower);
    density = carryDensity(density, fractions, k, critical[k], sides, drift);
  });
  const stopAt = fractions.map((_, k) => upper[k] + lower[k]);
  const stopped = stopAt.reduce((a, b) => a + b, 0);
  const expectedFraction = fractions.reduce((sum, t, k) => sum + t * stopAt[k], 0) + (1 - stopped) * 1;
  return { upper, lower, total: stopped, expectedFraction };
}

/** Repeated confidence interval at a look: estimate +/- critical x se (Jennison & Turnbull ch. 9). */
export function repeatedConfidenceInterval(estimate: number, se: number, critical: number): Interval {
  return [estimate - critical * se, estimate + critical * se];
}

/** The drift (E[Z] at t = 1) at which a design rejects with probability `power`. */
export function driftForPower(boundaries: SequentialBoundaries, power: number): number {
  return bisect((drift) => crossingProbabilities(boundaries, drift).total - power, 0, 20, 1e-8);
}

// ---------------------------------------------------------------- the recursion

/** The sub-density of S_k on the continuation region of look k, on a Simpson grid. */
interface ScoreDensity {
  points: Float64Array;
  /** Density x Simpson weight at each point. */
  weighted: Float64Array;
}

/** Far tails beyond this many standard deviations of S_k carry no mass worth integrating. */
const TAIL_SDS = 9;

/** Grid points: spacing a small share of the narrowest increment's sd, odd for Simpson. */
function gridSize(width: number, incrementSd: number): number {
  const n = Math.ceil(width / (incrementSd / 24));
  const clamped = Math.max(101, Math.min(4001, n));
  return clamped % 2 === 0 ? clamped + 1 : clamped;
}

function exitProbabilities(
  previous: ScoreDensity | null,
  /** The information fractions, the look, the number of sides and the drift under which it is computed. */
  look: { fractions: readonly number[]; k: number; sides: 1 | 2; drift: number },
  critical: number,
): { upper: number; lower: number } {
  const { fractions, k, sides, drift } = look;
  const t = fractions[k];
  const bound = critical * Math.sqrt(t);
  if (previous === null) {
    const sd = Math.sqrt(t);
    const mean = drift * t;
    return {
      upper: normalSf((bound - mean) / sd),
      lower: sides === 2 ? normalCdf((-bound - mean) / sd) : 0,
    };
  }
  const step = t - fractions[k - 1];
  const sd = Math.sqrt(step);
  let upper = 0;
  let lower = 0;
  const { points, weighted } = previous;
  for (let j = 0; j < points.length; j++) {
    const mean = points[j] + drift * step;
    upper += weighted[j] * normalSf((bound - mean) / sd);
    if (sides === 2) lower += weighted[j] * normalCdf((-bound - mean) / sd);
  }
  return { upper, lower };
}

function carryDensity(
  previous: ScoreDensity | null,
  fractions: readonly number[],
  k: number,
  critical: number,
  sides: 1 | 2,
  drift: number,
): ScoreDensity | null {
  if (k === fractions.length - 1) return null;
  const t = fractions[k];
  const sdT = Math.sqrt(t);
  const center = drift * t;
  const hi = Math.min(critical * sdT, center + TAIL_SDS * sdT);
  const lo = Math.max(sides === 2 ? -critical * sdT : Number.NEGATIVE_INFINITY, center - TAIL_SDS * sdT);
  const nextStep = fractions[k + 1] - t;
  const incrementSd = Math.sqrt(Math.min(nextStep, previous === null ? t : t - fractions[k - 1]));
  const n = gridSize(Math.max(hi - lo, 0), incrementSd);
  const points = new Float64Array(n);
  const weighted = new Float64Array(n);
  if (!(hi > lo)) return { points, weighted };
  const h = (hi - lo) / (n - 1);
  for (let i = 0; i < n; i++) {
    const s = lo + i * h;
    points[i] = s;
    const simpson = ((i === 0 || i === n - 1 ? 1 : i % 2 === 1 ? 4 : 2) * h) / 3;
    weighted[i] = simpson * densityAt(previous, fractions, k, s, drift);
  }
  return { points, weighted };
}

/** f_k(s): the sub-density of S_k at s (paths still running at look k - 1, moved on by one step). */
function densityAt(
  previous: ScoreDensity | null,
  fractions: readonly number[],
  k: number,
  s: number,
  drift: number,
): number {
  const t = fractions[k];
  if (previous === null) return normalPdf((s - drift * t) / Math.sqrt(t)) / Math.sqrt(t);
  const step = t - fractions[k - 1];
  const sd = Math.sqrt(step);
  let sum = 0;
  const { points, weighted } = previous;
  for (let j = 0; j < points.length; j++) {
    if (weighted[j] === 0) continue;
    const z = (s - points[j] - drift * step) / sd;
    sum += weighted[j] * Math.exp(-0.5 * z * z);
  }
  return sum / (sd * Math.sqrt(2 * Math.PI));
}
