/**
 * bench:paper-scale's table: stage times of a minute or more read as minutes and whole seconds.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type DesignResult, formatRunOnly, NO_VIEWER } from "../../bench/paper-scale.js";

const stage = (wallS: number) => ({ wallS, cpuS: 86, peakRssMb: 272, exit: 0 });

const result = (runWallS: number): DesignResult => ({
  design: "audit",
  trials: 133_200,
  calls: 133_200,
  storeMb: 205,
  firstTrialS: 1.3,
  stages: { plan: stage(4.4), run: stage(runWallS), analyze: stage(0), report: stage(0), status: stage(0) },
  viewer: NO_VIEWER,
});

describe("bench:paper-scale's table", () => {
  it("rounds a stage's time to the second before splitting off the minutes", () => {
    const table = formatRunOnly([result(119.71)]);
    assert.ok(table.includes("| 2 min 0 s / 86 s |"), table);
    assert.ok(!table.includes("60 s"), `no "1 min 60 s": ${table}`);
  });
});
