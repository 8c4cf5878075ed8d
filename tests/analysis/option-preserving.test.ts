/**
 * The recovery % bootstrap (issue 11): recovery = (preserving - standard) / loss is undefined in
 * a resample without a loss. The analysis reports how many resamples were undefined and refuses
 * the CI when more than the plan's option_preserving.max_undefined_share were.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { scoredRows } from "../../src/analysis/core/data.js";
import { optionPreservingAnalysis, recoveryCell } from "../../src/analysis/conditions/format.js";
import { normalizePlan } from "../../src/analysis/core/plan.js";
import { type AnalysisRow, clusterKey } from "../../src/analysis/core/table.js";

const CONDITIONS = ["direct", "map_reduce", "map_reduce_options"] as const;

/** One model, `items` cases; `correct[c]` lists how many of the first cases condition c gets right. */
function rows(items: number, correct: Record<(typeof CONDITIONS)[number], number>): AnalysisRow[] {
  const out: AnalysisRow[] = [];
  for (let i = 0; i < items; i++) {
    const item = `q${i}`;
    for (const condition of CONDITIONS) {
      out.push({
        trialId: null,
        model: "m",
        benchmark: "b",
        item,
        cluster: clusterKey("b", item),
        attempt: 1,
        facets: { scaffold: condition },
        // Case i is right under a condition when i < its count: a loss is lost cases, paired.
        outcome: i < correct[condition] ? 1 : 0,
        parseFailed: false,
        errored: false,
        simulated: true,
      });
    }
  }
  return out;
}

function recovery(table: AnalysisRow[], maxUndefined?: number) {
  const plan = normalizePlan({
    bootstrap: { resamples: 1000, seed: 1 },
    ...(maxUndefined === undefined ? {} : { option_preserving: { max_undefined_share: maxUndefined } }),
  });
  const op = optionPreservingAnalysis(
    scoredRows(table, "itt"),
    { comparisonFacet: "scaffold", reference: "direct", plan },
    false,
  );
  assert.equal(op.rows.length, 1);
  return op.rows[0];
}

describe("option-preserving recovery: undefined resamples", () => {
  test("a loss of one case in forty: most resamples lose nothing, the CI is refused with the count", () => {
    // direct 20/40, map_reduce 19/40 (case 19 lost), preserving 20/40: the loss is 1/40.
    const row = recovery(rows(40, { direct: 20, map_reduce: 19, map_reduce_options: 20 }));
    assert.ok(
      row.loss.estimate !== null && Math.abs(row.loss.estimate - 1 / 40) < 1e-12,
      "expected row.loss.estimate !== null && Math.abs(row.loss.estimate - 1 / 40) < 1e-12",
    );
    assert.equal(row.recovery.estimate, 1, "the point estimate stands");
    const { undefined: undefinedCount, total, ciNotAvailable } = row.recoveryResamples;
    assert.equal(total, 1000);
    // A resample loses nothing when it does not draw case 19: (1 - 1/40)^40, about 36%.
    assert.ok(undefinedCount > 250 && undefinedCount < 480, `undefined resamples: ${undefinedCount}`);
    assert.equal(row.recovery.ci95, null, "no CI");
    assert.match(ciNotAvailable ?? "", new RegExp(`^${undefinedCount} of 1000 resamples \\(\\d+%\\) had no loss`));
    assert.match(ciNotAvailable ?? "", /more than the declared 10%/);
    assert.match(recoveryCell(row), /^100% \(CI not available: \d+ of 1000 resamples/);
  });

  test("the declared share is read from the plan: a looser bound gives the CI and still reports the count", () => {
    const row = recovery(rows(40, { direct: 20, map_reduce: 19, map_reduce_options: 20 }), 0.9);
    assert.ok(row.recoveryResamples.undefined > 0, "expected row.recoveryResamples.undefined > 0");
    assert.equal(row.recoveryResamples.ciNotAvailable, null);
    assert.ok(row.recovery.ci95 !== null, "expected row.recovery.ci95 !== null");
    assert.match(
      recoveryCell(row),
      /^100% \[\d+%, \d+%\]( \(the CI passes 100%[^)]*\))? \(\d+ of 1000 resamples undefined\)$/,
    );
  });

  test("a clear loss: no resample is undefined and the CI is given", () => {
    // direct 30/40, map_reduce 10/40, preserving 25/40: recovery 15/20 = 75%.
    const row = recovery(rows(40, { direct: 30, map_reduce: 10, map_reduce_options: 25 }));
    assert.ok(
      Math.abs(row.recovery.estimate! - 0.75) < 1e-12,
      "expected Math.abs(row.recovery.estimate! - 0.75) < 1e-12",
    );
    assert.equal(row.recoveryResamples.undefined, 0);
    assert.equal(row.recoveryResamples.ciNotAvailable, null);
    assert.ok(row.recovery.ci95 !== null, "expected row.recovery.ci95 !== null");
  });
});
