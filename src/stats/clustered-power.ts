// Power of a paired contrast on clustered binary outcomes: items are clusters, each seen by the
// reference and the compared condition in `pairsPerCluster` paired trials (models x attempts).
// The test is the cluster-level one the analysis uses: the mean over items of each item's mean
// paired difference, its standard error from the between-item spread (what the case-cluster
// bootstrap estimates), and a Wald z test (two-sided) or TOST within +/- margin.
//
// Generative model (documented in docs/ANALYSIS.md, "Power"):
//   u_i ~ Beta with mean `baseline` and intra-cluster correlation `icc` (Var u = icc p (1 - p));
//   reference outcome Y0 ~ Bernoulli(u_i); the condition's outcome repeats Y0, except with
//   probability s it is a fresh Bernoulli(u_i) draw, s set so that P(Y1 != Y0) under no effect is
//   the declared `discordance`; an effect d > 0 then turns a failure into a success with
//   probability d / (1 - p) (d < 0: a success into a failure with probability |d| / p), so the
//   mean difference is exactly d.
import { normalCdf, normalQuantile } from "./distributions.js";
import { RandomStream } from "./random.js";
import { bisect } from "./roots.js";

export interface ClusteredPairedDesign {
  /** Items (clusters) in the contrast. */
  clusters: number;
  /** Paired trials per item (models x attempts x the other facets' levels). */
  pairsPerCluster: number;
  /** The reference's rate of the scored outcome. */
  baseline: number;
  /** Intra-cluster correlation of outcomes within an item. */
  icc: number;
  /** Share of paired trials whose outcomes differ when the condition has no effect. */
  discordance: number;
}

/** The largest discordance the model admits: 2 p (1 - p) (1 - icc) (every condition draw fresh). */
export function maximumDiscordance(baseline: number, icc: number): number {
  return 2 * baseline * (1 - baseline) * (1 - icc);
}

/** Refuses a design the model cannot produce, naming the parameter. */
export function checkClusteredDesign(design: ClusteredPairedDesign, effect = 0): void {
  const { baseline, icc, discordance, clusters, pairsPerCluster } = design;
  if (!(baseline > 0 && baseline < 1)) throw new RangeError(`baseline rate ${baseline} is not in (0, 1)`);
  if (!(icc >= 0 && icc < 1)) throw new RangeError(`intra-cluster correlation ${icc} is not in [0, 1)`);
  const most = maximumDiscordance(baseline, icc);
  if (!(discordance >= 0 && discordance <= most + 1e-12)) {
    throw new RangeError(
      `discordance ${discordance} is not in [0, ${most.toFixed(4)}] (at most 2 p (1 - p) (1 - icc) for baseline ${baseline}, icc ${icc})`,
    );
  }
  if (!(clusters >= 2 && Number.isInteger(clusters)))
    throw new RangeError(`clusters ${clusters}: need an integer >= 2`);
  if (!(pairsPerCluster >= 1 && Number.isInteger(pairsPerCluster)))
    throw new RangeError(`pairs per cluster ${pairsPerCluster}: need an integer >= 1`);
  if (!(baseline + effect >= 0 && baseline + effect <= 1))
    throw new RangeError(`effect ${effect} takes the baseline ${baseline} outside [0, 1]`);
}

/** Variance of one item's mean paired difference under an effect (the model above, exactly). */
export function clusterDifferenceVariance(design: ClusteredPairedDesign, effect: number): number {
  const { baseline: p, icc, discordance, pairsPerCluster: r } = design;
  const spread = p * (1 - p);
  const itemVariance = icc * spread;
  const withinSpread = spread * (1 - icc);
  const switchShare = withinSpread === 0 ? 0 : discordance / (2 * withinSpread);
  if (effect === 0) return discordance / r;
  const up = effect > 0;
  const flip = up ? effect / (1 - p) : -effect / p;
  // E[u^2] for the side that can flip: (1 - u) when raising, u when lowering.
  const side = up ? 1 - p : p;
  const sideSquare = side * side + itemVariance;
  const discordant = 2 * switchShare * (1 - flip) * withinSpread + side * flip;
  const meanSquare = flip * flip * sideSquare;
  return (discordant - meanSquare) / r + flip * flip * itemVariance;
}

/**
 * The no-effect discordance behind a discordance observed under a mean difference `effect`
 * (a pilot measures both together): the model's P(Y1 != Y0) = 2 s (1 - f) E[u (1 - u)] + side x f
 * solved for the switch share s, clamped to the model's range.
 */
