/**
 * The pilot's pair correlation: when an item's paired differences share an item-level effect
 * (configurations of one item move together), the pilot measures a correlation and the design
 * counts fewer independent pairs; when they are independent, it measures none.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PlannedContrast, ScoredTrial } from "../../src/run/plan/contrasts.js";
import { effectivePairs, pilotPairCorrelation } from "../../src/run/plan/power-plan.js";
import { RandomStream } from "../../src/stats/random.js";

const CONFIGURATIONS = 10;
const MODELS = ["m1", "m2"];
const ITEMS = 80;

const contrast: PlannedContrast = {
  level: "b",
  label: "arm=b vs a",
  pairs: Array.from({ length: CONFIGURATIONS }, (_, k) => ({
    reference: { arm: "a", k: String(k) },
    referenceHash: `a${k}`,
    condition: { arm: "b", k: String(k) },
    conditionHash: `b${k}`,
  })),
};

/** Reference and condition trials at rate 0.5, the condition's rate shifted per item by +/- `shift`. */
function pilot(shift: number, seed: number): ScoredTrial[] {
  const stream = RandomStream.fromSeed(seed);
  const trials: ScoredTrial[] = [];
  for (let i = 0; i < ITEMS; i++) {
    const itemShift = stream.uniform() < 0.5 ? shift : -shift;
    const benchmarkId = i % 2 === 0 ? "even" : "odd";
    for (const modelId of MODELS)
      for (let k = 0; k < CONFIGURATIONS; k++) {
        const base = { modelId, benchmarkId, itemId: `i${i}`, attempt: 1 };
        trials.push({ ...base, conditionHash: `a${k}`, score: stream.uniform() < 0.5 ? 1 : 0 });
        trials.push({ ...base, conditionHash: `b${k}`, score: stream.uniform() < 0.5 + itemShift ? 1 : 0 });
      }
  }
  return trials;
}

test("independent pairs: the pilot measures (almost) no pair correlation and the design keeps its pairs", () => {
  const rho = pilotPairCorrelation(contrast, pilot(0, 1), { baseline: 0.5, icc: 0, discordance: 0.5 });
  assert.ok(rho < 0.03, `rho ${rho}`);
  assert.ok(effectivePairs(20, rho) >= 13, `effective pairs ${effectivePairs(20, rho)} of 20`);
});

test("pairs sharing an item's effect: the pilot measures their correlation and the design counts fewer pairs", () => {
  // Each pair's difference has variance about 0.5 - 0.3^2 under the item's shift; the items'
  // shifts spread +/- 0.3, a correlation of about 0.09 / 0.5 = 0.18 between an item's pairs.
  const rho = pilotPairCorrelation(contrast, pilot(0.3, 2), { baseline: 0.5, icc: 0, discordance: 0.5 });
  assert.ok(rho > 0.1 && rho < 0.3, `rho ${rho}`);
  const pairs = effectivePairs(20, rho);
  assert.ok(pairs >= 3 && pairs <= 6, `effective pairs ${pairs} of 20`);
});

test("effectivePairs: the design effect 1 + (r - 1) rho, whole and at least one", () => {
  assert.equal(effectivePairs(42, 0), 42);
  assert.equal(effectivePairs(4, 1), 1);
  assert.equal(effectivePairs(42, 0.09), Math.floor(42 / (1 + 41 * 0.09)));
});
