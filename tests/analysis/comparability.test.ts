/**
 * Comparability and minimum information on planted tables: a contrast is computed on the cases
 * both sides share (paired), two sides without a shared case are not comparable (no RD, CI, NNH
 * or test), an unpaired comparison is made only when the plan asks and is labelled so, and a
 * contrast on fewer cases than the plan's minimum reads "not interpretable: N cases" with its
 * intervals withheld. Expected values are counted from the rows here.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analyzeStudy,
  buildScorecard,
  formatOverview,
  formatSummary,
  normalizePlan,
  type StudyAnalysis,
} from "../../src/analysis/index.js";
import type { AnalysisPlanInput } from "../../src/contracts/analysis.js";
import { type AnalysisRow, type AnalysisTable, clusterKey } from "../../src/analysis/core/table.js";
import { plantedTable } from "./helpers.js";

const NOW = () => new Date("2026-01-01T00:00:00Z");
const METHODOLOGY = {
  preregistration: { status: "not preregistered", note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "test" },
  judgeAgreement: { status: "none", note: "test" },
} as never;

/** Keeps the rows `keep` accepts (by condition and item number within its benchmark). */
function subset(table: AnalysisTable, keep: (condition: string, item: number) => boolean): AnalysisTable {
  const number = (r: AnalysisRow) => Number(r.item.split("-").at(-1));
  return { ...table, rows: table.rows.filter((r) => keep(r.facets.scaffold, number(r))) };
}

function analyze(table: AnalysisTable, plan: AnalysisPlanInput = {}): Promise<StudyAnalysis> {
  return analyzeStudy(table, normalizePlan({ bootstrap: { resamples: 400 }, specification_curve: false, ...plan }), {
    now: NOW,
  });
}

/** Successes and n of a condition's rows on these items. */
function counted(table: AnalysisTable, condition: string, items: (n: number) => boolean) {
  const rows = table.rows.filter(
    (r) => r.facets.scaffold === condition && items(Number(r.item.split("-").at(-1))) && !r.parseFailed,
  );
  const successes = rows.filter((r) => r.outcome === 1).length;
  return { n: rows.length, rate: successes / rows.length };
}

const planted = plantedTable({
  seed: 11,
  models: { "m-a": 0, "m-b": 0.05 },
  benchmarks: ["bbq"],
  itemsPerBenchmark: 120,
  effects: { direct: 0, react: -0.25 },
  baseline: [0.6, 0.9],
});

