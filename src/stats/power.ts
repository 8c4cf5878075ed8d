// Power and minimum detectable effect (MDE) of the two-sided two-proportion z test with n per
// group. Four definitions are in use and they differ in the 4th digit, so callers name one:
//   closed-form-baseline-variance:       both arms' variance taken at p0.
//   pooled-null-unpooled-alt-one-tail:   R power.prop.test (strict = FALSE), Fleiss without correction.
//   pooled-null-unpooled-alt-two-tail:   statsmodels power_proportions_2indep, power.prop.test(strict = TRUE).
//   cohens-h:                            statsmodels NormalIndPower on h = 2 asin(sqrt p1) - 2 asin(sqrt p0).
import { normalCdf, normalQuantile, normalSf } from "./distributions.js";
import { twoProportionZTest } from "./proportions.js";
import { RandomStream } from "./random.js";
import { bracketedRoot } from "./roots.js";

export type PowerDefinition =
  | "closed-form-baseline-variance"
  | "pooled-null-unpooled-alt-one-tail"
  | "pooled-null-unpooled-alt-two-tail"
  | "cohens-h";

export interface PowerDesign {
  p0: number;
  nPerGroup: number;
  alpha?: number;
}

/** Cohen's h = 2 asin(sqrt(p1)) - 2 asin(sqrt(p0)). */
export function cohensH(p0: number, p1: number): number {
  return 2 * Math.asin(Math.sqrt(p1)) - 2 * Math.asin(Math.sqrt(p0));
}

/** Power to detect p1 against p0 under the named definition. */
export function twoProportionPower(design: PowerDesign, p1: number, definition: PowerDefinition): number {
  const { p0, nPerGroup: n } = design;
  const zA = normalQuantile(1 - (design.alpha ?? 0.05) / 2);
  const d = Math.abs(p1 - p0);
  switch (definition) {
    case "closed-form-baseline-variance":
      return normalCdf(d / Math.sqrt((2 * p0 * (1 - p0)) / n) - zA);
    case "pooled-null-unpooled-alt-one-tail":
      return pooledNullPower({ p0, p1, n, zA }, false);
    case "pooled-null-unpooled-alt-two-tail":
      return pooledNullPower({ p0, p1, n, zA }, true);
    case "cohens-h":
      return cohensHPower(Math.abs(cohensH(p0, p1)), n, zA);
  }
}

/** The two rates, the per-group size and the critical z of the test whose power is computed. */
interface TwoRateTest {
  p0: number;
  p1: number;
  n: number;
  zA: number;
}

function pooledNullPower(test: TwoRateTest, bothTails: boolean): number {
  const { p0, p1, n, zA } = test;
  const pBar = (p0 + p1) / 2;
  const sNull = Math.sqrt(2 * pBar * (1 - pBar));
  const sAlt = Math.sqrt(p0 * (1 - p0) + p1 * (1 - p1));
  const shift = Math.abs(p1 - p0) * Math.sqrt(n);
  const nearTail = normalCdf((shift - zA * sNull) / sAlt);
  return bothTails ? nearTail + normalCdf((-zA * sNull - shift) / sAlt) : nearTail;
}

function cohensHPower(absH: number, n: number, zA: number): number {
  const shift = absH * Math.sqrt(n / 2);
  return normalSf(zA - shift) + normalCdf(-zA - shift);
}

export interface MinimumDetectableEffect {
  /** p1 = p0 + delta (increase) or p0 - delta (decrease); null if the target power is unreachable. */
  p1: number | null;
  delta: number | null;
}

/** The |p1 - p0| at which the test reaches `power` (root in p1 for the non-closed-form definitions). */
export function minimumDetectableEffect(
  design: PowerDesign,
  power: number,
  definition: PowerDefinition,
  direction: "increase" | "decrease",
): MinimumDetectableEffect {
  const { p0 } = design;
  const sign = direction === "increase" ? 1 : -1;
  if (definition === "closed-form-baseline-variance") {
    const delta = closedFormMde(design, power);
    const p1 = p0 + sign * delta;
    return p1 > 0 && p1 < 1 ? { p1, delta } : { p1: null, delta: null };
  }
  const gap = (p1: number) => twoProportionPower(design, p1, definition) - power;
  const p1 = direction === "increase" ? bracketedRoot(gap, p0, 1 - 1e-12) : bracketedRoot(gap, 1e-12, p0);
  return p1 === null ? { p1: null, delta: null } : { p1, delta: Math.abs(p1 - p0) };
}

/** (z_(1-alpha/2) + z_power) sqrt(2 p0 (1 - p0)/n). */
export function closedFormMde(design: PowerDesign, power: number): number {
  const zA = normalQuantile(1 - (design.alpha ?? 0.05) / 2);
  return (zA + normalQuantile(power)) * Math.sqrt((2 * design.p0 * (1 - design.p0)) / design.nPerGroup);
}

/** |h| at which the two-tailed Cohen's-h power reaches `power`. */
export function cohensHForPower(design: PowerDesign, power: number): number | null {
  const zA = normalQuantile(1 - (design.alpha ?? 0.05) / 2);
  return bracketedRoot((h) => cohensHPower(h, design.nPerGroup, zA) - power, 0, Math.PI);
}

export interface SimulatedPower {
  power: number;
  /** Binomial Monte Carlo standard error sqrt(power (1 - power)/simulations). */
  monteCarloSe: number;
  simulations: number;
}

/**
 * Power of the pooled two-sided z test by simulation: draw both arms, test, count rejections.
 * Reproducible from `seed`. Samples with a pooled proportion of 0 or 1 cannot reject.
 */
export function simulateTwoProportionPower(
  design: PowerDesign & { p1: number; simulations: number; seed: number },
): SimulatedPower {
  const stream = RandomStream.fromSeed(design.seed);
  const alpha = design.alpha ?? 0.05;
  const n = design.nPerGroup;
  let rejections = 0;
  for (let s = 0; s < design.simulations; s++) {
    const x1 = stream.binomial(n, design.p1);
    const x2 = stream.binomial(n, design.p0);
    const pooledIsDegenerate = x1 + x2 === 0 || x1 + x2 === 2 * n;
    if (!pooledIsDegenerate && twoProportionZTest({ x1, n1: n, x2, n2: n }).p < alpha) rejections++;
  }
  const power = rejections / design.simulations;
  return {
    power,
    monteCarloSe: Math.sqrt((power * (1 - power)) / design.simulations),
    simulations: design.simulations,
  };
}
