/**
 * The analysis registry: analyzeStudy's result, the text summary, the scorecard and the report
 * come from the registered analyses, so a new analysis registered from outside (here, from the
 * test) adds its result field, summary lines, scorecard field and report section without editing
 * study.ts, summary.ts, scorecard.ts or report.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AnalysisPlanSchema } from "../../src/contracts/analysis.js";
import {
  type AnalysisContext,
  analyzeStudy,
  buildScorecard,
  cardField,
  formatSummary,
  normalizePlan,
  registerAnalysis,
  registeredAnalyses,
  scorecardMarkdown,
} from "../../src/analysis/index.js";
import { registerCardRenderer, registerReportSection, renderReport } from "../../src/report/index.js";
import { plantedTable } from "./helpers.js";

declare module "../../src/analysis/core/registry.js" {
  interface AnalysisResults {
    toyCount: { rows: number; reference: string };
    toyStarted: { rows: number };
    toyAfter: { sawStarted: boolean };
  }
  interface ScorecardFields {
    toyField: string;
  }
}

const methodology = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

const table = () =>
  plantedTable({
    seed: 5,
    models: { m1: 0, m2: 0.05 },
    benchmarks: ["b1"],
    itemsPerBenchmark: 30,
    effects: { direct: 0, cot: -0.1 },
  });
const fastPlan = () => normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: false });

describe("analysis registry", () => {
  it("fills one StudyAnalysis field per registered analysis, in registration order", async () => {
    const analysis = await analyzeStudy(table(), fastPlan());
    const leftOut = analysis.meta.selection?.leftOut.map((l) => l.analysis) ?? [];
    const expected = registeredAnalyses().flatMap((a) => (a.result && !leftOut.includes(a.name) ? [a.result] : []));
    assert.deepEqual(Object.keys(analysis), ["meta", "counts", ...expected]);
    for (const name of ["rates", "contrasts", "hypotheses", "format", "optionPreserving", "paired", "variance"])
      assert.ok(expected.includes(name as never), name);
    // A comparison study without the paper's H3 benchmarks or the other kinds' designs leaves those out.
    assert.deepEqual(analysis.meta.selection?.kinds, ["comparison"]);
    assert.deepEqual(leftOut.sort(), ["agents", "audit", "bbqBias", "grid", "subhypotheses"]);
  });

  it("every key of the analysis plan is read by a registered analysis (or by the plan resolution)", () => {
    // `families` is read by the study families' analysis (src/analysis/core/families.ts), which runs beside the registry.
    const read = new Set(["comparison_facet", "reference", "families"]);
    for (const a of registeredAnalyses()) {
      const shape = (a.plan as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      for (const key of Object.keys(shape)) read.add(key);
    }
    assert.deepEqual(
      Object.keys(AnalysisPlanSchema.shape).filter((k) => !read.has(k)),
      [],
    );
  });

  it("a new analysis adds its result, summary lines, scorecard field and report section from its own file", async () => {
    registerAnalysis({
      name: "toyCount",
      kinds: "every",
      plan: AnalysisPlanSchema.pick({ population: true }),
      result: "toyCount",
      run: (ctx: AnalysisContext) => ({ rows: ctx.rows.length, reference: ctx.resolved.reference }),
      summary: ({ analysis }) => [`toy: ${analysis.toyCount.rows} rows against ${analysis.toyCount.reference}`],
      card: [
        cardField({
          field: "toyField",
          title: "Toy field",
          build: ({ analysis }) => `toy ${analysis.toyCount.rows}`,
          markdown: (value) => [`- ${value}`],
        }),
      ],
    });
    registerCardRenderer({ field: "toyField", render: (value) => `card says ${value}` });
    registerReportSection({
      name: "toyCount",
      toc: { id: "toy", label: "Toy section" },
      render: ({ analysis }) => `toy section: ${analysis.toyCount.rows}`,
    });
    const t = table();
    const analysis = await analyzeStudy(t, fastPlan());
    assert.deepEqual(analysis.toyCount, { rows: t.rows.length, reference: "direct" });
    assert.match(formatSummary(analysis, methodology), new RegExp(`toy: ${t.rows.length} rows against direct`));
    const card = buildScorecard(analysis, methodology);
    assert.equal(card.toyField, `toy ${t.rows.length}`);
    const markdown = scorecardMarkdown(card);
    assert.match(markdown, /## 4\. Toy field\n\n- toy 120\n/);
    assert.ok(
      markdown.indexOf("## 3. Methodology stamp") < markdown.indexOf("## 4. Toy field"),
      'expected markdown.indexOf("## 3. Methodology stamp") < markdown.indexOf("## 4. Toy field")',
    );
    const html = renderReport({ analysis, methodology }, card, { trialsHref: "trials.html" });
    assert.match(html, /href="#toy">Toy section/);
    assert.match(html, /toy section: 120/);
    assert.match(html, /4\. Toy field<\/h3>card says toy 120/);
    assert.throws(
      () => registerAnalysis({ name: "toyCount", kinds: "every", plan: AnalysisPlanSchema.pick({}) }),
      /registered twice/,
    );
  });

  it("a started analysis starts once its inputs are in, finishes while the later ones run, keeps its place, and its failure rejects", async () => {
    let fail = false;
    let startedBeforeVariance: boolean | undefined;
    registerAnalysis({
      name: "toyStarted",
      kinds: "every",
      plan: AnalysisPlanSchema.pick({}),
      result: "toyStarted",
      startsAfter: ["contrasts"],
      // Finishes on a later turn of the event loop, as work on worker threads does.
      start: async (ctx: AnalysisContext) => {
        startedBeforeVariance = ctx.results.contrasts !== undefined && ctx.results.variance === undefined;
        return {
          result: new Promise<{ rows: number }>((resolve, reject) =>
            setImmediate(() => (fail ? reject(new Error("toy worker failed")) : resolve({ rows: ctx.rows.length }))),
          ),
        };
      },
    });
    registerAnalysis({
      name: "toyAfter",
      kinds: "every",
      plan: AnalysisPlanSchema.pick({}),
      result: "toyAfter",
      run: (ctx: AnalysisContext) => ({ sawStarted: ctx.results.toyStarted !== undefined }),
    });
    const t = table();
    const analysis = await analyzeStudy(t, fastPlan());
    assert.deepEqual(analysis.toyStarted, { rows: t.rows.length });
    assert.equal(startedBeforeVariance, true, "started right after the contrasts, before its turn");
    assert.deepEqual(analysis.toyAfter, { sawStarted: false }, "the later analysis ran before it finished");
    const keys = Object.keys(analysis);
    assert.equal(keys.indexOf("toyAfter"), keys.indexOf("toyStarted") + 1, "results in registration order");
    fail = true;
    await assert.rejects(analyzeStudy(t, fastPlan()), /toy worker failed/);
  });
});
