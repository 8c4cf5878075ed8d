import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  kendallTauB,
  kendallTauBCoefficient,
  RandomStream,
  rankConcordance,
  tauRStatistic,
  varianceAttribution,
  varianceRatioStatistic,
} from "../../src/stats/index.js";

/** Scores on a coarse grid of values, so ties within and across rankings are common. */
function coarseScores(stream: RandomStream, rows: number, models: number): number[][] {
  return Array.from({ length: rows }, () => Array.from({ length: models }, () => stream.integer(4) / 4));
}

describe("tau_R fast paths", () => {
  it("kendallTauBCoefficient equals kendallTauB's tau-b, ties included", () => {
    const stream = RandomStream.fromSeed(7);
    for (let k = 0; k < 300; k++) {
      const n = 2 + stream.integer(6);
      const [x, y] = coarseScores(stream, 2, n);
      const expected = kendallTauB(x, y).tauB;
      const got = kendallTauBCoefficient(x, y);
      if (Number.isNaN(expected)) assert.ok(Number.isNaN(got), "expected Number.isNaN(got)");
      else assert.ok(Math.abs(got - expected) < 1e-12, `${x} vs ${y}: ${got} != ${expected}`);
    }
  });

  it("tauRStatistic equals rankConcordance on the drawn configurations, repeats included", () => {
    const stream = RandomStream.fromSeed(11);
    const grid = { models: ["a", "b", "c"], scores: coarseScores(stream, 12, 3) };
    const statistic = tauRStatistic(grid);
    for (let k = 0; k < 50; k++) {
      const drawn = new Int32Array(12);
      stream.fillIntegers(drawn, 12);
      const expected = rankConcordance({ models: grid.models, scores: Array.from(drawn, (c) => grid.scores[c]) }).tauR;
      const got = statistic(drawn);
      if (expected === null) assert.equal(got, null);
      else
        assert.ok(
          Math.abs((got ?? Number.NaN) - expected) < 1e-12,
          "expected Math.abs((got ?? Number.NaN) - expected) < 1e-12",
        );
    }
  });
});

describe("rho under the configuration bootstrap (prepared Type II design)", () => {
  // 3 models x (3 templates x 2 decodings x 2 few-shot) configurations, noisy planted scores.
  const stream = RandomStream.fromSeed(5);
  const score: number[] = [];
  const columns: Record<string, string[]> = { model: [], template: [], decoding: [], few_shot: [] };
  const configuration: string[] = [];
  for (const t of ["T1", "T2", "T3"])
    for (const d of ["greedy", "moderate"])
      for (const f of ["0", "3"])
        for (const [m, shift] of [
          ["a", 0.1],
          ["b", 0],
          ["c", -0.05],
        ] as const) {
          score.push(0.5 + shift + (t === "T3" ? 0.2 : 0) + (d === "moderate" ? -0.05 : 0) + 0.05 * stream.normal());
          columns.model.push(m);
          columns.template.push(t);
          columns.decoding.push(d);
          columns.few_shot.push(f);
          configuration.push(`${t}|${d}|${f}`);
        }
  const table = { score: Float64Array.from(score), ...columns };

  it("equals varianceAttribution refitted on the resampled rows, including resamples that miss levels", () => {
    const { configurations, statistic } = varianceRatioStatistic({ table, configuration });
    for (let k = 0; k < 60; k++) {
      const drawn = new Int32Array(configurations.length);
      stream.fillIntegers(drawn, configurations.length);
      const rows = Array.from(drawn, (c) =>
        configuration.flatMap((name, r) => (name === configurations[c] ? [r] : [])),
      ).flat();
      const resampled = Object.fromEntries(Object.entries(table).map(([name, col]) => [name, rows.map((r) => col[r])]));
      let expected: number | null;
      try {
        expected = varianceAttribution(resampled, { aliased: "drop" }).rho;
      } catch {
        expected = null;
      }
      const got = statistic(drawn);
      if (expected === null) assert.equal(got, null);
      else
        assert.ok(
          Math.abs((got ?? Number.NaN) - expected) < 1e-9 * Math.max(1, Math.abs(expected)),
          `${got} != ${expected}`,
        );
    }
  });

  it("gives the full-data rho on the identity draw", () => {
    const { configurations, statistic } = varianceRatioStatistic({ table, configuration });
    const identity = Int32Array.from(configurations, (_, c) => c);
    assert.ok(
      Math.abs((statistic(identity) ?? Number.NaN) - varianceAttribution(table).rho!) < 1e-9,
      "expected Math.abs((statistic(identity) ?? Number.NaN) - varianceAttribution(table).rho!) < 1e-9",
    );
  });
});
