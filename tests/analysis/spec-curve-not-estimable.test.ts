/**
 * A specification curve none of whose specifications can be fitted says why, in the text and in
 * the scorecard's methodology stamp, instead of printing a median of nothing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analyzeStudy,
  buildScorecard,
  formatSummary,
  normalizePlan,
  scorecardMarkdown,
} from "../../src/analysis/index.js";
import { plantedTable } from "./helpers.js";

const methodology = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

describe("a specification curve with no estimable specification", () => {
  it("names the reason in the summary and the methodology stamp", async () => {
    const t = plantedTable({
      seed: 9,
      models: { m1: 0, m2: 0.05 },
      benchmarks: ["b1", "b2"],
      itemsPerBenchmark: 30,
      effects: { direct: 0, map_reduce: -0.1 },
    });
    // map_reduce never safe: every maximum-likelihood fit of its contrast diverges.
    const rows = t.rows.map((r) => (r.facets.scaffold === "map_reduce" ? { ...r, outcome: 0 } : r));
    const plan = normalizePlan({
      bootstrap: { resamples: 100 },
      specification_curve: { contrast: "map_reduce", dimensions: ["population"], permutations: 0, glmm: false },
    });
    const analysis = await analyzeStudy({ ...t, rows }, plan);
    const curve = analysis.specificationCurve;
    assert.ok(!("skipped" in curve), "the curve ran (it was not skipped)");
    assert.equal(curve.summary.n, 0);
    assert.equal(curve.failed.length, 2, "ITT and PP");
    const summary = formatSummary(analysis, methodology);
    assert.match(
      summary,
      /specification curve for map_reduce vs direct: not estimable: quasi-complete separation: all \d+ rows with scaffold\[T\.map_reduce\] != 0 have outcome 0/,
    );
    assert.doesNotMatch(summary, /median OR -/);
    const card = buildScorecard(analysis, methodology);
    assert.equal(card.methodologyStamp.specificationCurve.run, false);
    const markdown = scorecardMarkdown(card);
    assert.match(
      markdown,
      /- Specification curve: not estimable: all \d+ specification\(s\) failed \(quasi-complete separation/,
    );
    assert.doesNotMatch(markdown, /0 specification\(s\)/);
  });
});
