/**
 * Effects planted in a simulated table (plantedTable) are recovered by analyzeStudy: the true RD
 * inside its interval, TOST on the null condition, the planted interaction and not an absent one,
 * the trend, flips, variance shares, specification curve, recovery share and the format gap.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeStudy, normalizePlan } from "../../src/analysis/index.js";
import { plantedTable } from "./helpers.js";

const inside = (value: number, ci: [number, number] | null | undefined) => !!ci && ci[0] <= value && value <= ci[1];

describe("planted effects are recovered", async () => {
  // direct is the reference; react has no effect; map_reduce loses 25 pp on bbq and 5 pp on tqa
  // (true pooled RD -15 pp): a planted condition x benchmark interaction and no model interaction.
  const table = plantedTable({
    seed: 12,
    models: { "m-a": -0.05, "m-b": 0, "m-c": 0.05 },
    benchmarks: ["bbq", "tqa"],
    itemsPerBenchmark: 300,
    effects: { direct: 0, react: 0, map_reduce: { bbq: -0.25, tqa: -0.05 } },
    baseline: [0.4, 0.85],
    parseFailureRate: 0.02,
  });
  const plan = normalizePlan({
    equivalence: { margin: 0.05, sensitivity_margins: [0.03, 0.1] },
    bootstrap: { resamples: 600, seed: 5 },
    specification_curve: { permutations: 19, dimensions: ["model_subset", "population"] },
  });
  const result = await analyzeStudy(table, plan, { now: () => new Date("2026-01-01T00:00:00Z") });
  const pooled = result.contrasts.itt.pooled;
  const contrast = (name: string) => pooled.contrasts.find((c) => c.condition === name)!;

  it("puts the true RD inside the case-cluster bootstrap CI, pooled and per benchmark", () => {
    // ITT: 2% parse failures score 0 in every condition, so the true ITT RD is 0.98 x the planted RD.
    assert.ok(
      inside(-0.15 * 0.98, contrast("map_reduce").riskDifference?.ci95),
      JSON.stringify(contrast("map_reduce").riskDifference),
    );
    assert.ok(
      inside(0, contrast("react").riskDifference?.ci95),
      'expected inside(0, contrast("react").riskDifference?.ci95)',
    );
    const bbq = result.contrasts.itt.byBenchmark.find((s) => s.scope === "bbq")!;
    const tqa = result.contrasts.itt.byBenchmark.find((s) => s.scope === "tqa")!;
    assert.ok(
      inside(-0.25 * 0.98, bbq.contrasts.find((c) => c.condition === "map_reduce")!.riskDifference?.ci95),
      'expected inside(-0.25 * 0.98, bbq.contrasts.find((c) => c.condition === "map_reduce")!.riskDiffe...',
    );
    assert.ok(
      inside(-0.05 * 0.98, tqa.contrasts.find((c) => c.condition === "map_reduce")!.riskDifference?.ci95),
      'expected inside(-0.05 * 0.98, tqa.contrasts.find((c) => c.condition === "map_reduce")!.riskDiffe...',
    );
    // The PP population drops the parse failures: its RD is the planted one.
    const pp = result.contrasts.pp.pooled.contrasts.find((c) => c.condition === "map_reduce")!;
    assert.ok(inside(-0.15, pp.riskDifference?.ci95), "expected inside(-0.15, pp.riskDifference?.ci95)");
    assert.ok(pp.rate!.n < contrast("map_reduce").rate!.n, "PP leaves parse failures out");
  });

  it("calls the null condition TOST-equivalent and the harmful one significant and not equivalent", () => {
    const react = contrast("react");
    const mr = contrast("map_reduce");
    assert.equal(react.equivalence?.equivalent, true, JSON.stringify(react.riskDifference));
    assert.equal(react.verdict, "equivalent");
    assert.equal(mr.equivalence?.equivalent, false);
    assert.equal(mr.verdict, "degrades");
    assert.ok(
      !("error" in mr.oddsRatio) && mr.oddsRatio.estimate < 1 && mr.oddsRatio.pAdjusted! < 1e-6,
      'expected !("error" in mr.oddsRatio) && mr.oddsRatio.estimate < 1 && mr.oddsRatio.pAdjusted! < 1e-6',
    );
    assert.ok(
      !("error" in mr.oddsRatio) && mr.oddsRatio.adjustment?.startsWith("holm"),
      'expected !("error" in mr.oddsRatio) && mr.oddsRatio.adjustment?.startsWith("holm")',
    );
    assert.equal(mr.nnh?.direction, "harm");
    assert.ok(inside(1 / 0.147, mr.nnh?.ci95 ?? null), JSON.stringify(mr.nnh));
    // Sensitivity margins: the null is not equivalent at 3 pp... only if its CI is wider; at 10 pp it is.
    assert.equal(react.equivalence?.sensitivity.find((s) => s.margin === 0.1)?.equivalent, true);
    const omnibus = result.hypotheses.omnibus;
    assert.ok(
      omnibus && "p" in omnibus && omnibus.p < 1e-10 && omnibus.df === 2,
      'expected omnibus && "p" in omnibus && omnibus.p < 1e-10 && omnibus.df === 2',
    );
  });

  it("detects the planted condition x benchmark interaction and not an absent model interaction", () => {
    const byBenchmark = result.hypotheses.interactions.find((i) => i.with === "benchmark")!;
    const byModel = result.hypotheses.interactions.find((i) => i.with === "model")!;
    assert.ok(
      byBenchmark.test && byBenchmark.test.df === 2 && byBenchmark.test.p < 1e-6,
      JSON.stringify(byBenchmark.test),
    );
    assert.ok(byModel.test && byModel.test.df === 4 && byModel.test.p > 0.05, JSON.stringify(byModel.test));
    assert.ok(byBenchmark.test.pAdjusted! >= byBenchmark.test.p, "BH-adjusted in the secondary family");
  });

  it("finds the trend, the flips and the variance shares in the planted direction", () => {
    const trend = result.hypotheses.trend;
    assert.ok(
      trend && !("error" in trend) && trend.slope < 0 && trend.p < 1e-6,
      'expected trend && !("error" in trend) && trend.slope < 0 && trend.p < 1e-6',
    );
    assert.ok(
      trend.rates.every((r, i, all) => i === 0 || r.isotonic <= all[i - 1].isotonic),
      "isotonic fit is monotone",
    );
    const flips = result.paired.flips.find((f) => f.benchmark === "all" && f.condition === "map_reduce")!;
    assert.ok(
      flips.flips!.net < -0.1 && flips.flips!.churn > Math.abs(flips.flips!.net),
      "expected flips.flips!.net < -0.1 && flips.flips!.churn > Math.abs(flips.flips!.net)",
    );
    assert.ok(
      flips.mcnemar && "exact" in flips.mcnemar && flips.mcnemar.exact.p < 1e-10,
      'expected flips.mcnemar && "exact" in flips.mcnemar && flips.mcnemar.exact.p < 1e-10',
    );
    const decomposition = result.variance.decomposition;
    assert.ok(!("error" in decomposition), 'expected !("error" in decomposition)');
    const share = (term: string) => decomposition.rows.find((r) => r.term === term)!.etaSq;
    assert.ok(share("scaffold") > share("model:benchmark"), 'expected share("scaffold") > share("model:benchmark")');
    const g = result.variance.generalizability;
    assert.ok(
      !("error" in g) && g.ci95 !== null && g.nObjects === 3,
      'expected !("error" in g) && g.ci95 !== null && g.nObjects === 3',
    );
  });

  it("runs the specification curve with a permutation test for the largest contrast", () => {
    const curve = result.specificationCurve;
    assert.ok(!("skipped" in curve), 'expected !("skipped" in curve)');
    assert.equal(curve.contrast, "map_reduce");
    assert.equal(curve.summary.n, 4 * 2); // model_subset: all + leave each of 3 models out, x population
    assert.ok(
      curve.summary.medianOddsRatio < 0.7 && curve.summary.shareSignificant === 1,
      "expected curve.summary.medianOddsRatio < 0.7 && curve.summary.shareSignificant === 1",
    );
    assert.equal(curve.permutation?.pMedian, 1 / 20, "no permuted curve is as extreme as the planted one");
  });
});

describe("option-preserving recovery", async () => {
  // Within MC: direct 0 (reference), map_reduce -30 pp, map_reduce_options -5 pp: true recovery 25/30.
  const table = plantedTable({
    seed: 3,
    models: { "m-a": 0, "m-b": 0.02 },
    benchmarks: ["bbq"],
    itemsPerBenchmark: 500,
    effects: { direct: 0, map_reduce: -0.3, map_reduce_options: -0.05 },
    baseline: [0.6, 0.95],
    extraFacet: { name: "format", levels: { mc: 0, oe: 0.03 } },
  });
  const result = await analyzeStudy(
    table,
    normalizePlan({ bootstrap: { resamples: 600, seed: 9 }, specification_curve: false }),
  );

  it("recovers the planted share with its CI and gives the residual NNH", () => {
    assert.ok(!("skipped" in result.optionPreserving), 'expected !("skipped" in result.optionPreserving)');
    const pooled = result.optionPreserving.rows.find((r) => r.model === "all")!;
    assert.equal(result.optionPreserving.restrictedTo, "format=mc");
    assert.ok(inside(25 / 30, pooled.recovery.ci95), JSON.stringify(pooled.recovery));
    assert.ok(inside(0.05, pooled.residual.ci95), "expected inside(0.05, pooled.residual.ci95)");
    assert.ok(
      pooled.residualNnh?.direction === "harm" && pooled.residualNnh.value! > pooled.headlineNnh!,
      'expected pooled.residualNnh?.direction === "harm" && pooled.residualNnh.value! > pooled.headline...',
    );
  });

  it("reports the format gap and the within-format contrasts", () => {
    assert.ok(!("skipped" in result.format), 'expected !("skipped" in result.format)');
    const gap = result.format.gaps.find((g) => g.model === "all" && g.benchmark === "bbq")!;
    assert.ok(inside(0.03, gap.gap.ci95), JSON.stringify(gap.gap));
    const mr = result.format.withinFormat.find((w) => w.condition === "map_reduce")!;
    assert.ok(
      inside(-0.3, mr.rdMc.ci95) && inside(-0.3, mr.rdOe.ci95),
      "expected inside(-0.3, mr.rdMc.ci95) && inside(-0.3, mr.rdOe.ci95)",
    );
    assert.ok(inside(0, mr.interaction.ci95), "the planted effect does not depend on format");
  });

  it("leaves recovery undefined when the standard variant loses nothing", async () => {
    const noLoss = plantedTable({
      seed: 4,
      models: { "m-a": 0 },
      benchmarks: ["bbq"],
      itemsPerBenchmark: 300,
      effects: { direct: 0, map_reduce: 0.08, map_reduce_options: 0.08 },
    });
    const r = await analyzeStudy(noLoss, normalizePlan({ bootstrap: { resamples: 200 }, specification_curve: false }));
    assert.ok(!("skipped" in r.optionPreserving), 'expected !("skipped" in r.optionPreserving)');
    const row = r.optionPreserving.rows[0];
    assert.equal(row.recovery.estimate, null);
    assert.match(row.undefinedReason ?? "", /no loss/);
  });
});
