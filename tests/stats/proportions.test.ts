import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compareTwoProportions,
  altmanInterval,
  numberNeededToHarm,
  oddsRatio,
  type ProportionCiMethod,
  proportionCi,
  RandomStream,
  riskRatio,
  twoProportionZTest,
} from "../../src/stats/index.js";

describe("one proportion", () => {
  it("Wald is unclipped while the clipped variant and the score intervals stay in [0, 1]", () => {
    const wald = proportionCi(1, 20, 0.05, "wald");
    assert.ok(wald[0] < 0, "expected wald[0] < 0");
    assert.equal(proportionCi(1, 20, 0.05, "wald-clipped")[0], 0);
    for (const method of ["wilson", "clopper-pearson", "agresti-coull"] as ProportionCiMethod[]) {
      for (const [x, n] of [
        [0, 20],
        [20, 20],
        [3, 7],
      ]) {
        const [lo, hi] = proportionCi(x, n, 0.05, method);
        assert.ok(lo >= 0 && hi <= 1 + 1e-15 && lo <= x / n + 1e-15 && x / n <= hi + 1e-15, `${method} ${x}/${n}`);
      }
    }
    assert.deepEqual(proportionCi(0, 20, 0.05, "clopper-pearson")[0], 0);
    assert.deepEqual(proportionCi(20, 20, 0.05, "clopper-pearson")[1], 1);
  });

  it("Wilson covers a planted p at about the nominal rate; Clopper-Pearson at least nominally", () => {
    const stream = RandomStream.fromSeed(11);
    const trueP = 0.1;
    const studies = 2000;
    let wilsonHits = 0;
    let exactHits = 0;
    for (let s = 0; s < studies; s++) {
      const x = stream.binomial(60, trueP);
      const [wl, wh] = proportionCi(x, 60, 0.05, "wilson");
      const [el, eh] = proportionCi(x, 60, 0.05, "clopper-pearson");
      if (wl <= trueP && trueP <= wh) wilsonHits++;
      if (el <= trueP && trueP <= eh) exactHits++;
    }
    const se = Math.sqrt((0.95 * 0.05) / studies);
    assert.ok(Math.abs(wilsonHits / studies - 0.95) < 0.02 + 3 * se, `Wilson ${wilsonHits / studies}`);
    assert.ok(exactHits / studies >= 0.95 - 3 * se, `Clopper-Pearson ${exactHits / studies}`);
  });

  it("rejects impossible counts", () => {
    assert.throws(() => proportionCi(5, 4), RangeError);
    assert.throws(() => proportionCi(1, 0), RangeError);
  });
});

describe("two proportions", () => {
  it("recovers a planted risk difference within its CIs", () => {
    const stream = RandomStream.fromSeed(3);
    const n = 4000;
    const counts = { x1: stream.binomial(n, 0.3), n1: n, x2: stream.binomial(n, 0.22), n2: n };
    const r = compareTwoProportions(counts);
    for (const [lo, hi] of [r.riskDifferenceCiWald, r.riskDifferenceCiNewcombe])
      assert.ok(lo < 0.08 && 0.08 < hi, "expected lo < 0.08 && 0.08 < hi");
    assert.ok(
      r.riskRatio.ci![0] < 0.3 / 0.22 && 0.3 / 0.22 < r.riskRatio.ci![1],
      "expected r.riskRatio.ci![0] < 0.3 / 0.22 && 0.3 / 0.22 < r.riskRatio.ci![1]",
    );
    assert.ok(r.zTest.p < 1e-6, "expected r.zTest.p < 1e-6");
    assert.ok(
      r.nnhFromWald.ci![0] < 12.5 && 12.5 < r.nnhFromWald.ci![1],
      "expected r.nnhFromWald.ci![0] < 12.5 && 12.5 < r.nnhFromWald.ci![1]",
    );
  });

  it("says when ratio measures are undefined instead of adding 0.5", () => {
    const rr = riskRatio({ x1: 3, n1: 10, x2: 0, n2: 10 });
    assert.equal(rr.estimate, null);
    assert.equal(rr.ci, null);
    assert.match(rr.undefinedReason ?? "", /events in both groups/);
    const or = oddsRatio({ x1: 10, n1: 10, x2: 4, n2: 10 });
    assert.equal(or.estimate, null);
    assert.match(or.undefinedReason ?? "", /four cells/);
  });

  it("gives NNH = null for RD = 0 and a null NNH CI when the RD CI reaches 0", () => {
    const none = numberNeededToHarm(0, [-0.1, 0.1]);
    assert.deepEqual([none.value, none.ci, none.direction], [null, null, "none"]);
    assert.equal(numberNeededToHarm(0.05, [-0.01, 0.11]).ci, null);
    assert.equal(numberNeededToHarm(0.05, [0, 0.11]).ci, null);
    const nnh = numberNeededToHarm(-0.1, [-0.2, -0.05]);
    assert.equal(nnh.value, 10);
    assert.deepEqual(nnh.ci, [5, 20]);
  });

  it("gives Altman's interval: the inverse of the RD CI's ends, or the disjoint set through infinity", () => {
    // RD CI excludes 0 on the harm side: NNH 1/0.2 = 5 to 1/0.05 = 20.
    assert.deepEqual(altmanInterval([-0.2, -0.05]), { bounded: true, harm: { lower: 5, upper: 20 }, benefit: null });
    // On the benefit side: NNT 1/0.125 = 8 to 1/0.04 = 25.
    assert.deepEqual(altmanInterval([0.04, 0.125]), { bounded: true, harm: null, benefit: { lower: 8, upper: 25 } });
    // Includes 0: NNT 1/0.1 = 10 to infinity to NNH 1/0.25 = 4.
    assert.deepEqual(altmanInterval([-0.25, 0.1]), {
      bounded: false,
      harm: { lower: 4, upper: null },
      benefit: { lower: 10, upper: null },
    });
    // Touches 0: only the harm piece, unbounded (null: infinity, JSON-safe).
    assert.deepEqual(altmanInterval([-0.1, 0]), { bounded: false, harm: { lower: 10, upper: null }, benefit: null });
    const nn = numberNeededToHarm(0.05, [-0.25, 0.1]);
    assert.equal(nn.direction, "benefit");
    assert.deepEqual(nn.interval, altmanInterval([-0.25, 0.1]));
  });

  it("z test is symmetric in the groups", () => {
    const a = twoProportionZTest({ x1: 30, n1: 100, x2: 45, n2: 120 });
    const b = twoProportionZTest({ x1: 45, n1: 120, x2: 30, n2: 100 });
    assert.equal(a.z, -b.z);
    assert.equal(a.p, b.p);
  });
});
