// Power of a list of contrasts, each with its own clustered paired design: the power to detect
// the minimum effect and to confirm equivalence within the margin (by simulation, the closed
// form beside it as a check), the minimum detectable effect, and the clusters each target needs.
import {
  type ClusteredPairedDesign,
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
}

/** Trials drawn by one check simulation at most; a larger design is reported by its closed form only. */
const MAX_CHECK_DRAWS = 50_000_000;

/** Power of each contrast (independent simulation streams: seed + index). */
export function contrastPower(contrasts: readonly ContrastDesign[], targets: PowerTargets): ContrastPower[] {
  return contrasts.map((contrast, index) => powerOf(contrast, targets, targets.seed + 1000 * index));
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
