import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anova, dStudy, generalizabilityStudy, seededRandom } from "../../src/stats/models/index.js";

/** Long table of cell values for objects x facets, y = object + facet effects + interaction noise. */
function cells(objects: number, facets: number[], seed: number, interactionSd: number) {
  const random = seededRandom(seed);
  const object: string[] = [];
  const f1: string[] = [];
  const f2: string[] = [];
  const value: number[] = [];
  const objectEffect = Array.from({ length: objects }, () => random.normal());
  const facetEffect = Array.from({ length: facets[0] }, () => 0.5 * random.normal());
  for (let p = 0; p < objects; p++) {
    for (let i = 0; i < facets[0]; i++) {
      for (let j = 0; j < (facets[1] ?? 1); j++) {
        object.push(`p${p}`);
        f1.push(`i${i}`);
        f2.push(`j${j}`);
        value.push(objectEffect[p] + facetEffect[i] + interactionSd * random.normal());
      }
    }
  }
  return { object, f1, f2, value: Float64Array.from(value) };
}

const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));

describe("generalizability analysis", () => {
  it("estimates p x i components that agree with the ANOVA mean squares", () => {
    const data = cells(12, [5], 1, 0.7);
    const g = generalizabilityStudy(data, { object: "object", facets: ["f1"], value: "value" });
    const table = anova(
      { object: data.object, f1: data.f1, value: data.value },
      { response: "value", terms: ["object", "f1"] },
    );
    const msP = table.type1[0].ss / table.type1[0].df;
    const msI = table.type1[1].ss / table.type1[1].df;
    const [p, i, pi] = g.components;
    assert.ok(close(pi.estimate, table.msResidual), "expected close(pi.estimate, table.msResidual)");
    assert.ok(
      close(p.estimate, (msP - table.msResidual) / 5),
      "expected close(p.estimate, (msP - table.msResidual) / 5)",
    );
    assert.ok(
      close(i.estimate, (msI - table.msResidual) / 12),
      "expected close(i.estimate, (msI - table.msResidual) / 12)",
    );
    assert.ok(
      close(g.observed.generalizability, p.truncated / (p.truncated + pi.truncated / 5)),
      "expected close(g.observed.generalizability, p.truncated / (p.truncated + pi.truncated / 5))",
    );
    assert.ok(
      close(g.observed.dependability, p.truncated / (p.truncated + (pi.truncated + i.truncated) / 5)),
      "expected close(g.observed.dependability, p.truncated / (p.truncated + (pi.truncated + i.truncate...",
    );
  });

  it("estimates p x i x j components that agree with the three-way ANOVA mean squares", () => {
    const data = cells(6, [4, 3], 2, 0.5);
    const g = generalizabilityStudy(data, { object: "object", facets: ["f1", "f2"], value: "value" });
    const terms = ["object", "f1", "f2", "object:f1", "object:f2", "f1:f2"];
    const table = anova(
      { object: data.object, f1: data.f1, f2: data.f2, value: data.value },
      { response: "value", terms },
    );
    const ms = Object.fromEntries(table.type1.map((r) => [r.term, r.ss / r.df]));
    const pij = table.msResidual;
    const byName = Object.fromEntries(g.components.map((c) => [c.source, c.estimate]));
    assert.ok(close(byName["p:f1:f2"], pij), 'expected close(byName["p:f1:f2"], pij)');
    assert.ok(
      close(byName.p, (ms.object - ms["object:f1"] - ms["object:f2"] + pij) / 12),
      'expected close(byName.p, (ms.object - ms["object:f1"] - ms["object:f2"] + pij) / 12)',
    );
    assert.ok(
      close(byName["p:f1"], (ms["object:f1"] - pij) / 3),
      'expected close(byName["p:f1"], (ms["object:f1"] - pij) / 3)',
    );
    assert.ok(
      close(byName["f1:f2"], (ms["f1:f2"] - pij) / 6),
      'expected close(byName["f1:f2"], (ms["f1:f2"] - pij) / 6)',
    );
  });

  it("reaches 1 without interaction, grows with n' in a D-study, and bootstraps reproducibly", () => {
    const additive = cells(8, [4], 3, 0);
    assert.ok(
      close(
        generalizabilityStudy(additive, { object: "object", facets: ["f1"], value: "value" }).observed.generalizability,
        1,
      ),
      'expected close( generalizabilityStudy(additive, { object: "object", facets: ["f1"], value: "valu...',
    );
    const data = cells(10, [3], 4, 1.5);
    const spec = { object: "object", facets: ["f1"], value: "value", bootstrap: { resamples: 500, seed: 42 } };
    const g = generalizabilityStudy(data, { ...spec, dStudySizes: [12] });
    assert.ok(
      g.projected.generalizability > g.observed.generalizability,
      "expected g.projected.generalizability > g.observed.generalizability",
    );
    assert.ok(
      close(dStudy(g.components, [3]).generalizability, g.observed.generalizability),
      "expected close(dStudy(g.components, [3]).generalizability, g.observed.generalizability)",
    );
    const again = generalizabilityStudy(data, { ...spec, dStudySizes: [12] });
    assert.deepEqual(again.bootstrap, g.bootstrap);
    const [lo, hi] = g.bootstrap!.ci;
    assert.ok(lo < g.projected.generalizability && g.projected.generalizability < hi, `${lo} ${hi}`);
  });

  it("averages over a fixed facet with equal weight per level and rejects incomplete crossing", () => {
    // Object p1's fixed level 'x' has 3 rows, 'y' one row: the cell mean is (mean_x + mean_y)/2.
    const table = {
      object: ["p1", "p1", "p1", "p1", "p1", "p1", "p2", "p2", "p2", "p2"],
      facet: ["a", "a", "a", "a", "b", "b", "a", "a", "b", "b"],
      fixed: ["x", "x", "x", "y", "x", "y", "x", "y", "x", "y"],
      value: Float64Array.from([1, 1, 1, 0, 1, 0, 0, 0, 1, 1]),
    };
    const g = generalizabilityStudy(table, {
      object: "object",
      facets: ["facet"],
      fixedFacets: ["fixed"],
      value: "value",
    });
    // Cells: p1a = 0.5, p1b = 0.5, p2a = 0, p2b = 1 -> MS_pi = 0.25 (hand computed).
    assert.ok(close(g.components[2].estimate, 0.25), "expected close(g.components[2].estimate, 0.25)");
    assert.throws(
      () =>
        generalizabilityStudy(
          { ...table, facet: ["a", "a", "a", "a", "a", "a", "a", "a", "b", "b"] },
          { object: "object", facets: ["facet"], value: "value" },
        ),
      /not fully crossed/,
    );
  });
});

