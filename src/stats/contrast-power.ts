// Power of a list of contrasts, each with its own clustered paired design: the power to detect
// the minimum effect and to confirm equivalence within the margin (by simulation, the closed
// form beside it as a check), the minimum detectable effect, and the clusters each target needs.
import { crossingProbabilities, type SequentialBoundaries } from "./group-sequential.js";
import {
  type ClusteredPairedDesign,
  clusterDifferenceVariance,
  checkClusteredDesign,
  closedFormClusteredMde,
  closedFormClusteredPower,
  closedFormEquivalencePower,
  clustersFor,
  type SimulatedRate,
  simulateClusteredEquivalence,
  simulateClusteredPower,
} from "./clustered-power.js";

export interface ContrastDesign {
  /** e.g. "scaffold=cot vs direct". */
  contrast: string;
  /** The hypothesis family it belongs to, when the plan declares families. */
  family?: string;
  design: ClusteredPairedDesign;
}

export interface PowerTargets {
  /** The smallest effect worth detecting (risk difference, a proportion). */
  minimumEffect: number;
  /** Its direction: a decrease of the scored outcome (harm) or an increase. */
  direction: "decrease" | "increase";
  /** TOST margin (proportion). */
  margin: number;
  alpha: number;
  equivalenceAlpha: number;
  /** Target power (default 0.8). */
  power: number;
  simulations: number;
  seed: number;
  /** The run's sequential boundaries, when it declares interim looks. */
  sequential?: SequentialBoundaries;
}

/** A group-sequential design's operating characteristics for one contrast (Jennison & Turnbull ch. 2). */
export interface SequentialPower {
  /** P(crossing a boundary at some look) under the minimum effect. */
  power: number;
  /** P(crossing) under no effect: the design's two-sided alpha. */
  typeIError: number;
  /** Expected share of the items run (stopping at the first crossing), under no effect and under the minimum effect. */
  expectedFractionNull: number;
  expectedFractionAlternative: number;
}

/**
 * The drift (E[Z] at full information) of the cluster-level z statistic under an effect: the
 * effect over its standard error at every item, the variance taken under the effect (as estimated).
 */
export function sequentialDrift(design: ClusteredPairedDesign, effect: number): number {
  return (effect * Math.sqrt(design.clusters)) / Math.sqrt(clusterDifferenceVariance(design, effect));
}

export function sequentialPower(
  design: ClusteredPairedDesign,
  effect: number,
  boundaries: SequentialBoundaries,
): SequentialPower {
  const alternative = crossingProbabilities(boundaries, sequentialDrift(design, effect));
  const none = crossingProbabilities(boundaries, 0);
  return {
    power: alternative.total,
    typeIError: none.total,
    expectedFractionNull: none.expectedFraction,
    expectedFractionAlternative: alternative.expectedFraction,
  };
}

export interface ContrastPower {
  contrast: string;
  family?: string;
  design: ClusteredPairedDesign;
  /** Power to detect the minimum effect, simulated, with the closed form. */
  power: SimulatedRate & { closedForm: number };
  /** Probability of confirming equivalence when there is no effect. */
  equivalence: SimulatedRate & { closedForm: number };
  /** Minimum detectable effect at the target power (closed form); null if none in range. */
  mde: number | null;
  /** Clusters reaching the target power for the minimum effect, with the simulated power there. */
  clustersForPower: { clusters: number; simulated: SimulatedRate | null } | null;
  /** Clusters reaching the target probability of confirming equivalence. */
  clustersForEquivalence: { clusters: number; simulated: SimulatedRate | null } | null;
  /** With interim looks: the sequential design's power and expected share of items run. */
  sequential?: SequentialPower;
}

/** Trials drawn by one check simulation at most; a larger design is reported by its closed form only. */
const MAX_CHECK_DRAWS = 50_000_000;

/**
 * Power of each contrast. Contrasts with the same design (the same assumptions, items and
 * pairs) share one computation, from the same seed, so they report the same figures.
 */
export function contrastPower(contrasts: readonly ContrastDesign[], targets: PowerTargets): ContrastPower[] {
  const computed = new Map<string, ContrastPower>();
  return contrasts.map((contrast) => {
    const key = JSON.stringify(contrast.design);
    const known = computed.get(key) ?? powerOf(contrast, targets, targets.seed);
    computed.set(key, known);
    const { family: _family, ...shared } = known;
    return { ...shared, contrast: contrast.contrast, ...(contrast.family ? { family: contrast.family } : {}) };
  });
}

function powerOf(contrast: ContrastDesign, targets: PowerTargets, seed: number): ContrastPower {
  const { design } = contrast;
  const effect = targets.direction === "decrease" ? -targets.minimumEffect : targets.minimumEffect;
  checkClusteredDesign(design, effect);
  const sim = { simulations: targets.simulations, seed };
  const power = {
    ...simulateClusteredPower(design, effect, targets.alpha, sim),
    closedForm: closedFormClusteredPower(design, effect, targets.alpha),
  };
  const equivalence = {
    ...simulateClusteredEquivalence(design, targets.margin, targets.equivalenceAlpha, { ...sim, seed: seed + 1 }),
    closedForm: closedFormEquivalencePower(design, targets.margin, targets.equivalenceAlpha),
  };
  const withClusters = (clusters: number) => ({ ...design, clusters });
  const affordable = (clusters: number) => clusters * design.pairsPerCluster * targets.simulations <= MAX_CHECK_DRAWS;
  const needed = clustersFor((m) => closedFormClusteredPower(withClusters(m), effect, targets.alpha), targets.power);
  const neededEquivalence = clustersFor(
    (m) => closedFormEquivalencePower(withClusters(m), targets.margin, targets.equivalenceAlpha),
    targets.power,
  );
  return {
    contrast: contrast.contrast,
    ...(contrast.family ? { family: contrast.family } : {}),
    design,
    power,
    equivalence,
    mde: closedFormClusteredMde(design, targets.power, targets.alpha, targets.direction),
    ...(targets.sequential ? { sequential: sequentialPower(design, effect, targets.sequential) } : {}),
    clustersForPower:
      needed === null
        ? null
        : {
            clusters: needed,
            simulated: affordable(needed)
              ? simulateClusteredPower(withClusters(needed), effect, targets.alpha, { ...sim, seed: seed + 2 })
              : null,
          },
    clustersForEquivalence:
      neededEquivalence === null
        ? null
        : {
            clusters: neededEquivalence,
            simulated: affordable(neededEquivalence)
              ? simulateClusteredEquivalence(
                  withClusters(neededEquivalence),
                  targets.margin,
                  targets.equivalenceAlpha,
                  {
                    ...sim,
                    seed: seed + 3,
                  },
                )
              : null,
          },
  };
}