describe("comparability: contrasts on shared items only", () => {
  it("recovers a planted effect on the shared items with paired statistics, ignoring items only one side has", async () => {
    // The reference also ran items 81-120, the condition did not: those items are not paired.
    const table = subset(planted, (c, i) => c === "direct" || i <= 80);
    const analysis = await analyze(table);
    const [contrast] = analysis.contrasts.itt.pooled.contrasts;
    assert.equal(contrast.pairing?.mode, "paired");
    assert.equal(contrast.pairing?.shared, 2 * 80, "80 items seen by two models");
    const shared = (i: number) => i <= 80;
    const ref = counted(table, "direct", shared);
    const cond = counted(table, "react", shared);
    assert.equal(contrast.referenceRate.n, ref.n, "the reference rate is read on the shared items");
    assert.equal(contrast.rate?.n, cond.n);
    assert.ok(
      Math.abs((contrast.riskDifference?.estimate ?? Number.NaN) - (cond.rate - ref.rate)) < 1e-12,
      "RD = difference of the rates on the shared items",
    );
    assert.ok((contrast.riskDifference?.ci95[1] ?? 0) < 0, `the planted harm is found: ${contrast.verdict}`);
    assert.equal(contrast.verdict, "degrades");
    // The unpaired reading mixes in the reference-only items: a different reference rate.
    const all = counted(table, "direct", () => true);
    assert.notEqual(all.rate, ref.rate, "the planted table's extra items differ (else the test proves nothing)");
  });

  it("a crossed design keeps its joint contrasts: the same numbers as every row", async () => {
    const analysis = await analyze(planted);
    const [contrast] = analysis.contrasts.itt.pooled.contrasts;
    const all = (c: string) => counted(planted, c, () => true);
    assert.equal(contrast.pairing?.mode, "paired");
    assert.equal(contrast.rate?.n, all("react").n);
    assert.equal(contrast.referenceRate.n, all("direct").n);
  });

  it("reads 'not comparable' with no RD, CI, NNH or test when the sides share no item", async () => {
    const table = subset(planted, (c, i) => (c === "direct" ? i <= 60 : i > 60));
    const analysis = await analyze(table);
    const [contrast] = analysis.contrasts.itt.pooled.contrasts;
    assert.equal(contrast.verdict, "not comparable: no shared items");
    assert.equal(contrast.riskDifference, null);
    assert.equal(contrast.nnh, null);
    assert.equal(contrast.equivalence, null);
    assert.ok("error" in contrast.oddsRatio, "no odds ratio");
    assert.equal(contrast.pairing?.shared, 0);
    const card = buildScorecard(analysis, METHODOLOGY);
    for (const row of card.nnh.rows) {
      assert.equal(row.riskDifference, null, `${row.scope}: no RD`);
      assert.equal(row.nnh, null, `${row.scope}: no NNH`);
    }
    assert.deepEqual(analysis.independenceCi.rows, [], "no independence interval between different item sets");
    const overview = formatOverview(analysis, METHODOLOGY);
    assert.match(overview, /react .* not comparable: no shared items/);
    assert.doesNotMatch(overview, /NN[HT] \d/, "no number needed");
    assert.doesNotMatch(formatSummary(analysis, METHODOLOGY), /react +\d+\.\d% +[-+]\d/, "no RD in --full");
  });

  it("compares different item sets only when the plan asks, labelled unpaired", async () => {
    const table = subset(planted, (c, i) => (c === "direct" ? i <= 60 : i > 60));
    const analysis = await analyze(table, { comparability: "unpaired" });
    const [contrast] = analysis.contrasts.itt.pooled.contrasts;
    assert.equal(contrast.pairing?.mode, "unpaired");
    const ref = counted(table, "direct", () => true);
    const cond = counted(table, "react", () => true);
    assert.ok(Math.abs((contrast.riskDifference?.estimate ?? Number.NaN) - (cond.rate - ref.rate)) < 1e-12, "RD");
    assert.match(contrast.verdict, /\(unpaired: different item sets\)$/);
  });
});

