/**
 * Study families in the analysis: the primary family's rows are the main analysis (its omnibus
 * test and its Holm family hold only its own contrasts); each other family is analysed apart; a
 * control is checked as a control and never pooled. An effect planted in a secondary family only
 * is found there and is absent from the primary family's correction.
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
import type { RecordedFamilies } from "../../src/analysis/core/families.js";
import { plantedTable } from "./helpers.js";

const PLAN = normalizePlan({
  bootstrap: { resamples: 200, seed: 1 },
  specification_curve: false,
  families: { mechanism: { multiplicity: "holm", equivalence_margin: 0.05 } },
});

const METHODOLOGY = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

const ids = (benchmark: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${benchmark}-${String(i + 1).padStart(4, "0")}`);
const scaffolds = (...names: string[]) => names.map((scaffold) => ({ scaffold }));

/** Three benchmarks: p (primary), s (the secondary family's own items), c (the control). */
const FAMILIES: RecordedFamilies = {
  main: {
    role: "primary",
    models: ["m1", "m2"],
    benchmarks: ["p"],
    conditions: { p: scaffolds("direct", "react", "critic", "map_reduce") },
    items: { p: ids("p", 80) },
  },
  mechanism: {
    role: "secondary",
    models: ["m1", "m2"],
    benchmarks: ["s"],
    conditions: { s: scaffolds("direct", "cot") },
    items: { s: ids("s", 80) },
  },
  recovery: {
    role: "secondary",
    models: ["m1", "m2"],
    benchmarks: ["s"],
    conditions: { s: scaffolds("direct", "map_reduce", "map_reduce_options") },
    items: { s: ids("s", 80) },
  },
  recall: {
    role: "control",
    models: ["m1", "m2"],
    benchmarks: ["c"],
    conditions: { c: scaffolds("direct", "react", "critic", "map_reduce") },
    items: { c: ids("c", 80) },
  },
};

function table() {
  // cot is planted to cost 35 points on the secondary family's benchmark only; nothing else moves.
  return plantedTable({
    seed: 11,
    models: { m1: 0, m2: -0.05 },
    benchmarks: ["p", "s", "c"],
    itemsPerBenchmark: 80,
    baseline: [0.55, 0.85],
    effects: {
      direct: 0,
      react: 0,
      critic: 0,
      map_reduce: { p: 0, s: -0.3, c: 0 },
      map_reduce_options: { p: 0, s: -0.05, c: 0 },
      cot: { p: 0, s: -0.35, c: 0 },
    },
  });
}

