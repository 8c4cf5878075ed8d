/**
 * Every TOST verdict is monotone over a seeded grid of inputs: a larger margin never turns
 * equivalence into non-equivalence, and neither does a larger alpha (a narrower 1 - 2 alpha
 * interval). Each is also checked against its definition at alpha = 0.05: equivalent iff the 90%
 * interval (Wald: d -/+ z_0.95 SE; bootstrap: the type-7 5% and 95% percentiles) lies inside
 * (-margin, margin).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PairedTable } from "../../src/stats/paired.js";
import { normalQuantile } from "../../src/stats/distributions.js";
import {
  tostFromBootstrap,
  tostFromEstimate,
  tostPairedProportions,
  tostTwoProportions,
} from "../../src/stats/equivalence.js";
import { RandomStream } from "../../src/stats/random.js";

const MARGINS = [0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5];
const ALPHAS = [0.01, 0.025, 0.05, 0.1, 0.2];

function assertMonotone(label: string, verdicts: { at: number; equivalent: boolean }[]): void {
  let from: number | null = null;
  for (const { at, equivalent } of verdicts) {
    assert.ok(!(from !== null && !equivalent), `${label}: equivalent at ${from} but not at the larger ${at}`);
    if (equivalent && from === null) from = at;
  }
}

test("Wald TOST (estimate, two proportions, paired): monotone in the margin and alpha, and the 90% CI rule", () => {
  const stream = RandomStream.fromSeed(31);
  for (let round = 0; round < 60; round++) {
    const n1 = 20 + Math.floor(stream.uniform() * 400);
    const n2 = 20 + Math.floor(stream.uniform() * 400);
    const counts = {
      x1: Math.floor(stream.uniform() * (n1 + 1)),
      n1,
      x2: Math.floor(stream.uniform() * (n2 + 1)),
      n2,
    };
    const n = n1;
    const n10 = Math.floor(stream.uniform() * n * 0.2);
    const n01 = Math.floor(stream.uniform() * n * 0.2);
    const n11 = Math.floor(stream.uniform() * (n - n10 - n01));
    const table: PairedTable = [
      [n11, n10],
      [n01, n - n10 - n01 - n11],
    ];
    const difference = (stream.uniform() - 0.5) * 0.2;
    const se = 0.005 + stream.uniform() * 0.05;
    const forms = {
      estimate: (margin: number, alpha: number) => tostFromEstimate(difference, se, margin, alpha),
      "two proportions": (margin: number, alpha: number) => tostTwoProportions(counts, margin, alpha),
      paired: (margin: number, alpha: number) => tostPairedProportions(table, margin, alpha),
    };
    for (const [name, tost] of Object.entries(forms)) {
      for (const alpha of ALPHAS)
        assertMonotone(
          `${name} round ${round}, alpha ${alpha}`,
          MARGINS.map((margin) => ({ at: margin, equivalent: tost(margin, alpha).equivalent })),
        );
      for (const margin of MARGINS) {
        assertMonotone(
          `${name} round ${round}, margin ${margin}`,
          ALPHAS.map((alpha) => ({ at: alpha, equivalent: tost(margin, alpha).equivalent })),
        );
        const r = tost(margin, 0.05);
        const half = normalQuantile(0.95) * r.se;
        const inside = r.difference - half > -margin && r.difference + half < margin;
        assert.equal(
          r.equivalent,
          inside,
          `${name} round ${round}: d ${r.difference} +/- 1.645 SE ${r.se} against margin ${margin}`,
        );
      }
    }
  }
});

/** Type-7 quantile of sorted values (R's default, numpy's linear). */
function quantile7(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const below = Math.floor(h);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below] + (h - below) * (sorted[above] - sorted[below]);
}

test("bootstrap TOST: monotone in the margin and alpha, and read on the 5% and 95% percentiles at alpha 0.05", () => {
  const stream = RandomStream.fromSeed(7);
  for (let round = 0; round < 30; round++) {
    const centre = (stream.uniform() - 0.5) * 0.1;
    const spread = 0.005 + stream.uniform() * 0.05;
    const replicates = Float64Array.from({ length: 500 }, () => centre + spread * stream.normal());
    for (const alpha of ALPHAS)
      assertMonotone(
        `round ${round}, alpha ${alpha}`,
        MARGINS.map((margin) => ({ at: margin, equivalent: tostFromBootstrap(replicates, margin, alpha).equivalent })),
      );
    const sorted = [...replicates].sort((a, b) => a - b);
    const [lo, hi] = [quantile7(sorted, 0.05), quantile7(sorted, 0.95)];
    for (const margin of MARGINS) {
      assertMonotone(
        `round ${round}, margin ${margin}`,
        ALPHAS.map((alpha) => ({ at: alpha, equivalent: tostFromBootstrap(replicates, margin, alpha).equivalent })),
      );
      assert.equal(
        tostFromBootstrap(replicates, margin, 0.05).equivalent,
        lo > -margin && hi < margin,
        `round ${round}: 90% percentile interval [${lo}, ${hi}] against margin ${margin}`,
      );
    }
  }
});