describe("minimum information", () => {
  it("a contrast on fewer shared cases than the minimum reads not interpretable with its count, intervals withheld", async () => {
    // One model, four shared items (plus the reference's others).
    const oneModel: AnalysisTable = { ...planted, rows: planted.rows.filter((r) => r.model === "m-a") };
    const table = subset(oneModel, (c, i) => c === "direct" || i <= 4);
    const analysis = await analyze(table);
    const [contrast] = analysis.contrasts.itt.pooled.contrasts;
    assert.equal(contrast.verdict, "not interpretable: 4 cases");
    assert.equal(contrast.withheld, "4 cases");
    const check = analysis.integrity.checks.find((c) => c.check === "min_information");
    assert.equal(check?.status, "fail");
    const card = buildScorecard(analysis, METHODOLOGY);
    const row = card.nnh.rows.find((r) => r.scope === "pooled");
    assert.equal(row?.rdCi95, null, "no interval shown");
    assert.equal(row?.nnh, null, "no number needed shown");
    const line = formatOverview(analysis, METHODOLOGY)
      .split("\n")
      .find((l) => l.startsWith("react"));
    assert.ok(line && !line.includes("["), `no interval on the row: ${line}`);
    assert.match(line ?? "", /not interpretable: 4 cases/);

    // The threshold is the plan's: at a minimum of 4 the same contrast is read.
    const lowered = await analyze(table, { integrity: { min_cases: 4 } });
    assert.ok(!lowered.contrasts.itt.pooled.contrasts[0].notInterpretable, "read at min_cases 4");
  });

  it("one case: not interpretable, no [RD, RD] interval shown", async () => {
    const oneModel: AnalysisTable = { ...planted, rows: planted.rows.filter((r) => r.model === "m-a") };
    const table = subset(oneModel, (c, i) => c === "direct" || i === 1);
    const analysis = await analyze(table);
    const [contrast] = analysis.contrasts.itt.pooled.contrasts;
    assert.equal(contrast.verdict, "not interpretable: 1 case");
    const summary = formatSummary(analysis, METHODOLOGY);
    const rows = summary.split("\n").filter((l) => l.startsWith("react "));
    assert.ok(rows.length > 0, "the contrast rows are printed");
    for (const l of rows) assert.ok(!/pp \[/.test(l), `no interval: ${l}`);
  });

  it("warns when an arm's expected count under the pooled rate is below min_expected (Wald and chi-square approximate)", async () => {
    // 20 items, one model: every reference answer right, the condition wrong on one item.
    const rows: AnalysisRow[] = [];
    for (let i = 1; i <= 20; i++)
      for (const condition of ["direct", "react"])
        rows.push({
          ...planted.rows[0],
          item: `bbq-${String(i).padStart(4, "0")}`,
          cluster: clusterKey("bbq", `bbq-${String(i).padStart(4, "0")}`),
          model: "m",
          facets: { scaffold: condition },
          outcome: condition === "react" && i === 1 ? 0 : 1,
          parseFailed: false,
        });
    const analysis = await analyze({ ...planted, rows });
    const check = analysis.integrity.checks.find((c) => c.check === "min_information");
    const finding = check?.cells.find((f) => f.scope === "pooled" && f.condition === "react");
    // Pooled rate 39/40: each arm of 20 expects 0.5 failures.
    assert.equal(finding?.status, "warn");
    assert.match(finding?.reason ?? "", /^smallest expected count 0\.5 \(< 5\)/);
    assert.ok(!analysis.contrasts.itt.pooled.contrasts[0].notInterpretable, "a warning, no downgrade");
  });

  it("a rank correlation's p value on fewer items than the minimum is not read", async () => {
    const table = plantedTable({
      seed: 5,
      models: { m: 0 },
      benchmarks: ["b"],
      itemsPerBenchmark: 8,
      effects: { direct: 0, react: -0.1 },
    });
    const analysis = await analyze(table, { integrity: { min_cases: 2 } });
    const [difficulty] = analysis.paired.difficulty;
    assert.equal(difficulty.items, 8);
    assert.equal(difficulty.pNotInterpretable, "8 items (< 10)");
    assert.match(
      formatSummary(analysis, METHODOLOGY),
      /Spearman rho -?\d\.\d\d \(8 items; p not interpretable: 8 items \(< 10\)\)/,
    );
    const read = await analyze(table, { integrity: { min_cases: 2, min_rank_items: 8 } });
    assert.equal(read.paired.difficulty[0].pNotInterpretable, undefined, "read at min_rank_items 8");
  });

  it("few_clusters fails an interaction test with no more clusters than its coefficients", async () => {
    // 3 models x 4 conditions x 2 formats, as examples/integrity-demo.yaml: outcome ~ scaffold + model + format +
    // scaffold:model has 1 + 3 + 2 + 1 + 6 = 13 coefficients.
    const design = (items: number) =>
      plantedTable({
        seed: 1,
        models: { a: 0, b: 0.05, c: -0.05 },
        benchmarks: ["b"],
        itemsPerBenchmark: items,
        baseline: [0.3, 0.7],
        effects: { direct: 0, react: -0.1, critic: 0, map_reduce: 0.05 },
        extraFacet: { name: "format", levels: { mc: 0, oe: 0 } },
      });
    const analysis = await analyze(design(13), { hypotheses: { interactions: ["model"] } });
    const interaction = analysis.hypotheses.interactions.find((i) => i.with === "model");
    assert.ok(interaction?.test, "the test was computed");
    assert.equal(interaction?.notInterpretable, "13 clusters for 13 coefficients");
    assert.match(
      formatSummary(analysis, METHODOLOGY),
      /scaffold x model: not interpretable: 13 clusters for 13 coefficients \(Wald chi2\(6\) = [\d.]+, not read\)/,
    );
    const check = analysis.integrity.checks.find((c) => c.check === "few_clusters");
    assert.ok(check?.downgraded.includes("interaction scaffold x model"), JSON.stringify(check?.downgraded));
    // Fourteen items are enough for that model.
    const read = await analyze(design(14), { hypotheses: { interactions: ["model"] } });
    assert.ok(read.hypotheses.interactions[0].test, "computed");
    assert.equal(read.hypotheses.interactions[0].notInterpretable, undefined);
  });
});