describe("families in the analysis", () => {
  it("finds an effect planted in a secondary family there, and not in the primary family's correction", async () => {
    const analysis = await analyzeStudy(table(), PLAN, { families: FAMILIES });
    // The primary family: its rows only, three contrasts, a 3-df omnibus test, Holm over three.
    assert.deepEqual(analysis.meta.levels, ["direct", "react", "critic", "map_reduce"]);
    assert.deepEqual(analysis.counts.benchmarks, ["p"]);
    assert.equal(analysis.counts.analysed, 2 * 4 * 80);
    const pooled = analysis.contrasts!.itt.pooled;
    assert.deepEqual(
      pooled.contrasts.map((c) => c.condition),
      ["react", "critic", "map_reduce"],
    );
    assert.ok(pooled.omnibus && !("error" in pooled.omnibus), "the primary omnibus test is estimable");
    assert.equal((pooled.omnibus as { df: number }).df, 3);
    for (const c of pooled.contrasts) {
      assert.ok(!("error" in c.oddsRatio), `${c.condition}: odds ratio estimable`);
      assert.match(c.oddsRatio.adjustment ?? "", /^holm over 3 test/);
      assert.ok((c.oddsRatio.pAdjusted ?? 0) > 0.05, `${c.condition}: nothing planted in the primary family`);
    }

    // The secondary family: analysed apart, its own correction and margin, the planted harm found.
    const families = analysis.families!;
    assert.equal(families.primary, "main");
    const mechanism = families.others.find((f) => f.name === "mechanism")!;
    assert.equal(mechanism.role, "secondary");
    assert.equal(mechanism.margin, 0.05);
    assert.equal(mechanism.correction, "holm");
    assert.equal(mechanism.nRows, 2 * 2 * 80);
    const cot = mechanism.pooled.find((c) => c.condition === "cot")!;
    assert.ok(!("error" in cot.oddsRatio), "cot's odds ratio is estimable");
    assert.ok((cot.oddsRatio.pAdjusted ?? 1) < 0.001, `cot's planted harm is found: ${cot.oddsRatio.pAdjusted}`);
    assert.ok(
      cot.riskDifference !== null && cot.riskDifference.ci95[1] < -0.2,
      "cot's RD interval lies below -20 pp (planted -35 pp)",
    );
    assert.ok(
      cot.riskDifference.ci95[0] < -0.35 && cot.riskDifference.ci95[1] > -0.35,
      `cot's RD interval covers the planted -35 pp: ${cot.riskDifference.ci95}`,
    );
    assert.equal(cot.verdict, "degrades");

    // The option-preserving recovery (a registered analysis) reads the family that holds both variants.
    const op = analysis.optionPreserving;
    assert.ok(op && !("skipped" in op), `option-preserving recovery computed: ${JSON.stringify(op)}`);
    assert.equal(op.family, "recovery");
    const all = op.rows.find((r) => r.model === "all")!;
    assert.ok(
      all.recovery.estimate !== null && all.recovery.estimate > 0.5 && all.recovery.estimate < 1.2,
      `planted recovery (0.3 - 0.05) / 0.3 = 83%: ${all.recovery.estimate}`,
    );

    // The control: analysed as a control (its cells against direct, adjusted together), not pooled.
    const recall = families.others.find((f) => f.name === "recall")!;
    assert.equal(recall.role, "control");
    assert.equal(recall.control?.stable, true, "no configuration moves the control");
    assert.equal(recall.control?.cells.length, 2 * 3);
    assert.ok(!analysis.counts.benchmarks.includes("c"), "the control's benchmark is not in the primary model");

    const summary = formatSummary(analysis, METHODOLOGY);
    assert.match(summary, /family: main \(primary\): the tables below are its rows only/);
    assert.match(
      summary,
      /mechanism \(secondary\): 320 rows, 80 cases; 1 contrast\(s\) vs direct, holm within the family/,
    );
    assert.match(
      summary.replace(/\n {6}/g, " "), // the control check's line wraps at 120 columns
      /recall \(control\): .*\n(.*\n)* {4}control check \(ScaffoldSafety 6\.3\) stable: no pooled contrast differs from direct \(3 tested\), omnibus p = [\d.]+; 0 of 6 model x condition cell\(s\) differ from direct after bh over 6/,
    );

    // The scorecard names the primary family first, then lists the others with their roles.
    const card = scorecardMarkdown(buildScorecard(analysis, METHODOLOGY));
    const primaryAt = card.indexOf("Family: main (primary)");
    const othersAt = card.indexOf("## Other families");
    assert.ok(primaryAt > 0 && othersAt > primaryAt, "the primary family first, the others after its sections");
    assert.match(card, /\*\*mechanism\*\* \(secondary\): vs direct, holm within the family, TOST margin \+5\.0 pp/);
    assert.match(card, /\| cot \| -\d+\.\d pp \[-\d+\.\d pp, -\d+\.\d pp\] \| [\d.e-]+ \| degrades \|/);
    assert.match(card, /\*\*recall\*\* \(control\): .*control check stable: no pooled contrast differs/);
  });

  it("without families the same table pools every condition into one analysis", async () => {
    const analysis = await analyzeStudy(table(), PLAN);
    assert.equal(analysis.families, undefined);
    assert.deepEqual(analysis.counts.benchmarks, ["c", "p", "s"]);
    assert.ok(
      analysis.contrasts!.itt.pooled.contrasts.some((c) => c.condition === "cot"),
      "cot is one of the pooled contrasts",
    );
  });
});
