/**
 * The methodology stamp reports only what was computed: a specification curve none of whose
 * specifications could be fitted reads "not estimable: <its specifications' errors>", never
 * "median OR -, - significant" over 0 specifications; a curve with fits reads its numbers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analyzeStudy,
  buildScorecard,
  normalizePlan,
  scorecardMarkdown,
  type StudyAnalysis,
} from "../../src/analysis/index.js";
import { renderReport } from "../../src/report/index.js";
import { plantedTable } from "./helpers.js";

const METHODOLOGY = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

type Curve = Exclude<NonNullable<StudyAnalysis["specificationCurve"]>, { skipped: string }>;

async function analysisWithCurve(): Promise<StudyAnalysis> {
  const table = plantedTable({
    seed: 4,
    models: { m1: 0, m2: 0.05 },
    benchmarks: ["b1", "b2"],
    itemsPerBenchmark: 30,
    effects: { direct: 0, map_reduce: -0.15 },
  });
  return analyzeStudy(table, normalizePlan({ bootstrap: { resamples: 100 } }));
}

function stampOf(analysis: StudyAnalysis) {
  const card = buildScorecard(analysis, METHODOLOGY);
  const html = renderReport({ analysis, methodology: METHODOLOGY }, card, { trialsHref: "trials.html" });
  const line = scorecardMarkdown(card)
    .split("\n")
    .find((l) => l.startsWith("- Specification curve:"));
  assert.ok(line, "the stamp has a specification-curve line");
  return { line, html };
}

describe("the methodology stamp's specification curve", () => {
  it("a curve with fitted specifications reads its median OR and its count", async () => {
    const analysis = await analysisWithCurve();
    const curve = analysis.specificationCurve as Curve;
    assert.ok(curve && !("skipped" in curve) && curve.summary.n > 0, "the planted curve has fits");
    const { line } = stampOf(analysis);
    assert.match(
      line,
      new RegExp(`run for map_reduce: median OR [\\d.]+, \\d+% significant.*${curve.summary.n} specification`),
    );
  });

  it("a curve none of whose specifications could be fitted reads 'not estimable' with their errors", async () => {
    const analysis = await analysisWithCurve();
    const curve = analysis.specificationCurve as Curve;
    const failed = curve.specifications.map((s) => ({ spec: s.spec, error: "perfect separation" }));
    analysis.specificationCurve = {
      ...curve,
      specifications: [],
      failed,
      summary: { ...curve.summary, n: 0, medianOddsRatio: Number.NaN, shareSignificant: Number.NaN },
      permutation: null,
    };
    const { line, html } = stampOf(analysis);
    assert.equal(
      line,
      `- Specification curve: not estimable: all ${failed.length} specification(s) failed (perfect separation)`,
    );
    assert.doesNotMatch(line, /median OR|0 specification/);
    assert.match(html, /not estimable: all \d+ specification\(s\) failed \(perfect separation\)/);
  });
});