export function nullDiscordance(observed: number, baseline: number, icc: number, effect: number): number {
  const within = baseline * (1 - baseline) * (1 - icc);
  const most = 2 * within;
  if (effect === 0 || within === 0) return Math.min(observed, most);
  const up = effect > 0;
  const side = up ? 1 - baseline : baseline;
  const flip = Math.min(1, Math.abs(effect) / side);
  if (flip >= 1) return most;
  const share = (observed - side * flip) / (2 * (1 - flip) * within);
  return Math.min(most, Math.max(0, share * most));
}

function zFor(alpha: number): number {
  return normalQuantile(1 - alpha / 2);
}

/**
 * Power of the two-sided cluster-level Wald test (normal approximation). The test's standard
 * error is the one estimated from the data, so under an effect it is the effect's own; with
 * `pooledNull` the null variance is taken at the mean of the two rates instead (the same switch
 * share), which on one unclustered independent pair per item is R's power.prop.test(strict = TRUE).
 */
export function closedFormClusteredPower(
  design: ClusteredPairedDesign,
  effect: number,
  alpha: number,
  options: { pooledNull?: boolean } = {},
): number {
  if (effect === 0) return alpha;
  const z = zFor(alpha);
  const root = Math.sqrt(design.clusters);
  const sdAlt = Math.sqrt(clusterDifferenceVariance(design, effect));
  const sdNull = options.pooledNull ? Math.sqrt(pooledNullVariance(design, effect)) : sdAlt;
  const shift = Math.abs(effect) * root;
  return normalCdf((shift - z * sdNull) / sdAlt) + normalCdf((-shift - z * sdNull) / sdAlt);
}

function pooledNullVariance(design: ClusteredPairedDesign, effect: number): number {
  const p = design.baseline;
  const pooled = p + effect / 2;
  const discordance = (design.discordance * pooled * (1 - pooled)) / (p * (1 - p));
  return clusterDifferenceVariance({ ...design, baseline: pooled, discordance }, 0);
}

/** Probability that TOST declares equivalence within +/- margin when there is no effect. */
export function closedFormEquivalencePower(design: ClusteredPairedDesign, margin: number, alpha: number): number {
  const se = Math.sqrt(clusterDifferenceVariance(design, 0) / design.clusters);
  if (se === 0) return 1;
  return Math.max(0, 2 * normalCdf((margin - normalQuantile(1 - alpha) * se) / se) - 1);
}

/** The smallest |effect| (in `direction`) the design detects with `power`; null if none does. */
export function closedFormClusteredMde(
  design: ClusteredPairedDesign,
  power: number,
  alpha: number,
  direction: "increase" | "decrease",
): number | null {
  const room = direction === "increase" ? 1 - design.baseline : design.baseline;
  const sign = direction === "increase" ? 1 : -1;
  const at = (d: number) => closedFormClusteredPower(design, sign * d, alpha) - power;
  if (at(room * (1 - 1e-9)) < 0) return null;
  return bisect(at, 1e-9, room * (1 - 1e-9), 1e-10);
}

