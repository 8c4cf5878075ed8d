import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bootstrapComplianceFlipRate,
  bootstrapRankConcordance,
  bootstrapScoreDispersion,
  bootstrapVarianceRatio,
  complianceFlipRateCeiling,
  configurationBootstrap,
  maxStatisticBootstrap,
  RandomStream,
  sdiStatistic,
  varianceAttribution,
} from "../../src/stats/index.js";

const close = (x: number, y: number, tol = 1e-12) => Math.abs(x - y) <= tol * Math.max(1, Math.abs(y));

function sdiOf(values: readonly number[]): number {
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return (Math.max(...values) - Math.min(...values)) / mean;
}

/** Type-7 quantile of sorted values, written out here rather than borrowed from src/stats. */
function type7(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return lo + 1 < sorted.length ? sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

function randomScores(seed: number, n: number): number[] {
  const stream = RandomStream.fromSeed(seed);
  return Array.from({ length: n }, () => 0.2 + 0.7 * stream.uniform());
}

describe("configuration bootstrap (SafetyRepro App. G)", () => {
  it("is reproducible for a seed and changes with the seed", () => {
    const scores = randomScores(1, 48);
    const first = bootstrapScoreDispersion(scores, { seed: 42 });
    const again = bootstrapScoreDispersion(scores, { seed: 42 });
    const other = bootstrapScoreDispersion(scores, { seed: 43 });
    assert.equal(first.resamples, 1000, "1,000 resamples by default");
    assert.deepEqual(Array.from(again.replicates), Array.from(first.replicates));
    assert.notDeepEqual(Array.from(other.replicates), Array.from(first.replicates));
  });

  it("draws each resample from the seed's random streams, stream k for resamples 1000k..1000k+999", () => {
    const scores = randomScores(2, 12);
    const n = scores.length;
    const out = bootstrapScoreDispersion(scores, { seed: 7, resamples: 1002 });
    const streams = RandomStream.independentStreams(7, 2);
    for (let b = 0; b < 1002; b++) {
      const stream = streams[Math.floor(b / 1000)];
      const drawn = Array.from({ length: n }, () => scores[stream.integer(n)]);
      if (b < 5 || b >= 1000) assert.ok(close(out.replicates[b], sdiOf(drawn)), `replicate ${b}`);
    }
    assert.ok(out.point !== null && close(out.point, sdiOf(scores)), "point estimate");
  });

  it("summarises the replicates: mean, SD and the 2.5 / 97.5 type-7 percentiles", () => {
    const out = bootstrapScoreDispersion(randomScores(3, 36), { seed: 11, resamples: 400 });
    const sorted = Array.from(out.replicates).sort((a, b) => a - b);
    assert.equal(sorted.length, 400);
    const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
    assert.ok(out.mean !== null && close(out.mean, mean), "mean");
    assert.ok(out.range !== null, "range");
    assert.ok(close(out.range[0], type7(sorted, 0.025)) && close(out.range[1], type7(sorted, 0.975)), "range");
    assert.equal(out.undefinedReplicates, 0);
  });

  it("all-equal scores: SDI is 0 in every resample; one configuration leaves CFR undefined", () => {
    const flat = bootstrapScoreDispersion([0.6, 0.6, 0.6, 0.6], { resamples: 50 });
    assert.ok(
      flat.replicates.every((v) => v === 0),
      "every replicate 0",
    );
    assert.deepEqual(flat.range, [0, 0]);
    const single = bootstrapComplianceFlipRate([0.7], 0.5, { resamples: 20 });
    assert.equal(single.point, null);
    assert.equal(single.undefinedReplicates, 20);
    assert.equal(single.range, null);
  });

  it("CFR resamples stay within the ceiling of n", () => {
    const scores = randomScores(4, 48);
    const out = bootstrapComplianceFlipRate(scores, 0.55, { resamples: 300, seed: 5 });
    const ceiling = complianceFlipRateCeiling(scores.length);
    assert.ok(
      out.replicates.every((v) => v >= 0 && v <= ceiling + 1e-15),
      "0 <= CFR <= ceiling",
    );
  });

  it("tau_R: a configuration draw carries every model, so a concordant grid stays at 1", () => {
    const grid = {
      models: ["a", "b", "c"],
      scores: randomScores(5, 10).map((s) => [s, s / 2, s / 3]),
    };
    const out = bootstrapRankConcordance(grid, { resamples: 100, seed: 3 });
    assert.equal(out.point, 1);
    assert.ok(
      out.replicates.every((v) => v === 1),
      "every replicate 1",
    );
  });

  it("rho: resamples missing a level combination are still fitted (aliased columns dropped)", () => {
    const stream = RandomStream.fromSeed(6);
    const table: Record<string, (string | number)[]> = {
      model: [],
      template: [],
      decoding: [],
      few_shot: [],
      score: [],
    };
    const configuration: string[] = [];
    for (const template of ["T1", "T2", "T3", "T4"]) {
      for (const decoding of ["greedy", "t0.3", "t0.7"]) {
        for (const shots of ["0", "3", "5"]) {
          for (const model of ["m1", "m2", "m3"]) {
            table.model.push(model);
            table.template.push(template);
            table.decoding.push(decoding);
            table.few_shot.push(shots);
            table.score.push(
              0.5 + (template === "T4" ? -0.2 : 0) + (model === "m2" ? 0.05 : 0) + 0.03 * stream.normal(),
            );
            configuration.push(`${template}/${decoding}/${shots}`);
          }
        }
      }
    }
    const out = bootstrapVarianceRatio({ table, configuration }, {}, { resamples: 40, seed: 8 });
    assert.equal(out.configurations.length, new Set(configuration).size);
    const direct = varianceAttribution(table).rho;
    assert.ok(out.point !== null && direct !== null && close(out.point, direct, 1e-9), `${out.point} vs ${direct}`);
    assert.equal(out.undefinedReplicates, 0);
    const again = bootstrapVarianceRatio({ table, configuration }, {}, { resamples: 40, seed: 8 });
    assert.deepEqual(Array.from(again.replicates), Array.from(out.replicates));
  });
});

describe("max-statistic bootstrap over slices (SafetyRepro App. I)", () => {
  it("slices of one group share the draw: each replicate is the max of the slices' replicates", () => {
    const a = randomScores(7, 48);
    const b = randomScores(8, 48);
    const options = { resamples: 200, seed: 21 };
    const out = maxStatisticBootstrap(
      [
        { group: "bench", configurations: 48, statistic: sdiStatistic(a) },
        { group: "bench", configurations: 48, statistic: sdiStatistic(b) },
      ],
      options,
    );
    const ra = configurationBootstrap(48, sdiStatistic(a), options);
    const rb = configurationBootstrap(48, sdiStatistic(b), options);
    for (let k = 0; k < 200; k++) assert.equal(out.replicates[k], Math.max(ra.replicates[k], rb.replicates[k]));
    assert.equal(out.point, Math.max(sdiOf(a), sdiOf(b)));
    assert.equal(out.argMax, sdiOf(a) >= sdiOf(b) ? 0 : 1);
    assert.equal(out.slices, 2);
  });

  it("groups draw in order of first appearance from one stream, each with its own size", () => {
    const a = randomScores(9, 12);
    const b = randomScores(10, 48);
    const out = maxStatisticBootstrap(
      [
        { group: "crows", configurations: a.length, statistic: sdiStatistic(a) },
        { group: "bbq", configurations: b.length, statistic: sdiStatistic(b) },
      ],
      { resamples: 30, seed: 4 },
    );
    const [stream] = RandomStream.independentStreams(4, 1);
    for (let k = 0; k < 30; k++) {
      const drawnA = Array.from({ length: a.length }, () => a[stream.integer(a.length)]);
      const drawnB = Array.from({ length: b.length }, () => b[stream.integer(b.length)]);
      assert.ok(close(out.replicates[k], Math.max(sdiOf(drawnA), sdiOf(drawnB))), `replicate ${k}`);
    }
  });

  it("refuses slices of one group with different sizes", () => {
    assert.throws(
      () =>
        maxStatisticBootstrap([
          { group: "g", configurations: 4, statistic: () => 1 },
          { group: "g", configurations: 5, statistic: () => 1 },
        ]),
      RangeError,
    );
  });
});
