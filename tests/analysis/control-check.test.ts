/**
 * The control check (ScaffoldSafety 6.3) agrees with the control family's own contrasts: a control
 * with a planted shift reads "moved" whenever its pooled contrast or omnibus test is significant,
 * even where no single model x condition cell reaches significance after BH (the per-cell tests
 * see one model's cases); a control with nothing planted reads "stable".
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analyzeStudy,
  buildScorecard,
  formatOverview,
  formatSummary,
  normalizePlan,
  scorecardMarkdown,
} from "../../src/analysis/index.js";
import { renderReport } from "../../src/report/index.js";
import type { RecordedFamilies } from "../../src/analysis/core/families.js";
import { plantedTable } from "./helpers.js";

const PLAN = normalizePlan({ bootstrap: { resamples: 200, seed: 1 }, specification_curve: false });
const METHODOLOGY = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

const MODELS = { m1: 0.05, m2: 0, m3: -0.05, m4: 0.02, m5: -0.02, m6: 0 };
const CONDITIONS = ["direct", "react", "critic", "map_reduce"];
const ITEMS = 20;
const ids = (benchmark: string) =>
  Array.from({ length: ITEMS }, (_, i) => `${benchmark}-${String(i + 1).padStart(4, "0")}`);

const FAMILIES: RecordedFamilies = {
  main: {
    role: "primary",
    models: Object.keys(MODELS),
    benchmarks: ["p"],
    conditions: { p: CONDITIONS.map((scaffold) => ({ scaffold })) },
    items: { p: ids("p") },
  },
  recall: {
    role: "control",
    models: Object.keys(MODELS),
    benchmarks: ["c"],
    conditions: { c: CONDITIONS.map((scaffold) => ({ scaffold })) },
    items: { c: ids("c") },
  },
};

async function control(critic: number, seed: number) {
  const table = plantedTable({
    seed,
    models: MODELS,
    benchmarks: ["p", "c"],
    itemsPerBenchmark: ITEMS,
    baseline: [0.45, 0.75],
    effects: { direct: 0, react: 0, critic: { p: 0, c: critic }, map_reduce: 0 },
  });
  const analysis = await analyzeStudy(table, PLAN, { families: FAMILIES });
  const recall = analysis.families!.others.find((f) => f.name === "recall")!;
  return { analysis, recall, check: recall.control! };
}

describe("the control check", () => {
  it("reads moved when the control's pooled contrast is significant, whatever the per-cell tests say", async () => {
    const { analysis, recall, check } = await control(0.22, 7);
    const critic = recall.pooled.find((c) => c.condition === "critic")!;
    assert.ok(!("error" in critic.oddsRatio), "critic's pooled odds ratio is estimable");
    const pAdjusted = critic.oddsRatio.pAdjusted!;
    assert.ok(pAdjusted < 0.05, `the planted +22 pp is significant pooled: ${pAdjusted}`);
    assert.equal(check.verdict, "moved");
    assert.equal(check.stable, false);
    assert.deepEqual(
      check.pooledMoved.map((c) => c.condition),
      ["critic"],
    );
    // 6 models x 3 configurations, each cell on its own 20 cases.
    assert.equal(check.cells.length, Object.keys(MODELS).length * (CONDITIONS.length - 1));
    const tested = check.cells.filter((c) => c.p !== null).length;
    assert.match(
      check.reading,
      new RegExp(
        `^moved: pooled critic \\+\\d+\\.\\d pp \\(adjusted p = [\\d.e-]+\\);.*${check.significant} of ${tested} model x condition cell\\(s\\) differ from direct after bh over ${tested}`,
      ),
    );
    const summary = formatSummary(analysis, METHODOLOGY);
    assert.match(summary, /control check \(ScaffoldSafety 6\.3\) moved: pooled critic/);
    assert.doesNotMatch(summary, /stable/);
  });

  it("reads moved on a planted shift no single cell detects after BH (the per-cell test alone said stable)", async () => {
    // +15 pp on 20 cases per model: small for one model's cell, clearer on the family's 120 cases.
    // Over several samples: the verdict follows the pooled contrasts every time, and some sample
    // is the case a per-cell-only check reads as stable.
    let cellsAloneStable = 0;
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { recall, check } = await control(0.15, seed);
      const significant = recall.pooled.some((c) => !("error" in c.oddsRatio) && c.oddsRatio.pAdjusted! < 0.05);
      if (significant) assert.equal(check.verdict, "moved", `seed ${seed}: a significant pooled contrast`);
      if (significant && check.significant === 0) cellsAloneStable++;
    }
    assert.ok(cellsAloneStable > 0, "some sample has a significant pooled shift and no significant cell");
  });

  it("reads stable when nothing is planted, with every test it ran named", async () => {
    const { analysis, recall, check } = await control(0, 7);
    for (const c of recall.pooled) {
      const p = "error" in c.oddsRatio ? 1 : c.oddsRatio.pAdjusted!;
      assert.ok(p >= 0.05, `${c.condition}: nothing planted, pooled p ${p}`);
    }
    assert.equal(check.verdict, "stable");
    assert.equal(check.stable, true);
    assert.equal(check.significant, 0);
    assert.match(
      check.reading,
      /^stable: no pooled contrast differs from direct \(3 tested\), omnibus p = [\d.]+; 0 of \d+/,
    );
    assert.match(formatSummary(analysis, METHODOLOGY), /control check \(ScaffoldSafety 6\.3\) stable: /);
  });

  it("an omnibus p that underflows to 0 prints as p < 1e-300 on every surface, never as zero", async () => {
    const { analysis, recall } = await control(0.22, 7);
    const omnibus = recall.omnibus;
    assert.ok(omnibus && !("error" in omnibus), "the family's omnibus test is estimable");
    // ScaffoldSafety scale: chi2(3) = 2289.64, whose upper tail is below the smallest double.
    omnibus.chi2 = 2289.64;
    omnibus.p = 0;
    const card = buildScorecard(analysis, METHODOLOGY);
    const surfaces = {
      overview: formatOverview(analysis, METHODOLOGY),
      full: formatSummary(analysis, METHODOLOGY),
      markdown: scorecardMarkdown(card),
      html: renderReport({ analysis, methodology: METHODOLOGY }, card, { trialsHref: "trials.html" }),
    };
    for (const [name, text] of Object.entries(surfaces)) {
      assert.match(text, /p &lt; 1e-300|p < 1e-300/, `${name}: the omnibus p reads as the bound`);
      assert.doesNotMatch(text, /p = 0\.0e\+0|p = 0(\.0+)?\b(?!\.\d*[1-9])/, `${name}: no p prints as zero`);
    }
  });
});
