/**
 * The format comparison reads identical items only (ScaffoldSafety Sec. 5.1): the MC vs OE gap
 * and the scaffold x format 2x2 pair the two formats on the cases (model and item) seen in both;
 * a benchmark seen in one format compares different items, so it contributes nothing there and
 * is named once. Checked on simulated rows:
 * - a format effect planted per benchmark on identical items is recovered by each benchmark's row;
 * - with format confounded with benchmark (each benchmark in one format) there is no gap, no 2x2
 *   and both benchmarks are named, in the summary too;
 * - in a mixed design the pooled rows pool only the benchmarks seen in both formats, and within a
 *   benchmark only the items seen in both count;
 * - with study families, a primary family without such items takes the family that has them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatAnalysis } from "../../src/analysis/conditions/format.js";
import { scoredRows } from "../../src/analysis/core/data.js";
import type { RecordedFamilies } from "../../src/analysis/core/families.js";
import {
  type AnalysisTable,
  analyzeStudy,
  buildScorecard,
  formatSummary,
  normalizePlan,
  type StudyAnalysis,
} from "../../src/analysis/index.js";
import { renderReport } from "../../src/report/index.js";
import { plantedTable } from "./helpers.js";

const REFERENCE = "direct";
const LEVELS = [REFERENCE, "map_reduce"];
const PLAN = normalizePlan({ bootstrap: { resamples: 400, seed: 3 }, specification_curve: false });
const METHODOLOGY = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};
const MODELS = { m1: 0, m2: -0.05 };
const ITEMS = 200;
/** OE minus MC planted per benchmark (the MC level has no shift). */
const PLANTED: Record<string, number> = { b1: 0.25, b2: -0.2, b3: 0.1 };

function table(seed: number): AnalysisTable {
  return plantedTable({
    seed,
    models: MODELS,
    benchmarks: Object.keys(PLANTED),
    itemsPerBenchmark: ITEMS,
    baseline: [0.3, 0.7],
    effects: { [REFERENCE]: 0, map_reduce: -0.05 },
    extraFacet: { name: "format", levels: { mc: 0, oe: PLANTED } },
  });
}

/** The table with only the rows `keep` accepts (facetLevels kept: the design's levels). */
function only(t: AnalysisTable, keep: (row: AnalysisTable["rows"][number]) => boolean): AnalysisTable {
  return { ...t, rows: t.rows.filter(keep) };
}

/** The report's format section (its heading to the next section's). */
function reportSection(analysis: StudyAnalysis): string {
  const html = renderReport({ analysis, methodology: METHODOLOGY }, buildScorecard(analysis, METHODOLOGY), {
    trialsHref: "trials.html",
  });
  const start = html.indexOf('<h2 id="format">');
  assert.ok(start >= 0, "a format section in the report");
  return html.slice(start, html.indexOf("<h2", start + 1));
}

function analyse(t: AnalysisTable) {
  return formatAnalysis(
    scoredRows(t.rows, "itt"),
    { comparisonFacet: "scaffold", reference: REFERENCE, plan: PLAN },
    LEVELS,
  );
}

function gapOf(f: ReturnType<typeof analyse>, benchmark: string, model = "all") {
  return f.gaps.find((g) => g.benchmark === benchmark && g.model === model);
}

