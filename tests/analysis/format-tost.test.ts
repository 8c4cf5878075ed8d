/**
 * The within-format TOST of the scaffold x format 2x2 (ScaffoldSafety 5.2): equivalence at a
 * margin m is the (1 - 2 alpha) = 90% case-cluster bootstrap interval of the within-format RD
 * lying inside (-m, m). Checked by its properties on a planted study:
 * - the verdict is monotone in the margin (a larger margin never turns equivalence into
 *   non-equivalence), so it switches at one margin m*;
 * - m* sits strictly inside the reported 95% interval's reach (a margin between the 90% and the
 *   95% interval is judged equivalent), and within 0.25 SE of the normal-theory 90% reach
 *   |RD| + 1.645 SE (the percentile interval is not exactly normal).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scoredRows } from "../../src/analysis/core/data.js";
import { formatAnalysis, type WithinFormatContrast } from "../../src/analysis/conditions/format.js";
import { normalizePlan } from "../../src/analysis/core/plan.js";
import { plantedTable } from "./helpers.js";

const REFERENCE = "direct";
const table = plantedTable({
  seed: 23,
  models: { m1: 0, m2: -0.05 },
  benchmarks: ["b1", "b2"],
  itemsPerBenchmark: 60,
  effects: { [REFERENCE]: 0, cot: -0.01, map_reduce: 0.03 },
  extraFacet: { name: "format", levels: { mc: 0, oe: 0.04 } },
});
const scored = scoredRows(table.rows, "itt");

function withinFormat(margin: number): WithinFormatContrast[] {
  const plan = normalizePlan({ bootstrap: { resamples: 1000, level: 0.95 }, equivalence: { margin } });
  const format = formatAnalysis(scored, { comparisonFacet: "scaffold", reference: REFERENCE, plan }, [
    REFERENCE,
    "cot",
    "map_reduce",
  ]);
  return format.withinFormat;
}

type Side = "rdMc" | "rdOe";
const SIDES: Side[] = ["rdMc", "rdOe"];

function equivalentAt(margin: number, condition: string, side: Side): boolean {
  const w = withinFormat(margin).find((x) => x.condition === condition);
  assert.ok(w, `a within-format contrast for ${condition}`);
  const verdict = w[side].equivalent;
  assert.ok(verdict !== null, `${condition} ${side}: a TOST verdict`);
  return verdict;
}

/** The margin where the verdict switches, by bisection (the verdict is monotone in the margin). */
function switchingMargin(condition: string, side: Side): number {
  let lo = 1e-6;
  let hi = 0.5;
  assert.equal(equivalentAt(hi, condition, side), true, `${condition} ${side}: equivalent at a margin of 0.5`);
  for (let i = 0; i < 14; i++) {
    const mid = (lo + hi) / 2;
    if (equivalentAt(mid, condition, side)) hi = mid;
    else lo = mid;
  }
  return hi;
}

describe("the within-format TOST", () => {
  it("is monotone in the margin: a larger margin never turns equivalence into non-equivalence", () => {
    const margins = [0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.13, 0.17, 0.22, 0.3, 0.5];
    const seen = new Map<string, number>();
    for (const margin of margins) {
      for (const w of withinFormat(margin)) {
        for (const side of SIDES) {
          const key = `${w.condition} ${side}`;
          const verdict = w[side].equivalent;
          if (verdict === true && !seen.has(key)) seen.set(key, margin);
          if (verdict === false && seen.has(key))
            assert.fail(`${key}: equivalent at margin ${seen.get(key)} but not at the larger ${margin}`);
        }
      }
    }
    assert.equal(seen.size, 4, `every within-format RD becomes equivalent on the grid: ${[...seen.keys()]}`);
  });

  it("reads the 90% interval: a margin between the 90% and the 95% interval's reach is equivalence", () => {
    const reference = withinFormat(0.02);
    for (const w of reference) {
      for (const side of SIDES) {
        const { estimate, ci95 } = w[side];
        assert.ok(estimate !== null && ci95 !== null, `${w.condition} ${side}: an estimate and a 95% CI`);
        const reach95 = Math.max(Math.abs(ci95[0]), Math.abs(ci95[1]));
        const switching = switchingMargin(w.condition, side);
        // The normal-theory reach of the 90% interval, its SE read off the 95% interval.
        const se = (ci95[1] - ci95[0]) / (2 * 1.959964);
        const reach90 = Math.abs(estimate) + 1.644854 * se;
        assert.ok(
          switching < reach95 - 0.1 * se,
          `${w.condition} ${side}: equivalence starts at margin ${switching.toFixed(4)}, not inside the 95% interval's reach ${reach95.toFixed(4)} (RD ${estimate.toFixed(4)}, 95% CI [${ci95[0].toFixed(4)}, ${ci95[1].toFixed(4)}]): the TOST must read the 90% interval`,
        );
        assert.ok(
          Math.abs(switching - reach90) < 0.25 * se,
          `${w.condition} ${side}: equivalence starts at ${switching.toFixed(4)}, the 90% reach is about ${reach90.toFixed(4)} (SE ${se.toFixed(4)})`,
        );
        const between = (switching + reach95) / 2;
        assert.equal(
          equivalentAt(between, w.condition, side),
          true,
          `${w.condition} ${side}: margin ${between.toFixed(4)} lies between the 90% reach and the 95% reach ${reach95.toFixed(4)}`,
        );
      }
    }
  });
});
