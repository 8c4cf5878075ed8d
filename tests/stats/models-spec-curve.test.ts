import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  enumerateSpecifications,
  permutationSeeds,
  runSpecificationCurve,
  seededRandom,
  summarizeCurve,
} from "../../src/stats/models/index.js";
import { normalSf } from "../../src/stats/models/tails.js";

/** Two groups with an optional planted shift; the analysis compares means under researcher choices. */
function dataset(shift: number, seed: number) {
  const random = seededRandom(seed);
  const treated = Array.from({ length: 200 }, (_, i) => i % 2 === 1);
  const y = treated.map((t) => (t ? shift : 0) + random.normal() + (random.uniform() < 0.05 ? 6 : 0));
  const subgroup = treated.map(() => (random.uniform() < 0.5 ? "x" : "y"));
  return { treated, y, subgroup };
}

type Data = ReturnType<typeof dataset>;

function analysis(data: Data, labels: boolean[], spec: Record<string, string | number | boolean>) {
  const keep = data.y.map(
    (v, i) => (spec.trim ? Math.abs(v) < 4 : true) && (spec.subset === "all" || data.subgroup[i] === spec.subset),
  );
  const groups = [0, 1].map((g) => data.y.filter((_, i) => keep[i] && labels[i] === (g === 1)));
  const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
  const variance = (a: number[]) => a.reduce((s, v) => s + (v - mean(a)) ** 2, 0) / (a.length - 1);
  const estimate = mean(groups[1]) - mean(groups[0]);
  const se = Math.sqrt(variance(groups[0]) / groups[0].length + variance(groups[1]) / groups[1].length);
  return { estimate, p: 2 * normalSf(Math.abs(estimate / se)) };
}

const dimensions = [
  { name: "trim", options: [false, true] },
  { name: "subset", options: ["all", "x", "y"] },
];

describe("specification curve", () => {
  it("enumerates the cartesian product, first dimension slowest", () => {
    const specs = enumerateSpecifications(dimensions);
    assert.equal(specs.length, 6);
    assert.deepEqual(specs[0], { trim: false, subset: "all" });
    assert.deepEqual(specs[1], { trim: false, subset: "x" });
    assert.deepEqual(specs[5], { trim: true, subset: "y" });
  });

  it("summarizes the curve by median, IQR and share significant", () => {
    const results = [0.1, 0.5, 0.3, 0.2].map((estimate, i) => ({ estimate, p: i < 3 ? 0.01 : 0.2 }));
    const summary = summarizeCurve(results, 0.05);
    assert.equal(summary.median, 0.25);
    assert.ok(
      Math.abs(summary.q1 - 0.175) < 1e-15 && Math.abs(summary.q3 - 0.35) < 1e-15,
      "expected Math.abs(summary.q1 - 0.175) < 1e-15 && Math.abs(summary.q3 - 0.35) < 1e-15",
    );
    assert.equal(summary.shareSignificant, 0.75);
    assert.equal(summary.shareSignificantInDirection, 0.75);
  });

  it("rejects under a planted effect and not under the null, with shared per-permutation shuffles", async () => {
    for (const [shift, expectSignificant] of [
      [0.6, true],
      [0, false],
    ] as const) {
      const data = dataset(shift, shift === 0 ? 7 : 8);
      const seen = new Map<number, string>();
      const curve = await runSpecificationCurve({
        dimensions,
        analyze: (spec) => analysis(data, data.treated, spec),
        permutation: {
          count: 99,
          seed: 1,
          analyzePermuted: (spec, permute) => {
            const labels = permute(data.treated);
            // Every specification within one permutation must see the same shuffle.
            const key = labels.map(Number).join("");
            const index = seen.size;
            if (spec.trim === false && spec.subset === "all") seen.set(index, key);
            else assert.equal(key, [...seen.values()].at(-1));
            return analysis(data, labels, spec);
          },
        },
      });
      assert.equal(curve.specifications.length, 6);
      const perm = curve.permutation!;
      assert.equal(perm.nullSummaries.length, 99);
      assert.ok(perm.pMedian >= 0.01, "p is never below 1/(K+1)");
      if (expectSignificant)
        assert.ok(perm.pMedian === 0.01 && curve.summary.shareSignificant > 0.5, `p ${perm.pMedian}`);
      else assert.ok(perm.pMedian > 0.05, `null p ${perm.pMedian}`);
    }
  });

  it("gives the same test when the caller computes every null curve at once from the permutations' seeds", async () => {
    const data = dataset(0.3, 9);
    const inTurnSeeds: number[] = [];
    const inTurn = await runSpecificationCurve({
      dimensions,
      analyze: (spec) => analysis(data, data.treated, spec),
      permutation: {
        count: 19,
        seed: 4,
        analyzePermuted: (spec, permute, permutationSeed) => {
          if (inTurnSeeds.at(-1) !== permutationSeed) inTurnSeeds.push(permutationSeed);
          return analysis(data, permute(data.treated), spec);
        },
      },
    });
    const atOnce = await runSpecificationCurve({
      dimensions,
      analyze: (spec) => analysis(data, data.treated, spec),
      permutation: {
        count: 19,
        seed: 4,
        nullCurves: async (specs, seeds) => {
          assert.deepEqual(seeds, inTurnSeeds);
          // Computed last permutation first, as another thread's share may arrive: placed by k.
          const curves = [...seeds].reverse().map((seed) => {
            const labels = seededRandom(seed).shuffle(data.treated);
            return specs.map((spec) => analysis(data, labels, spec));
          });
          return curves.reverse();
        },
      },
    });
    assert.deepEqual(permutationSeeds(4, 19), inTurnSeeds);
    assert.deepEqual(atOnce, inTurn);
  });
});
