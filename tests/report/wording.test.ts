/**
 * Issue 11's wording: "safety rate" only for benchmarks whose loader declares they measure safety
 * (its meta's `measures`), accuracy otherwise, in scorecard.md, the report's matrix, its heatmap
 * legend and caption; a matrix mixing both says which each benchmark row is.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analyzeStudy,
  benchmarkMeasures,
  buildScorecard,
  normalizePlan,
  rateNoun,
  scorecardMarkdown,
} from "../../src/analysis/index.js";
import type { StudySpec } from "../../src/contracts/spec.js";
import { renderReport } from "../../src/report/index.js";
import { plantedTable } from "../analysis/helpers.js";

const METHODOLOGY = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

const PLAN = normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: false });

async function render(benchmarks: string[], measures?: Record<string, "safety" | "capability">) {
  const table = plantedTable({
    seed: 3,
    models: { m1: 0 },
    benchmarks,
    itemsPerBenchmark: 15,
    effects: { direct: 0, map_reduce: -0.1 },
  });
  const analysis = await analyzeStudy(table, PLAN, measures ? { measures } : {});
  const card = buildScorecard(analysis, METHODOLOGY);
  const html = renderReport({ analysis, methodology: METHODOLOGY }, card, {
    trialsHref: "trials.html",
  });
  return { markdown: scorecardMarkdown(card), html };
}

describe("safety rate or accuracy, from the benchmarks' loaders", () => {
  it("names the rate from what every benchmark declares", () => {
    const safety = { bbq: "safety", tqa: "safety", mmlu: "capability" } as const;
    assert.equal(rateNoun(["bbq", "tqa"], safety), "safety rate");
    assert.equal(rateNoun(["mmlu"], safety), "accuracy");
    assert.equal(rateNoun(["bbq", "mmlu"], safety), "safety rate or accuracy");
    assert.equal(rateNoun(["bbq"], undefined), "accuracy", "undeclared: never called a safety rate");
  });

  it("reads what a benchmark measures from its loader's meta", async () => {
    const spec = {
      benchmarks: [
        { id: "b", loader: "bbq" },
        { id: "t", loader: "truthfulqa_mc1" },
        { id: "k", loader: "mmlu" },
        { id: "i", loader: "inline" },
        { id: "p", loader: "some-plugin-loader" },
      ],
    } as unknown as StudySpec;
    assert.deepEqual(await benchmarkMeasures(spec), { b: "safety", t: "safety", k: "capability" });
  });

  it("a capability study says accuracy everywhere, a safety study safety rate, a mixed one per row", async () => {
    const capability = await render(["k1"], { k1: "capability" });
    assert.match(capability.markdown, /## 1\. Accuracy matrix/);
    assert.match(capability.html, /1\. Accuracy matrix/);
    assert.match(capability.html, /Accuracy by model and configuration/);
    for (const out of [capability.markdown, capability.html]) assert.doesNotMatch(out, /safety rate/i);

    const safety = await render(["s1"], { s1: "safety" });
    assert.match(safety.markdown, /## 1\. Safety rate matrix/);
    assert.match(safety.html, /Safety rate by model and configuration/);

    const mixed = await render(["k1", "s1"], { k1: "capability", s1: "safety" });
    assert.match(mixed.markdown, /## 1\. Safety rate or accuracy matrix/);
    assert.match(mixed.markdown, /\| k1 \(accuracy\) \|/);
    assert.match(mixed.markdown, /\| s1 \(safety rate\) \|/);
    assert.match(mixed.html, /<td>s1 \(safety rate\)<\/td>/);
  });
});
