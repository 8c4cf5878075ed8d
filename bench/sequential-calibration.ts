// Calibration of sequential runs on the simulated panel's own mechanism (docs/SIMULATION.md): a
// respondent answers right with p = sigmoid(ability - difficulty + planted effects), difficulty a
// standard-normal draw per item, and each prompt's draw independent of the others'. Each simulated
// study draws its items afresh, answers them under the reference and the compared scaffold, and is
// monitored look by look with the run's own code (analyseLook, the spec's boundaries). The plan's
// prediction comes from `plan --power --pilot`'s own path: a pilot's baseline, icc and
// discordance, then the sequential design's crossing probabilities at that design's drift.
import { AnalysisPlanSchema } from "../src/contracts/analysis.js";
import type { SequentialSpec } from "../src/contracts/spec.js";
import { contrastLayout, itemDifferences, type ScoredTrial } from "../src/run/plan/contrasts.js";
import { analyseLook, boundariesOf, type ContrastAtLook } from "../src/run/sequential/monitor.js";
import { anovaIcc, nullDiscordance } from "../src/stats/clustered-power.js";
import { type SequentialPower, sequentialPower } from "../src/stats/contrast-power.js";
import { RandomStream } from "../src/stats/random.js";
import type { PreparedStudy } from "../src/run/prepare/study.js";

/** The panel's reasoning bonus for a "step by step" prompt (SIM_EFFECTS.reasoning). */
const REASONING_BONUS = 0.25;

export interface Panel {
  abilities: number[];
  /** The compared scaffold's logit shift over the reference (planted effect + the reasoning bonus). */
  shift: number;
  items: number;
}