/** The fewest clusters at which `power(m)` reaches `target` (power increasing in m); null above `most`. */
export function clustersFor(power: (clusters: number) => number, target: number, most = 10_000_000): number | null {
  if (power(most) < target) return null;
  let lo = 2;
  let hi = most;
  if (power(lo) >= target) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (power(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

export interface SimulatedRate {
  rate: number;
  /** Binomial Monte Carlo standard error. */
  monteCarloSe: number;
  simulations: number;
}

export interface SimulationOptions {
  simulations: number;
  seed: number;
}

/** One simulated study's item mean differences. */
export function drawClusterDifferences(
  design: ClusteredPairedDesign,
  effect: number,
  stream: RandomStream,
  out = new Float64Array(design.clusters),
): Float64Array {
  const { baseline: p, icc, discordance, pairsPerCluster: r } = design;
  const withinSpread = p * (1 - p) * (1 - icc);
  const switchShare = withinSpread === 0 ? 0 : discordance / (2 * withinSpread);
  const beta = icc > 0 ? betaParameters(p, icc) : null;
  const up = effect >= 0;
  const flip = up ? effect / (1 - p) : -effect / p;
  for (let i = 0; i < out.length; i++) {
    const u = beta ? betaDraw(stream, beta.a, beta.b) : p;
    const switched = switchShare * u * (1 - u);
    // P(+1) and P(-1) of one pair, from the model's four cells.
    const plus = up ? switched + (1 - u - switched) * flip : switched * (1 - flip);
    const minus = up ? switched * (1 - flip) : switched + (u - switched) * flip;
    let sum = 0;
    for (let j = 0; j < r; j++) {
      const draw = stream.uniform();
      if (draw < plus) sum++;
      else if (draw < plus + minus) sum--;
    }
    out[i] = sum / r;
  }
  return out;
}

/** Mean and standard error (between-cluster spread / sqrt m) of cluster differences. */
export function clusterMeanAndSe(differences: ArrayLike<number>): { mean: number; se: number } {
  const m = differences.length;
  let sum = 0;
  for (let i = 0; i < m; i++) sum += differences[i];
  const mean = sum / m;
  let squares = 0;
  for (let i = 0; i < m; i++) squares += (differences[i] - mean) ** 2;
  return { mean, se: Math.sqrt(squares / (m - 1) / m) };
}

function rate(hits: number, simulations: number): SimulatedRate {
  const r = hits / simulations;
  return { rate: r, monteCarloSe: Math.sqrt((r * (1 - r)) / simulations), simulations };
}

/** Share of simulated studies whose two-sided cluster Wald test rejects at `alpha`. */
export function simulateClusteredPower(
  design: ClusteredPairedDesign,
  effect: number,
  alpha: number,
  options: SimulationOptions,
): SimulatedRate {
  checkClusteredDesign(design, effect);
  const stream = RandomStream.fromSeed(options.seed);
  const z = zFor(alpha);
  const buffer = new Float64Array(design.clusters);
  let hits = 0;
  for (let s = 0; s < options.simulations; s++) {
    const { mean, se } = clusterMeanAndSe(drawClusterDifferences(design, effect, stream, buffer));
    if (se > 0 && Math.abs(mean / se) >= z) hits++;
  }
  return rate(hits, options.simulations);
}

/** Share of simulated no-effect studies in which TOST declares equivalence within +/- margin. */
export function simulateClusteredEquivalence(
  design: ClusteredPairedDesign,
  margin: number,
  alpha: number,
  options: SimulationOptions,
): SimulatedRate {
  checkClusteredDesign(design);
  const stream = RandomStream.fromSeed(options.seed);
  const z = normalQuantile(1 - alpha);
  const buffer = new Float64Array(design.clusters);
  let hits = 0;
  for (let s = 0; s < options.simulations; s++) {
    const { mean, se } = clusterMeanAndSe(drawClusterDifferences(design, 0, stream, buffer));
    if (mean - z * se > -margin && mean + z * se < margin) hits++;
  }
  return rate(hits, options.simulations);
}

// ---------------------------------------------------------------- beta draws

function betaParameters(mean: number, icc: number): { a: number; b: number } {
  const total = (1 - icc) / icc;
  return { a: mean * total, b: (1 - mean) * total };
}

function betaDraw(stream: RandomStream, a: number, b: number): number {
  const x = gammaDraw(stream, a);
  const y = gammaDraw(stream, b);
  return x + y === 0 ? (stream.uniform() < a / (a + b) ? 1 : 0) : x / (x + y);
}

/** Gamma(shape, 1) by Marsaglia & Tsang (2000); shape < 1 boosted by U^(1/shape). */
function gammaDraw(stream: RandomStream, shape: number): number {
  if (shape < 1) return gammaDraw(stream, shape + 1) * stream.uniform() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = stream.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = stream.uniform();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/**
 * One-way ANOVA estimate of the intra-cluster correlation of outcomes grouped by cluster, with
 * the n0 correction for unequal cluster sizes (Donner 1986), clamped to [0, 0.99]; null when
 * fewer than two clusters have two or more outcomes.
 */
export function anovaIcc(groups: readonly (readonly number[])[]): number | null {
  const used = groups.filter((g) => g.length > 0);
  const k = used.length;
  const n = used.reduce((sum, g) => sum + g.length, 0);
  if (k < 2 || n - k < 1) return null;
  const grand = used.reduce((sum, g) => sum + g.reduce((a, b) => a + b, 0), 0) / n;
  let between = 0;
  let within = 0;
  for (const g of used) {
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    between += g.length * (mean - grand) ** 2;
    for (const y of g) within += (y - mean) ** 2;
  }
  const msb = between / (k - 1);
  const msw = within / (n - k);
  const n0 = (n - used.reduce((sum, g) => sum + g.length ** 2, 0) / n) / (k - 1);
  const denominator = msb + (n0 - 1) * msw;
  if (!(denominator > 0)) return 0;
  return Math.min(0.99, Math.max(0, (msb - msw) / denominator));
}
