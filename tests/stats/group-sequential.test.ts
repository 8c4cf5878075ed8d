import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  crossingProbabilities,
  driftForPower,
  repeatedConfidenceInterval,
  sequentialBoundaries,
  spentAlpha,
} from "../../src/stats/group-sequential.js";
import { normalQuantile } from "../../src/stats/distributions.js";
import { RandomStream } from "../../src/stats/random.js";

const FIVE_LOOKS = [0.2, 0.4, 0.6, 0.8, 1];

// Reference boundaries, symmetric two-sided alpha 0.05 (0.025 per side), K = 5 equally spaced looks:
// gsDesign::gsDesign(k = 5, test.type = 2, alpha = 0.025, sfu = sfLDOF | sfLDPocock)$upper$bound
// (K. Anderson, gsDesign manual; the same values as Reboussin, DeMets, Kim & Lan, ld98, and the
// Lan-DeMets tables of Jennison & Turnbull 2000, ch. 7), printed to 4 decimals there.
const OBRIEN_FLEMING_K5 = [4.8769, 3.3569, 2.6803, 2.2898, 2.031];
const POCOCK_K5 = [2.438, 2.4268, 2.4101, 2.3966, 2.3859];
// One-sided alpha 0.025, looks at 0.5, 0.75, 1, sfLDOF: the gsDesign example printed in the
// gsdmvn reference page of gs_b() (keaven.github.io/gsdmvn/reference/gs_b.html): 2.962588 2.359018 2.014084.
const ONE_SIDED_OBF = [2.962588, 2.359018, 2.014084];

describe("group-sequential boundaries (alpha spending)", () => {
  it("O'Brien-Fleming-type spending at K = 5 matches gsDesign's boundaries to 4 decimals", () => {
    const b = sequentialBoundaries({ fractions: FIVE_LOOKS, alpha: 0.05, spending: "obrien-fleming", sides: 2 });
    for (const [k, c] of b.critical.entries()) {
      assert.ok(Math.abs(c - OBRIEN_FLEMING_K5[k]) < 2e-4, `look ${k + 1}: ${c} vs ${OBRIEN_FLEMING_K5[k]}`);
    }
  });

  it("Pocock-type spending at K = 5 matches gsDesign's boundaries to 4 decimals", () => {
    const b = sequentialBoundaries({ fractions: FIVE_LOOKS, alpha: 0.05, spending: "pocock", sides: 2 });
    for (const [k, c] of b.critical.entries()) {
      assert.ok(Math.abs(c - POCOCK_K5[k]) < 2e-4, `look ${k + 1}: ${c} vs ${POCOCK_K5[k]}`);
    }
  });

  it("one-sided spending at unequal looks matches gsDesign to 6 decimals", () => {
    const b = sequentialBoundaries({ fractions: [0.5, 0.75, 1], alpha: 0.025, spending: "obrien-fleming", sides: 1 });
    for (const [k, c] of b.critical.entries()) {
      assert.ok(Math.abs(c - ONE_SIDED_OBF[k]) < 2e-6, `look ${k + 1}: ${c} vs ${ONE_SIDED_OBF[k]}`);
    }
  });

  it("the first boundary is the spending function's own quantile, and the crossing probability under H0 is alpha", () => {
    for (const spending of ["obrien-fleming", "pocock"] as const) {
      const b = sequentialBoundaries({ fractions: [0.3, 0.7, 1], alpha: 0.05, spending, sides: 2 });
      const first = normalQuantile(1 - spentAlpha(spending, 0.025, 0.3));
      assert.ok(Math.abs(b.critical[0] - first) < 1e-8, `${spending}: first look ${b.critical[0]} vs ${first}`);
      const h0 = crossingProbabilities(b, 0);
      assert.ok(Math.abs(h0.total - 0.05) < 1e-6, `${spending}: type I error ${h0.total}`);
      for (const [k, u] of h0.upper.entries()) {
        assert.ok(Math.abs(u - h0.lower[k]) < 1e-12, `symmetric at look ${k + 1}`);
      }
    }
  });

  it("a single look is the fixed-sample test", () => {
    const b = sequentialBoundaries({ fractions: [1], alpha: 0.05, spending: "pocock", sides: 2 });
    assert.ok(Math.abs(b.critical[0] - normalQuantile(0.975)) < 1e-8, `critical ${b.critical[0]}`);
  });

  it("crossing probabilities under a drift match a brute-force simulation of the score process", () => {
    const b = sequentialBoundaries({ fractions: FIVE_LOOKS, alpha: 0.05, spending: "obrien-fleming", sides: 2 });
    const drift = 2.5;
    const exact = crossingProbabilities(b, drift);
    const stream = RandomStream.fromSeed(11);
    const simulations = 40_000;
    let rejected = 0;
    let fractionSum = 0;
    for (let s = 0; s < simulations; s++) {
      let score = 0;
      let previous = 0;
      let stopAt = 1;
      for (let k = 0; k < FIVE_LOOKS.length; k++) {
        const step = FIVE_LOOKS[k] - previous;
        score += drift * step + Math.sqrt(step) * stream.normal();
        previous = FIVE_LOOKS[k];
        if (Math.abs(score / Math.sqrt(FIVE_LOOKS[k])) >= b.critical[k]) {
          rejected++;
          stopAt = FIVE_LOOKS[k];
          break;
        }
      }
      fractionSum += stopAt;
    }
    const power = rejected / simulations;
    const se = Math.sqrt((exact.total * (1 - exact.total)) / simulations);
    assert.ok(Math.abs(power - exact.total) < 4 * se, `simulated ${power} vs recursion ${exact.total} (se ${se})`);
    const expected = fractionSum / simulations;
    assert.ok(Math.abs(expected - exact.expectedFraction) < 0.01, `E[t] ${expected} vs ${exact.expectedFraction}`);
  });

  it("driftForPower inverts the power curve; a sequential design needs a larger drift than the fixed test", () => {
    const b = sequentialBoundaries({ fractions: FIVE_LOOKS, alpha: 0.05, spending: "pocock", sides: 2 });
    const drift = driftForPower(b, 0.8);
    assert.ok(Math.abs(crossingProbabilities(b, drift).total - 0.8) < 1e-6, `power at drift ${drift}`);
    const fixed = normalQuantile(0.975) + normalQuantile(0.8);
    assert.ok(drift > fixed, `sequential drift ${drift} should exceed the fixed-sample ${fixed}`);
  });

  it("a repeated confidence interval is the estimate +/- the look's critical value x se", () => {
    assert.deepEqual(repeatedConfidenceInterval(0.1, 0.02, 2.5), [0.1 - 0.05, 0.1 + 0.05]);
  });

  it("refuses fractions that do not increase to 1", () => {
    assert.throws(
      () => sequentialBoundaries({ fractions: [0.5, 0.4, 1], alpha: 0.05, spending: "pocock", sides: 2 }),
      /must increase/,
    );
    assert.throws(
      () => sequentialBoundaries({ fractions: [0.5, 0.9], alpha: 0.05, spending: "pocock", sides: 2 }),
      /last look/,
    );
  });
});
