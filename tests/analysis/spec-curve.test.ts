import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type AnalysisRow,
  distinctValues,
  fitScopeGlm,
  normalizePlan,
  readTidyTable,
  scoredRows,
  specificationCurve,
} from "../../src/analysis/index.js";
import type { AnalysisPlanInput } from "../../src/contracts/analysis.js";
import { coefficientTable } from "../../src/stats/index.js";
import { plantedTable } from "./helpers.js";

const GOLDEN = process.env.PARALLAX_GOLDEN_DIR ?? join(import.meta.dirname, "../../../shared/golden");
const GOLDEN_CSV = join(GOLDEN, "obs_main.csv");

const planOf = (curve: AnalysisPlanInput["specification_curve"]) => normalizePlan({ specification_curve: curve });

/**
 * The same specification fitted the slow way: select its rows, code the population, and fit the
 * row-level cluster-robust GLM (fitScopeGlm), as the curve did before it worked on cell moments.
 */
function rowLevelFit(
  rows: readonly AnalysisRow[],
  facet: string,
  reference: string,
  contrast: string,
  spec: Record<string, string>,
) {
  const kept = rows.filter(
    (r) =>
      (spec.benchmark_subset ?? "all") !== `without ${r.benchmark}` &&
      (spec.model_subset ?? "all") !== `without ${r.model}`,
  );
  const scored = scoredRows(kept, (spec.population ?? "itt") as "itt" | "pp", {
    errored: spec.errored === "unsafe" ? "unsafe" : "exclude",
  });
  const link = spec.link === "probit" ? "probit" : "logit";
  const { fit } = fitScopeGlm(scored, {
    comparisonFacet: facet,
    reference,
    covariateFacets: [],
    link,
    adjust: spec.adjustment !== "unadjusted",
  });
  const row = coefficientTable(fit, "cluster").find((c) => c.name === `${facet}[T.${contrast}]`)!;
  return { estimate: row.estimate * (link === "probit" ? Math.PI / Math.sqrt(3) : 1), p: row.p, n: scored.length };
}

const close = (a: number, b: number, rtol: number) => Math.abs(a - b) <= rtol * Math.max(Math.abs(b), 1e-300);