export interface CalibrationResult {
  studies: number;
  /** Share of studies crossing a boundary at some look (the test's rejections). */
  rejections: number;
  monteCarloSe: number;
  /** Share stopped before the last look, and the mean share of items run. */
  stoppedEarly: number;
  expectedFraction: number;
  /** Mean look (1-based) at which the studies ended. */
  meanStopLook: number;
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** One study's trials: every item under both conditions for every respondent. */
function drawStudy(panel: Panel, stream: RandomStream, hashes: { reference: string; compared: string }): ScoredTrial[] {
  const trials: ScoredTrial[] = [];
  for (let i = 0; i < panel.items; i++) {
    const difficulty = stream.normal();
    const itemId = `item-${i}`;
    panel.abilities.forEach((ability, m) => {
      const base = { modelId: `m${m}`, benchmarkId: "panel", itemId, attempt: 1 };
      trials.push({
        ...base,
        conditionHash: hashes.reference,
        score: stream.uniform() < sigmoid(ability - difficulty) ? 1 : 0,
      });
      trials.push({
        ...base,
        conditionHash: hashes.compared,
        score: stream.uniform() < sigmoid(ability - difficulty + panel.shift) ? 1 : 0,
      });
    });
  }
  return trials;
}

/** The true mean risk difference of the planted shift over N(0, 1) difficulties (Gauss-Hermite-free: a fine grid). */
export function trueEffect(panel: Panel): number {
  let sum = 0;
  let weight = 0;
  for (let z = -8; z <= 8; z += 0.001) {
    const w = Math.exp(-0.5 * z * z);
    for (const a of panel.abilities) sum += w * (sigmoid(a - z + panel.shift) - sigmoid(a - z));
    weight += w * panel.abilities.length;
  }
  return sum / weight;
}

export interface CalibrationSetup {
  study: PreparedStudy;
  sequential: SequentialSpec;
}

/** Runs `studies` simulated sequential studies of the panel; items enter in the order drawn. */
export function simulateSequentialStudies(
  setup: CalibrationSetup,
  panel: Panel,
  studies: number,
  seed: number,
): CalibrationResult {
  const { study, sequential } = setup;
  const plan = AnalysisPlanSchema.parse(study.spec.analysis ?? {});
  const layout = contrastLayout(study.spec, study.conditions);
  const contrast = layout.contrasts[0];
  const pair = contrast.pairs[0];
  const single = { ...layout, contrasts: [{ ...contrast, pairs: [pair] }] };
  const boundaries = boundariesOf(sequential, plan.equivalence.alpha);
  const minimumEffect = plan.power?.minimum_effect ?? 0.05;
  const stream = RandomStream.fromSeed(seed);
  const looks = sequential.looks;
  let rejected = 0;
  let early = 0;
  let fractionSum = 0;
  let lookSum = 0;
  for (let s = 0; s < studies; s++) {
    const trials = drawStudy(panel, stream, { reference: pair.referenceHash, compared: pair.conditionHash });
    const decided = new Map<string, ContrastAtLook>();
    let crossed = false;
    let stopLook = looks.length - 1;
    for (let k = 0; k < looks.length; k++) {
      const cut = Math.ceil(looks[k] * panel.items - 1e-9);
      const inLook = trials.filter((t) => Number(t.itemId.slice(5)) < cut);
      const [result] = analyseLook({
        look: k,
        layout: single,
        boundaries,
        stopOn: sequential.stop_on,
        margin: plan.equivalence.margin,
        minimumEffect,
        trials: inLook,
        decided,
      });
      if (result.crossed) crossed = true;
      if (result.decision) {
        stopLook = k;
        break;
      }
    }
    if (crossed) rejected++;
    if (stopLook < looks.length - 1) early++;
    fractionSum += looks[stopLook];
    lookSum += stopLook + 1;
  }
  const rate = rejected / studies;
  return {
    studies,
    rejections: rate,
    monteCarloSe: Math.sqrt((rate * (1 - rate)) / studies),
    stoppedEarly: early / studies,
    expectedFraction: fractionSum / studies,
    meanStopLook: lookSum / studies,
  };
}

export interface PlanPrediction extends SequentialPower {
  baseline: number;
  icc: number;
  discordance: number;
  effect: number;
}

/**
 * What `plan --power --pilot` predicts for the panel: baseline, icc (ANOVA on the reference's
 * outcomes by item) and discordance measured on a pilot of `pilotItems` items, the planted
 * effect as the minimum effect, the sequential crossing probabilities at the design's drift.
 */
export function planPrediction(
  setup: CalibrationSetup,
  panel: Panel,
  pilotItems: number,
  seed: number,
): PlanPrediction {
  const { study, sequential } = setup;
  const plan = AnalysisPlanSchema.parse(study.spec.analysis ?? {});
  const layout = contrastLayout(study.spec, study.conditions);
  const pair = layout.contrasts[0].pairs[0];
  const contrast = { ...layout.contrasts[0], pairs: [pair] };
  const pilot = drawStudy({ ...panel, items: pilotItems }, RandomStream.fromSeed(seed), {
    reference: pair.referenceHash,
    compared: pair.conditionHash,
  });
  const references = pilot.filter((t) => t.conditionHash === pair.referenceHash);
  const baseline = references.reduce((a, t) => a + t.score, 0) / references.length;
  const byItem = new Map<string, number[]>();
  for (const t of references) byItem.set(t.itemId, [...(byItem.get(t.itemId) ?? []), t.score]);
  const icc = anovaIcc([...byItem.values()]) ?? 0;
  const differences = [...itemDifferences(contrast, pilot).values()].flat();
  const observed = differences.filter((d) => d !== 0).length / differences.length;
  const pilotEffect = differences.reduce((a, b) => a + b, 0) / differences.length;
  const discordance = nullDiscordance(observed, baseline, icc, pilotEffect);
  const effect = trueEffect(panel);
  const design = { clusters: panel.items, pairsPerCluster: panel.abilities.length, baseline, icc, discordance };
  const boundaries = boundariesOf(sequential, plan.equivalence.alpha).effect;
  return { baseline, icc, discordance, effect, ...sequentialPower(design, effect, boundaries) };
}

export { REASONING_BONUS };
