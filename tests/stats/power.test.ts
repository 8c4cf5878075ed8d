import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  closedFormMde,
  minimumDetectableEffect,
  type PowerDefinition,
  simulateTwoProportionPower,
  twoProportionPower,
} from "../../src/stats/index.js";

const DEFINITIONS: PowerDefinition[] = [
  "closed-form-baseline-variance",
  "pooled-null-unpooled-alt-one-tail",
  "pooled-null-unpooled-alt-two-tail",
  "cohens-h",
];
const design = { p0: 0.7, nPerGroup: 500, alpha: 0.05 };

describe("power and MDE for two proportions", () => {
  it("the MDE reaches exactly the target power under its own definition", () => {
    for (const definition of DEFINITIONS) {
      for (const direction of ["increase", "decrease"] as const) {
        const mde = minimumDetectableEffect(design, 0.8, definition, direction);
        assert.ok(mde.p1 !== null, "expected mde.p1 !== null");
        assert.ok(Math.abs(twoProportionPower(design, mde.p1, definition) - 0.8) < 1e-9, `${definition} ${direction}`);
      }
    }
  });

  it("power grows with n and with the effect, and is about alpha at no effect (two-tailed)", () => {
    for (const definition of DEFINITIONS) {
      const small = twoProportionPower({ ...design, nPerGroup: 100 }, 0.78, definition);
      const large = twoProportionPower({ ...design, nPerGroup: 1000 }, 0.78, definition);
      assert.ok(large > small, "expected large > small");
      assert.ok(
        twoProportionPower(design, 0.8, definition) > twoProportionPower(design, 0.75, definition),
        "expected twoProportionPower(design, 0.8, definition) > twoProportionPower(design, 0.75, definition)",
      );
    }
    assert.ok(
      Math.abs(twoProportionPower(design, 0.7, "pooled-null-unpooled-alt-two-tail") - 0.05) < 1e-12,
      'expected Math.abs(twoProportionPower(design, 0.7, "pooled-null-unpooled-alt-two-tail") - 0.05) <...',
    );
  });

  it("simulated power agrees with the analytic power of the pooled z test", () => {
    const analytic = twoProportionPower(design, 0.77, "pooled-null-unpooled-alt-two-tail");
    const simulated = simulateTwoProportionPower({ ...design, p1: 0.77, simulations: 2000, seed: 99 });
    assert.ok(Math.abs(simulated.power - analytic) < 4 * simulated.monteCarloSe, `${simulated.power} vs ${analytic}`);
    const again = simulateTwoProportionPower({ ...design, p1: 0.77, simulations: 2000, seed: 99 });
    assert.equal(again.power, simulated.power);
  });

  it("reports an unreachable target as null instead of a bogus root", () => {
    const tiny = { p0: 0.98, nPerGroup: 10, alpha: 0.05 };
    assert.deepEqual(minimumDetectableEffect(tiny, 0.9, "pooled-null-unpooled-alt-one-tail", "increase"), {
      p1: null,
      delta: null,
    });
    assert.ok(
      closedFormMde(design, 0.8) > 0.08 && closedFormMde(design, 0.8) < 0.082,
      "expected closedFormMde(design, 0.8) > 0.08 && closedFormMde(design, 0.8) < 0.082",
    );
  });
});