describe("the format comparison on identical items", () => {
  it("recovers a format effect planted per benchmark on the same items", () => {
    const f = analyse(table(11));
    assert.equal(f.unpaired, undefined, "every benchmark is seen in both formats");
    const models = Object.keys(MODELS).length;
    for (const [benchmark, planted] of Object.entries(PLANTED)) {
      const g = gapOf(f, benchmark);
      assert.ok(g?.gap.estimate != null && g.gap.ci95, `${benchmark}: a gap with a CI`);
      assert.equal(g.mc?.n, ITEMS * models, `${benchmark}: MC side on every item and model`);
      assert.equal(g.oe?.n, ITEMS * models, `${benchmark}: OE side on the same cases`);
      // Within 4 bootstrap standard errors (read off the 95% interval) of the planted gap.
      const se = (g.gap.ci95[1] - g.gap.ci95[0]) / (2 * 1.959964);
      assert.ok(
        Math.abs(g.gap.estimate - planted) < 4 * se,
        `${benchmark}: estimate ${g.gap.estimate} vs planted ${planted} (SE ${se})`,
      );
      assert.equal(Math.sign(g.gap.estimate), Math.sign(planted), `${benchmark}: the planted direction`);
    }
    // The pooled row pools the three benchmarks' identical items: the mean of their gaps (equal sizes).
    const pooled = gapOf(f, "all")!.gap.estimate!;
    const mean = Object.keys(PLANTED).reduce((sum, b) => sum + gapOf(f, b)!.gap.estimate!, 0) / 3;
    assert.ok(Math.abs(pooled - mean) < 1e-12, `pooled ${pooled} vs mean of benchmarks ${mean}`);
  });

  it("gives no gap when format and benchmark are confounded, and names each benchmark", async () => {
    const t = only(
      table(12),
      (r) => (r.benchmark === "b1" && r.facets.format === "mc") || (r.benchmark === "b2" && r.facets.format === "oe"),
    );
    const f = analyse(t);
    assert.deepEqual(f.gaps, [], "no gap: no item was seen in both formats");
    for (const w of f.withinFormat) {
      assert.equal(w.rdMc.estimate, null, `${w.condition}: no 2x2 without identical items`);
      assert.equal(w.interaction.estimate, null, `${w.condition}: no interaction`);
    }
    assert.deepEqual(f.unpaired, [
      { benchmark: "b1", formats: ["mc"] },
      { benchmark: "b2", formats: ["oe"] },
    ]);
    const analysis = await analyzeStudy(t, PLAN);
    const text = formatSummary(analysis, METHODOLOGY);
    assert.match(text, /\n {2}b1: MC only, not in the format comparison\n/);
    assert.match(text, /\n {2}b2: OE only, not in the format comparison\n/);
    assert.match(text, /no item was seen in both mc and oe: no format comparison/);
    assert.doesNotMatch(text, /scaffold x format 2x2/, "no 2x2 table without identical items");
    // The report says the same.
    const section = reportSection(analysis);
    assert.match(section, /<li>b1: MC only, not in the format comparison<\/li>/);
    assert.match(section, /<li>b2: OE only, not in the format comparison<\/li>/);
    assert.doesNotMatch(section, /Scaffold x format 2x2/, "no 2x2 in the report either");
  });

  it("pools only the benchmarks seen in both formats, and within one only its items seen in both", () => {
    const full = table(13);
    const halfB1 = new Set(full.rows.filter((r) => r.benchmark === "b1").map((r) => r.item));
    const dropped = [...halfB1].slice(0, ITEMS / 2);
    // b1: half its items MC only; b2: MC only; b3: both formats on every item.
    const t = only(full, (r) => {
      if (r.benchmark === "b2") return r.facets.format === "mc";
      if (r.benchmark === "b1" && dropped.includes(r.item)) return r.facets.format === "mc";
      return true;
    });
    const f = analyse(t);
    assert.deepEqual(f.unpaired, [{ benchmark: "b2", formats: ["mc"] }]);
    assert.deepEqual([...new Set(f.gaps.map((g) => g.benchmark))], ["b1", "b3", "all"]);
    const models = Object.keys(MODELS).length;
    assert.equal(gapOf(f, "b1")?.mc?.n, (ITEMS / 2) * models, "b1: MC rate on its items seen in both formats");
    assert.equal(gapOf(f, "all")?.mc?.n, (ITEMS / 2 + ITEMS) * models, "pooled: b1's paired items and b3's");
    // The pooled MC rate is that of the paired rows, computed here from the rows themselves.
    const pairedMc = scoredRows(t.rows, "itt").filter(
      (s) =>
        s.row.facets.scaffold === REFERENCE &&
        s.row.facets.format === "mc" &&
        (s.row.benchmark === "b3" || (s.row.benchmark === "b1" && !dropped.includes(s.row.item))),
    );
    const rate = pairedMc.reduce((sum, s) => sum + s.y, 0) / pairedMc.length;
    assert.ok(Math.abs(gapOf(f, "all")!.mc!.rate - rate) < 1e-12, "pooled MC rate on the paired rows");
  });

  it("reads the 2x2 on the cases seen in all four cells", () => {
    const full = table(14);
    const items = [...new Set(full.rows.filter((r) => r.benchmark === "b3").map((r) => r.item))];
    const unpairedItems = new Set(items.slice(0, 40));
    // map_reduce at OE is missing on 40 items of b3: those items leave the whole 2x2.
    const t = only(
      full,
      (r) => !(unpairedItems.has(r.item) && r.facets.scaffold === "map_reduce" && r.facets.format === "oe"),
    );
    const w = analyse(t).withinFormat.find((x) => x.condition === "map_reduce")!;
    const kept = scoredRows(t.rows, "itt").filter((s) => !unpairedItems.has(s.row.item));
    const rate = (scaffold: string, format: string) => {
      const cell = kept.filter((s) => s.row.facets.scaffold === scaffold && s.row.facets.format === format);
      return cell.reduce((sum, s) => sum + s.y, 0) / cell.length;
    };
    assert.ok(Math.abs(w.rates.referenceMc! - rate(REFERENCE, "mc")) < 1e-12, "reference MC on the paired cases");
    const rdMc = rate("map_reduce", "mc") - rate(REFERENCE, "mc");
    assert.ok(Math.abs(w.rdMc.estimate! - rdMc) < 1e-12, `RD at MC ${w.rdMc.estimate} vs ${rdMc} on the paired cases`);
  });

  it("with study families, takes the family whose items were seen in both formats", async () => {
    const t = table(15);
    const ids = (b: string) => [...new Set(t.rows.filter((r) => r.benchmark === b).map((r) => r.item))];
    const conditions = (formats: string[]) =>
      LEVELS.flatMap((scaffold) => formats.map((format) => ({ scaffold, format })));
    const families: RecordedFamilies = {
      main: {
        role: "primary",
        models: Object.keys(MODELS),
        benchmarks: ["b1", "b2"],
        conditions: { b1: conditions(["mc"]), b2: conditions(["oe"]) },
        items: { b1: ids("b1"), b2: ids("b2") },
      },
      format: {
        role: "secondary",
        models: Object.keys(MODELS),
        benchmarks: ["b3"],
        conditions: { b3: conditions(["mc", "oe"]) },
        items: { b3: ids("b3") },
      },
    };
    const analysis = await analyzeStudy(t, PLAN, { families });
    const f = analysis.format;
    assert.ok(!("skipped" in f), "a format analysis");
    assert.deepEqual(f.family, {
      name: "format",
      primaryUnpaired: [
        { benchmark: "b1", formats: ["mc"] },
        { benchmark: "b2", formats: ["oe"] },
      ],
    });
    assert.deepEqual([...new Set(f.gaps.map((g) => g.benchmark))], ["b3"], "the family's benchmark only");
    const text = formatSummary(analysis, METHODOLOGY);
    assert.match(text, /computed on family format, its items seen in both formats/);
    assert.match(text, /primary family: b2: OE only, not in the format comparison/);
    const section = reportSection(analysis);
    assert.match(section, /<li>computed on family format, its items seen in both formats/);
    assert.match(section, /Scaffold x format 2x2/);
  });
});