describe("D-study with fixed facets (Brennan 2001, ch. 4)", () => {
  // Components written by hand; sizes n'_i = 2, n'_j = 3.
  const c = (source: string, v: number) => ({ source, meanSquare: Number.NaN, df: 1, estimate: v, truncated: v });
  const components = [
    c("p", 0.01),
    c("i", 0.02),
    c("j", 0.03),
    c("p:i", 0.004),
    c("p:j", 0.006),
    c("i:j", 0.001),
    c("p:i:j", 0.008),
  ];
  const near = (a: number, b: number) => Math.abs(a - b) < 1e-12;

  it("all random: delta sums the p x facet components over their sizes", () => {
    const d = dStudy(components, [2, 3]);
    const delta = 0.004 / 2 + 0.006 / 3 + 0.008 / 6;
    assert.ok(near(d.generalizability, 0.01 / (0.01 + delta)), String(d.generalizability));
    assert.ok(
      near(d.dependability, 0.01 / (0.01 + delta + 0.02 / 2 + 0.03 / 3 + 0.001 / 6)),
      "expected near(d.dependability, 0.01 / (0.01 + delta + 0.02 / 2 + 0.03 / 3 + 0.001 / 6))",
    );
  });

  it("i fixed: p x i joins the universe score; facet i and its p/i-only parts are not error", () => {
    const d = dStudy(components, [2, 3], ["i"]);
    const tau = 0.01 + 0.004 / 2;
    const delta = 0.006 / 3 + 0.008 / 6;
    const absolute = delta + 0.03 / 3 + 0.001 / 6;
    assert.ok(near(d.universeScoreVariance, tau), "expected near(d.universeScoreVariance, tau)");
    assert.ok(near(d.generalizability, tau / (tau + delta)), "expected near(d.generalizability, tau / (tau + delta))");
    assert.ok(near(d.dependability, tau / (tau + absolute)), "expected near(d.dependability, tau / (tau + absolute))");
    assert.deepEqual(d.fixed, ["i"]);
  });

  it("both fixed: no error, E rho^2 = Phi = 1 and tau takes every p component", () => {
    const d = dStudy(components, [2, 3], ["i", "j"]);
    assert.ok(
      near(d.universeScoreVariance, 0.01 + 0.004 / 2 + 0.006 / 3 + 0.008 / 6),
      "expected near(d.universeScoreVariance, 0.01 + 0.004 / 2 + 0.006 / 3 + 0.008 / 6)",
    );
    assert.equal(d.relativeErrorVariance, 0);
    assert.equal(d.generalizability, 1);
    assert.equal(d.dependability, 1);
  });
});
