/**
 * One interim look of a sequential run: for each contrast still running, the item-clustered
 * paired difference (condition - reference), its z statistic against the look's alpha-spending
 * boundary, and the repeated confidence intervals that decide equivalence and futility
 * (Jennison & Turnbull 2000, ch. 9): the look's decisions, recorded as they were taken.
 */
import type { SequentialSpec } from "../../contracts/spec.js";
import { clusterMeanAndSe } from "../../stats/clustered-power.js";
import type { Interval } from "../../stats/descriptive.js";
import {
  repeatedConfidenceInterval,
  type SequentialBoundaries,
  sequentialBoundaries,
} from "../../stats/group-sequential.js";
import { type ContrastLayout, itemDifferences, type ScoredTrial } from "../plan/contrasts.js";

export type SequentialDecision = "harm" | "benefit" | "equivalence" | "futility";

export interface ContrastAtLook {
  contrast: string;
  level: string;
  /** Items with at least one complete pair at this look. */
  items: number;
  estimate: number | null;
  se: number | null;
  z: number | null;
  /** Two-sided boundary |Z| of this look (harm below -critical, benefit above +critical). */
  critical: number;
  /** One-sided boundary of each TOST side at this look. */
  equivalenceCritical: number;
  /** Repeated CI at the two-sided boundary (the interval that accounts for the looks). */
  rci: Interval | null;
  /** Repeated CI at the one-sided boundaries (the TOST interval of this look). */
  equivalenceRci: Interval | null;
  /** The boundary this look's statistic crossed, whether or not the design stops for it. */
  crossed: "harm" | "benefit" | null;
  /** What stopped the contrast at this look (one of stop_on), or null. */
  decision: SequentialDecision | null;
  /** The look (1-based) at which the contrast was decided, at this look or before. */
  decidedAt: number | null;
}

export interface SequentialBoundarySet {
  effect: SequentialBoundaries;
  equivalence: SequentialBoundaries;
}

export function boundariesOf(sequential: SequentialSpec, equivalenceAlpha: number): SequentialBoundarySet {
  const base = { fractions: sequential.looks, spending: sequential.spending };
  return {
    effect: sequentialBoundaries({ ...base, alpha: sequential.alpha, sides: 2 }),
    equivalence: sequentialBoundaries({ ...base, alpha: equivalenceAlpha, sides: 1 }),
  };
}

export interface LookInputs {
  /** 0-based look index. */
  look: number;
  layout: ContrastLayout;
  boundaries: SequentialBoundarySet;
  stopOn: readonly SequentialDecision[];
  margin: number;
  minimumEffect: number;
  /** Scored trials of the items the look holds. */
  trials: readonly ScoredTrial[];
  /** Contrasts decided at an earlier look: label -> their earlier entry. */
  decided: ReadonlyMap<string, ContrastAtLook>;
}

/** Every contrast's statistics and decision at one look. */
export function analyseLook(inputs: LookInputs): ContrastAtLook[] {
  const { look, boundaries } = inputs;
  const critical = boundaries.effect.critical[look];
  const equivalenceCritical = boundaries.equivalence.critical[look];
  const final = look === boundaries.effect.fractions.length - 1;
  return inputs.layout.contrasts.map((contrast) => {
    const earlier = inputs.decided.get(contrast.label);
    if (earlier) return earlier;
    const perItem = [...itemDifferences(contrast, inputs.trials).values()].map(
      (d) => d.reduce((a, b) => a + b, 0) / d.length,
    );
    const base = {
      contrast: contrast.label,
      level: contrast.level,
      items: perItem.length,
      critical,
      equivalenceCritical,
    };
    const { mean, se } = perItem.length >= 2 ? clusterMeanAndSe(perItem) : { mean: Number.NaN, se: 0 };
    if (!(se > 0)) {
      return {
        ...base,
        estimate: perItem.length > 0 ? mean : null,
        se: null,
        z: null,
        rci: null,
        equivalenceRci: null,
        crossed: null,
        decision: null,
        decidedAt: null,
      };
    }
    const z = mean / se;
    const rci = repeatedConfidenceInterval(mean, se, critical);
    const equivalenceRci = repeatedConfidenceInterval(mean, se, equivalenceCritical);
    const crossed = z <= -critical ? "harm" : z >= critical ? "benefit" : null;
    const inside = (interval: Interval, bound: number) => interval[0] > -bound && interval[1] < bound;
    const candidates: [SequentialDecision, boolean][] = [
      ["harm", crossed === "harm"],
      ["benefit", crossed === "benefit"],
      ["equivalence", inside(equivalenceRci, inputs.margin)],
      // Non-binding: the repeated CI already excludes an effect of the minimum size either way.
      ["futility", !final && crossed === null && inside(rci, inputs.minimumEffect)],
    ];
    const decision = candidates.find(([d, holds]) => holds && inputs.stopOn.includes(d))?.[0] ?? null;
    return {
      ...base,
      estimate: mean,
      se,
      z,
      rci,
      equivalenceRci,
      crossed,
      decision,
      decidedAt: decision ? look + 1 : null,
    };
  });
}