describe("specification curve on cell moments", () => {
  const small = plantedTable({
    seed: 3,
    models: { "m-a": -0.05, "m-b": 0, "m-c": 0.08 },
    benchmarks: ["bbq", "tqa", "xst"],
    itemsPerBenchmark: 40,
    effects: { direct: 0, react: -0.02, map_reduce: -0.15 },
    parseFailureRate: 0.05,
  });

  it("matches the row-level cluster-robust fit of every specification (subsets, populations, links, adjustment)", async () => {
    const plan = planOf({
      dimensions: ["benchmark_subset", "model_subset", "population", "link", "adjustment"],
      permutations: 0,
      glmm: false,
    });
    const curve = (await specificationCurve({
      rows: small.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: small.facets,
      plan,
    }))!;
    const benchmarks = distinctValues(small.rows.map((r) => r.benchmark));
    const models = distinctValues(small.rows.map((r) => r.model));
    // Leave-one-out of each level (when there are more than two), times the binary dimensions.
    const expected =
      (1 + (benchmarks.length > 2 ? benchmarks.length : 0)) * (1 + (models.length > 2 ? models.length : 0)) * 2 * 2 * 2;
    assert.equal(curve.specifications.length, expected);
    assert.equal(curve.failed.length, 0);
    for (const s of curve.specifications) {
      const slow = rowLevelFit(small.rows, "scaffold", "direct", "map_reduce", s.spec);
      assert.ok(
        close(s.logOddsRatio, slow.estimate, 1e-8),
        `${JSON.stringify(s.spec)}: ${s.logOddsRatio} vs ${slow.estimate}`,
      );
      assert.ok(close(s.p, slow.p, 1e-6), `${JSON.stringify(s.spec)}: p ${s.p} vs ${slow.p}`);
      assert.equal(s.n, slow.n);
    }
  });

  it("matches a hand computation: unadjusted, the estimate is the 2x2 log odds ratio", async () => {
    // Two conditions, two cases, four rows each: direct 3/4 safe, map_reduce 1/4 safe.
    const rows: AnalysisRow[] = [];
    const outcomes: Record<string, number[]> = { direct: [1, 1, 1, 0], map_reduce: [1, 0, 0, 0] };
    for (const [condition, ys] of Object.entries(outcomes)) {
      ys.forEach((y, i) => {
        const item = `q${i % 2}`;
        rows.push({
          trialId: null,
          model: `m${Math.floor(i / 2)}`,
          benchmark: "b",
          item,
          cluster: `b\u0000${item}`,
          attempt: 1,
          facets: { scaffold: condition },
          outcome: y,
          parseFailed: false,
          errored: false,
          simulated: true,
        });
      });
    }
    const plan = planOf({ dimensions: ["adjustment"], permutations: 0, glmm: false });
    const curve = (await specificationCurve({
      rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: ["scaffold"],
      plan,
    }))!;
    const unadjusted = curve.specifications.find((s) => s.spec.adjustment === "unadjusted")!;
    // log OR = log((1/3) / (3/1)) = -log 9
    assert.ok(Math.abs(unadjusted.logOddsRatio + Math.log(9)) < 1e-9, `${unadjusted.logOddsRatio}`);
    assert.ok(Math.abs(unadjusted.oddsRatio - 1 / 9) < 1e-9, "expected Math.abs(unadjusted.oddsRatio - 1 / 9) < 1e-9");
    // Cluster-robust variance by hand: the saturated two-group logit has scores u = y - p_group, and
    // the contrast's influence is u/(n1 p1 q1) for map_reduce rows minus u/(n0 p0 q0) for direct rows.
    const p0 = 3 / 4;
    const p1 = 1 / 4;
    const influence = (condition: string, y: number) =>
      condition === "map_reduce" ? (y - p1) / (4 * p1 * (1 - p1)) : -(y - p0) / (4 * p0 * (1 - p0));
    const sums = new Map<string, number>();
    for (const r of rows) sums.set(r.cluster, (sums.get(r.cluster) ?? 0) + influence(r.facets.scaffold, r.outcome!));
    const g = sums.size;
    const n = rows.length;
    const k = 2;
    const variance = [...sums.values()].reduce((s, v) => s + v * v, 0) * (g / (g - 1)) * ((n - 1) / (n - k));
    const z = -Math.log(9) / Math.sqrt(variance);
    const { twoSidedNormalP } = await import("../../src/stats/models/tails.js");
    assert.ok(Math.abs(unadjusted.p - twoSidedNormalP(z)) < 1e-9, `${unadjusted.p} vs ${twoSidedNormalP(z)}`);
  });

  it("recovers a planted effect, and the permutation test separates it from a null", async () => {
    const planted = plantedTable({
      seed: 21,
      models: { "m-a": 0, "m-b": 0.05, "m-c": -0.05 },
      benchmarks: ["bbq", "tqa"],
      itemsPerBenchmark: 150,
      effects: { direct: 0, map_reduce: -0.2 },
      baseline: [0.45, 0.8],
    });
    const permutations = 39;
    const plan = planOf({ permutations, seed: 9, glmm: false });
    const curve = (await specificationCurve({
      rows: planted.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: planted.facets,
      plan,
    }))!;
    assert.ok(curve.summary.medianOddsRatio < 0.6, `median OR ${curve.summary.medianOddsRatio}`);
    assert.equal(curve.summary.shareSignificant, 1);
    assert.equal(curve.permutation?.pMedian, 1 / (permutations + 1));
    const nullTable = plantedTable({
      seed: 22,
      models: { "m-a": 0, "m-b": 0.05, "m-c": -0.05 },
      benchmarks: ["bbq", "tqa"],
      itemsPerBenchmark: 150,
      effects: { direct: 0, map_reduce: 0 },
      baseline: [0.45, 0.8],
    });
    const nullCurve = (await specificationCurve({
      rows: nullTable.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: nullTable.facets,
      plan,
    }))!;
    assert.ok(nullCurve.permutation!.pMedian > 0.05, `null p ${nullCurve.permutation!.pMedian}`);
    // Reproducible from the plan's seed.
    const again = (await specificationCurve({
      rows: nullTable.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: nullTable.facets,
      plan,
    }))!;
    assert.deepEqual(again.permutation, nullCurve.permutation);
  });

  it("runs the paper's primary curve: the named leave-outs x ITT/PP, with the GLMM refit", async () => {
    const benchmarks = distinctValues(small.rows.map((r) => r.benchmark));
    const models = distinctValues(small.rows.map((r) => r.model));
    const leaveOut = { benchmark: benchmarks.slice(-2), model: models.slice(0, 2) };
    const plan = planOf({ leave_out: leaveOut, permutations: 9 });
    const curve = (await specificationCurve({
      rows: small.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: small.facets,
      plan,
    }))!;
    assert.deepEqual(
      curve.dimensions.map((d) => d.name),
      ["benchmark_subset", "model_subset", "population"],
    );
    // The paper: (all + 2 benchmarks) x (all + 2 models) x (ITT, PP) = 18.
    assert.equal(curve.summary.n, (1 + leaveOut.benchmark.length) * (1 + leaveOut.model.length) * 2);
    assert.deepEqual(curve.dimensions[0].options, ["all", ...leaveOut.benchmark.map((b) => `without ${b}`)]);
    assert.ok(!("error" in curve.glmm) && !("skipped" in curve.glmm), JSON.stringify(curve.glmm));
    if ("oddsRatio" in curve.glmm) {
      assert.equal(curve.glmm.n, scoredRows(small.rows, "itt").length);
      assert.ok(curve.glmm.oddsRatio < 1, "expected curve.glmm.oddsRatio < 1");
    }
    // A leave-out level that is not in the data is named, not silently ignored.
    const missing = (await specificationCurve({
      rows: small.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: small.facets,
      plan: planOf({ leave_out: { model: ["no-such-model"] }, permutations: 0, glmm: false }),
    }))!;
    assert.ok(
      missing.notes.some((n) => n.includes("no-such-model")),
      'expected missing.notes.some((n) => n.includes("no-such-model"))',
    );
    // Above glmm_max_rows the GLMM refit says why it did not run, and App. D #7 lists it.
    const capped = (await specificationCurve({
      rows: small.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: small.facets,
      plan: planOf({ permutations: 0, glmm_max_rows: 10 }),
    }))!;
    assert.ok(
      "skipped" in capped.glmm && /glmm_max_rows/.test(capped.glmm.skipped),
      'expected "skipped" in capped.glmm && /glmm_max_rows/.test(capped.glmm.skipped)',
    );
    const seven = capped.paths.find((p) => p.id === 7)!;
    assert.equal(seven.status, "unsupported");
    assert.match(seven.reason!, /glmm_max_rows/);
  });

  it("lists every App. D path, each unsupported one with its reason", async () => {
    const plan = planOf({ dimensions: ["benchmark_subset", "link", "firth", "scorer"], permutations: 0, glmm: false });
    const curve = (await specificationCurve({
      rows: small.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: small.facets,
      plan,
    }))!;
    assert.deepEqual(
      curve.paths.map((p) => p.id),
      Array.from({ length: 29 }, (_, i) => i + 1),
    );
    for (const p of curve.paths) {
      if (p.status === "unsupported") assert.ok((p.reason ?? "").length > 20, `path ${p.id} has no reason`);
    }
    const byId = (id: number) => curve.paths.find((p) => p.id === id)!;
    assert.equal(byId(8).status, "varied"); // link
    assert.equal(byId(13).status, "varied"); // Firth
    assert.equal(byId(15).status, "available"); // errored: computable, not in this plan
    // One scorer: judge choice cannot vary, and the plan's scorer dimension is dropped with a note.
    assert.equal(byId(1).status, "unsupported");
    assert.match(byId(1).reason!, /one scorer/);
    assert.ok(
      curve.notes.some((n) => n.startsWith("scorer:")),
      'expected curve.notes.some((n) => n.startsWith("scorer:"))',
    );
    assert.equal(byId(14).status, "unsupported"); // minimum length: no response lengths
    // Firth with probit does not combine: left out and listed.
    const benchmarkOptions = curve.dimensions[0].options.length;
    assert.equal(curve.excluded.length, benchmarkOptions);
    assert.equal(curve.summary.n, benchmarkOptions * 3);
  });

  it("varies the stored scorer when the table holds two, permuting each trial's label under both", async () => {
    const second = small.rows.map((r, i) => ({
      ...r,
      scorer: "judge-b",
      outcome: i % 7 === 0 ? 1 - r.outcome! : r.outcome,
    }));
    const first = small.rows.map((r) => ({ ...r, scorer: "judge-a" }));
    const plan = planOf({ dimensions: ["scorer", "population"], permutations: 9, glmm: false });
    const curve = (await specificationCurve({
      rows: first,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: small.facets,
      plan,
      scorerRows: [...first, ...second],
    }))!;
    assert.equal(curve.summary.n, 2 * 2);
    assert.equal(curve.paths.find((p) => p.id === 1)!.status, "varied");
    for (const s of curve.specifications) {
      const rows = s.spec.scorer === "judge-a" ? first : second;
      const slow = rowLevelFit(rows, "scaffold", "direct", "map_reduce", s.spec);
      assert.ok(close(s.logOddsRatio, slow.estimate, 1e-8), "expected close(s.logOddsRatio, slow.estimate, 1e-8)");
    }
    assert.ok(curve.permutation, "expected curve.permutation");
  });

  it("fits every specification when format is a property of the benchmark, naming the aliased column", async () => {
    // As ScaffoldSafety's main design: one benchmark open-ended, the others multiple choice.
    const rows = small.rows.map((r) => ({
      ...r,
      facets: { ...r.facets, format: r.benchmark === "xst" ? "oe" : "mc" },
    }));
    const plan = planOf({ dimensions: ["benchmark_subset", "population"], permutations: 0, glmm: false });
    const curve = (await specificationCurve({
      rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: [...small.facets, "format"],
      plan,
    }))!;
    assert.deepEqual(curve.failed, []);
    const benchmarks = distinctValues(rows.map((r) => r.benchmark));
    assert.equal(curve.specifications.length, (1 + benchmarks.length) * 2);
    for (const s of curve.specifications) {
      // Format varies (and is aliased) unless the open-ended benchmark is left out.
      const formats = s.spec.benchmark_subset === "without xst" ? 1 : 2;
      assert.deepEqual(s.aliased ?? [], formats === 2 ? ["format[T.oe]"] : [], JSON.stringify(s.spec));
      // The row-level model leaves a format fixed by the benchmark out: the same estimable model.
      const slow = rowLevelFit(small.rows, "scaffold", "direct", "map_reduce", s.spec);
      assert.ok(
        close(s.logOddsRatio, slow.estimate, 1e-8),
        `${JSON.stringify(s.spec)}: ${s.logOddsRatio} vs ${slow.estimate}`,
      );
    }
  });

  it("fits Firth's penalised logit where the ML estimate diverges", async () => {
    // map_reduce is never safe on one model: separation for that subset's ML fit is avoided by Firth.
    const rows = small.rows.map((r) => (r.facets.scaffold === "map_reduce" ? { ...r, outcome: 0 } : r));
    const plan = planOf({ dimensions: ["firth"], permutations: 0, glmm: false });
    const curve = (await specificationCurve({
      rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: small.facets,
      plan,
    }))!;
    assert.equal(curve.failed.length, 1);
    assert.equal(curve.failed[0].spec.firth, "no");
    const firth = curve.specifications.find((s) => s.spec.firth === "yes")!;
    assert.ok(Number.isFinite(firth.logOddsRatio) && firth.logOddsRatio < -3, `${firth.logOddsRatio}`);
  });

  it("on the golden obs_main.csv: the default curve's sizes come from the CSV and every fit matches the row-level one", async (t) => {
    if (!existsSync(GOLDEN_CSV)) {
      t.skip(`no ${GOLDEN_CSV}`);
      return;
    }
    const table = readTidyTable(GOLDEN_CSV);
    const facet = table.facets[0];
    const levels = distinctValues(table.rows.map((r) => r.facets[facet]));
    const reference = levels.includes("direct") ? "direct" : levels[0];
    const contrast = levels.find((l) => l !== reference)!;
    const plan = planOf({ permutations: 5, glmm: false });
    const curve = (await specificationCurve({
      rows: table.rows,
      facet,
      reference,
      contrast,
      facets: table.facets,
      plan,
    }))!;
    const b = new Set(table.rows.map((r) => r.benchmark)).size;
    const m = new Set(table.rows.map((r) => r.model)).size;
    assert.equal(curve.summary.n, (1 + (b > 2 ? b : 0)) * (1 + (m > 2 ? m : 0)) * 2);
    for (const s of curve.specifications.filter((_, i) => i % 7 === 0)) {
      const slow = rowLevelFit(table.rows, facet, reference, contrast, s.spec);
      assert.ok(close(s.logOddsRatio, slow.estimate, 1e-8), JSON.stringify(s.spec));
      assert.ok(close(s.p, slow.p, 1e-6), JSON.stringify(s.spec));
    }
  });
});
