import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anova, seededRandom } from "../../src/stats/models/index.js";

function table(n: number, seed: number, dropEvery = 0) {
  const random = seededRandom(seed);
  const a: string[] = [];
  const b: string[] = [];
  const noise: string[] = [];
  const y: number[] = [];
  let row = 0;
  for (const la of ["a1", "a2", "a3"]) {
    for (const lb of ["b1", "b2", "b3", "b4"]) {
      for (let r = 0; r < n; r++) {
        row++;
        if (dropEvery && row % dropEvery === 0) continue;
        a.push(la);
        b.push(lb);
        noise.push(random.uniform() < 0.5 ? "n1" : "n2");
        y.push(
          (la === "a2" ? 0.8 : 0) + (lb === "b4" ? -1 : 0) + (la === "a3" && lb === "b1" ? 1.5 : 0) + random.normal(),
        );
      }
    }
  }
  return { a, b, noise, y: Float64Array.from(y) };
}

const close = (x: number, y: number, tol = 1e-9) => Math.abs(x - y) <= tol * Math.max(1, Math.abs(y));

describe("ANOVA", () => {
  it("gives identical Type I, II and III sums of squares on balanced data, adding up to SS_total", () => {
    const result = anova(table(10, 1), { response: "y", terms: ["a", "b", "a:b"] });
    for (let t = 0; t < 3; t++) {
      assert.ok(
        close(result.type1[t].ss, result.type2[t].ss),
        "expected close(result.type1[t].ss, result.type2[t].ss)",
      );
      assert.ok(close(result.type2[t].ss, result.type3[t + 1].ss), result.type2[t].term);
    }
    const explained = result.type1.reduce((s, r) => s + r.ss, 0);
    assert.ok(close(explained + result.rss, result.ssTotal), "expected close(explained + result.rss, result.ssTotal)");
    assert.equal(result.dfResidual, 120 - 12);
    assert.equal(result.type3[0].term, "Intercept");
    assert.equal(result.type3[0].etaSq, undefined);
  });

  it("detects planted effects and interactions, not a null factor, on unbalanced data", () => {
    const result = anova(table(20, 2, 7), { response: "y", terms: ["a", "b", "noise", "a:b"] });
    const byTerm = Object.fromEntries(result.type2.map((r) => [r.term, r]));
    assert.ok(byTerm.a.p < 0.01 && byTerm.b.p < 1e-6, "main effects");
    assert.ok(byTerm["a:b"].p < 0.01, "interaction");
    assert.ok(byTerm.noise.p > 0.01, "null factor");
    for (const r of result.type2) {
      assert.ok(close(r.etaSq!, r.ss / result.ssTotal), "expected close(r.etaSq!, r.ss / result.ssTotal)");
      assert.ok(
        r.omegaSq! >= 0 && close(r.omegaSq!, Math.max(r.omegaSqUnclipped!, 0)),
        "expected r.omegaSq! >= 0 && close(r.omegaSq!, Math.max(r.omegaSqUnclipped!, 0))",
      );
      assert.ok(close(r.F, r.ss / r.df / result.msResidual), "expected close(r.F, r.ss / r.df / result.msResidual)");
    }
  });

  it("makes Type II equal Type III for an additive model, and Type III invariant to level order", () => {
    const data = table(9, 3, 5);
    const additive = anova(data, { response: "y", terms: ["a", "b"] });
    assert.ok(
      close(additive.type2[0].ss, additive.type3[1].ss),
      "expected close(additive.type2[0].ss, additive.type3[1].ss)",
    );
    assert.ok(
      close(additive.type2[1].ss, additive.type3[2].ss),
      "expected close(additive.type2[1].ss, additive.type3[2].ss)",
    );
    const full = anova(data, { response: "y", terms: ["a", "b", "a:b"] });
    const reordered = anova(data, {
      response: "y",
      terms: ["a", "b", "a:b"],
      factors: { a: { levels: ["a3", "a1", "a2"] }, b: { levels: ["b2", "b4", "b1", "b3"] } },
    });
    full.type3.forEach((r, i) => {
      assert.ok(close(r.ss, reordered.type3[i].ss), r.term);
    });
    // Type I depends on order on unbalanced data; Type II does not.
    const swapped = anova(data, { response: "y", terms: ["b", "a", "a:b"] });
    assert.ok(close(full.type2[0].ss, swapped.type2[1].ss), "expected close(full.type2[0].ss, swapped.type2[1].ss)");
    assert.ok(
      !close(full.type1[0].ss, swapped.type1[1].ss, 1e-6),
      "expected !close(full.type1[0].ss, swapped.type1[1].ss, 1e-6)",
    );
  });
});
