/**
 * A configuration grid whose sampled decoding setting runs once per seed (greedy has no seed),
 * as the decoding facet expands it: the seeds are replicates nested in their setting, so a model
 * term for them would alias the decoding term. With the seeds pooled, every analysis of the
 * comparison estimates on such a grid, and a planted template effect is recovered; a scope with
 * too few clusters for its model is flagged by the integrity gate.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type AnalysisRow,
  type AnalysisTable,
  analyzeStudy,
  clusterKey,
  fitScopeGlm,
  normalizePlan,
  scoredRows,
  termFacets,
} from "../../src/analysis/index.js";
import { clusterFinding, modelCoefficients } from "../../src/analysis/integrity/cluster-scopes.js";
import { gateVerdicts, runIntegrityChecks } from "../../src/analysis/integrity/gate.js";
import { seededRandom } from "../../src/stats/index.js";

const FACETS = ["template", "decoding", "decoding_seed", "scoring_path"];

/** The configurations of the grid: greedy (both scoring paths) and a sampled setting with two seeds (free form only). */
const DECODINGS = [
  { decoding: "greedy", decoding_seed: "", scoring_path: "free_form" },
  { decoding: "greedy", decoding_seed: "", scoring_path: "logprob" },
  { decoding: "moderate", decoding_seed: "1", scoring_path: "free_form" },
  { decoding: "moderate", decoding_seed: "2", scoring_path: "free_form" },
];

interface NestedDesign {
  seed: number;
  itemsPerBenchmark: number;
  /** Template -> planted log-odds shift against T1. */
  templates: Record<string, number>;
}

const logistic = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Rows of a nested-seed grid: logit P(safe) = case effect (normal, SD 0.8) + model shift +
 * template shift - 0.5 (moderate decoding) + 0.3 (log-prob path). Each seed is its own draw.
 * Returns the table and the true marginal RD of each template vs T1 over the drawn cases.
 */
function nestedSeedGrid(design: NestedDesign): { table: AnalysisTable; trueRd: Record<string, number> } {
  const random = seededRandom(design.seed);
  const models: Record<string, number> = { "m-a": -0.3, "m-b": 0, "m-c": 0.4 };
  const rows: AnalysisRow[] = [];
  const rdSum: Record<string, number> = {};
  let rdCount = 0;
  for (const benchmark of ["bbq", "tqa"]) {
    for (let i = 1; i <= design.itemsPerBenchmark; i++) {
      const item = `${benchmark}-${i}`;
      const caseEffect = 0.8 * random.normal();
      for (const [model, shift] of Object.entries(models)) {
        for (const config of DECODINGS) {
          const eta =
            caseEffect +
            shift +
            (config.decoding === "moderate" ? -0.5 : 0) +
            (config.scoring_path === "logprob" ? 0.3 : 0);
          rdCount++;
          for (const [template, effect] of Object.entries(design.templates)) {
            rdSum[template] = (rdSum[template] ?? 0) + logistic(eta + effect) - logistic(eta);
            rows.push({
              trialId: null,
              model,
              benchmark,
              item,
              cluster: clusterKey(benchmark, item),
              attempt: 1,
              facets: { template, ...config },
              outcome: random.uniform() < logistic(eta + effect) ? 1 : 0,
              parseFailed: false,
              errored: false,
              simulated: true,
            });
          }
        }
      }
    }
  }
  const table: AnalysisTable = {
    rows,
    facets: FACETS,
    facetLevels: {
      template: Object.keys(design.templates),
      decoding: ["greedy", "moderate"],
      decoding_seed: ["", "1", "2"],
      scoring_path: ["free_form", "logprob"],
    },
    source: {
      kind: "table",
      path: "(planted nested-seed grid)",
      runId: null,
      study: "planted",
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
  const trueRd = Object.fromEntries(Object.entries(rdSum).map(([t, s]) => [t, s / rdCount]));
  return { table, trueRd };
}

const inside = (value: number, ci: readonly [number, number] | null | undefined) =>
  !!ci && ci[0] <= value && value <= ci[1];

const now = () => new Date("2026-01-01T00:00:00Z");

describe("a grid with decoding seeds nested in their setting", async () => {
  // T2 helps by +0.8 logit; T3 has no effect.
  const { table, trueRd } = nestedSeedGrid({ seed: 27, itemsPerBenchmark: 60, templates: { T1: 0, T2: 0.8, T3: 0 } });
  const plan = normalizePlan({
    comparison_facet: "template",
    bootstrap: { resamples: 400, seed: 3 },
    specification_curve: { contrast: "T2", permutations: 19, dimensions: ["model_subset", "population"] },
  });
  const result = await analyzeStudy(table, plan, { now });
  const pooled = result.contrasts.itt.pooled;
  const contrast = (name: string) => pooled.contrasts.find((c) => c.condition === name)!;

  it("aliases decoding when the seed is a model term, and the term list leaves the seed out", () => {
    const scored = scoredRows(table.rows, "itt");
    const crossed = { comparisonFacet: "template", reference: "T1", covariateFacets: FACETS.slice(1) };
    // Fitted as R's glm does: the seed columns nested in decoding are dropped and named.
    const aliased = fitScopeGlm(scored, crossed).fit.aliased.map((a) => a.column);
    assert.ok(
      aliased.some((c) => /decoding_seed/.test(c)),
      `a seed term is a linear combination of the intercept and the decoding term (aliased: ${aliased.join(", ")})`,
    );
    assert.deepEqual(termFacets(FACETS, "template"), ["decoding", "scoring_path"]);
    const { formula, fit } = fitScopeGlm(scored, { ...crossed, covariateFacets: termFacets(FACETS, "template") });
    assert.equal(formula, "outcome ~ template + model + benchmark + decoding + scoring_path");
    // The integrity gate counts the coefficients the contrasts' model fits.
    assert.equal(modelCoefficients(table.rows, "template"), fit.nParameters);
    const bbq = scored.filter((s) => s.row.benchmark === "bbq");
    const bbqFit = fitScopeGlm(bbq, { ...crossed, covariateFacets: termFacets(FACETS, "template") }).fit;
    assert.equal(
      modelCoefficients(
        table.rows.filter((r) => r.benchmark === "bbq"),
        "template",
      ),
      bbqFit.nParameters,
    );
  });

  it("estimates every contrast pooled and per benchmark, and recovers the planted template effect", () => {
    for (const scope of [pooled, ...result.contrasts.itt.byBenchmark, ...(result.contrasts.itt.byModel ?? [])]) {
      assert.ok(!scope.formula.includes("decoding_seed"), scope.formula);
      for (const c of scope.contrasts)
        assert.ok(!("error" in c.oddsRatio), `${scope.scope} ${c.condition}: ${JSON.stringify(c.oddsRatio)}`);
    }
    const t2 = contrast("T2");
    assert.ok(!("error" in t2.oddsRatio) && t2.oddsRatio.p < 1e-6, JSON.stringify(t2.oddsRatio));
    assert.ok(
      inside(trueRd.T2, t2.riskDifference?.ci95),
      `true RD ${trueRd.T2} vs ${JSON.stringify(t2.riskDifference)}`,
    );
    assert.equal(t2.verdict, "improves");
    const t3 = contrast("T3");
    assert.ok(!("error" in t3.oddsRatio) && t3.oddsRatio.p > 0.05, JSON.stringify(t3.oddsRatio));
    assert.ok(inside(0, t3.riskDifference?.ci95), JSON.stringify(t3.riskDifference));
    const omnibus = pooled.omnibus;
    assert.ok(omnibus && "chi2" in omnibus && omnibus.df === 2 && omnibus.p < 1e-6, JSON.stringify(omnibus));
  });

  it("runs all-pairwise, the interaction tests, the variance decomposition, the GLMM and the specification curve", () => {
    assert.ok(!("skipped" in result.pairwise), JSON.stringify(result.pairwise));
    const t3VsT2 = result.pairwise.contrasts.find((c) => c.first === "T2" && c.second === "T3");
    assert.ok(t3VsT2 && t3VsT2.oddsRatio < 1 && t3VsT2.p < 1e-6, JSON.stringify(t3VsT2));
    for (const interaction of result.hypotheses.interactions)
      assert.ok(interaction.test, `${interaction.with}: ${JSON.stringify(interaction)}`);
    const variance = result.variance.decomposition;
    assert.ok(!("error" in variance), JSON.stringify(variance));
    // Log-prob runs greedy only: decoding x scoring_path has no column the main effects leave free.
    assert.ok(
      variance.aliased?.some((c) => c.startsWith("decoding[T.moderate]:scoring_path")),
      JSON.stringify(variance.aliased),
    );
    assert.ok(!variance.rows.some((r) => r.term === "decoding:scoring_path"), "a fully aliased term has no row");
    assert.ok(!variance.terms.some((t) => t.includes("decoding_seed")), variance.terms.join(", "));
    const curve = result.specificationCurve;
    assert.ok(!("skipped" in curve), JSON.stringify(curve));
    assert.equal(curve.failed.length, 0, JSON.stringify(curve.failed));
    assert.ok(curve.summary.n > 0 && curve.summary.shareSignificant === 1, JSON.stringify(curve.summary));
    assert.ok(curve.permutation, curve.permutationNote ?? "no permutation test");
    const glmm = curve.glmm;
    assert.ok(!("error" in glmm) && !("skipped" in glmm), JSON.stringify(glmm));
    // The GLMM's case random intercept makes its odds ratio the conditional (planted) one.
    assert.ok(Math.abs(Math.log(glmm.oddsRatio) - 0.8) < 0.25, `GLMM OR ${glmm.oddsRatio} vs exp(0.8)`);
    assert.ok(glmm.p < 1e-6 && inside(Math.exp(0.8), glmm.ci95), JSON.stringify(glmm));
  });

  it("finds no template effect when none is planted", async () => {
    const nothing = nestedSeedGrid({ seed: 28, itemsPerBenchmark: 60, templates: { T1: 0, T2: 0, T3: 0 } });
    const null0 = await analyzeStudy(nothing.table, plan, { now });
    for (const c of null0.contrasts.itt.pooled.contrasts) {
      assert.ok(!("error" in c.oddsRatio) && c.oddsRatio.p > 0.05, `${c.condition}: ${JSON.stringify(c.oddsRatio)}`);
      assert.ok(inside(0, c.riskDifference?.ci95), `${c.condition}: ${JSON.stringify(c.riskDifference)}`);
    }
  });
});

describe("the integrity gate on clusters behind the cluster-robust tests", () => {
  it("fails a scope with no more clusters than coefficients, warns below the few-clusters line, passes above", () => {
    assert.equal(clusterFinding(6, 8, 30)?.status, "fail");
    assert.equal(clusterFinding(8, 8, 30)?.status, "fail");
    assert.equal(clusterFinding(9, 8, 30)?.status, "warn");
    assert.equal(clusterFinding(29, 8, 30)?.status, "warn");
    assert.equal(clusterFinding(30, 8, 30), null);
    assert.equal(clusterFinding(6, 8, 30)?.reason, "6 clusters for 8 coefficients");
  });

  it("never improves with fewer clusters, more coefficients or a higher few-clusters line", () => {
    const rank = (f: ReturnType<typeof clusterFinding>) => (f === null ? 2 : f.status === "warn" ? 1 : 0);
    for (let coefficients = 1; coefficients <= 20; coefficients++) {
      for (const few of [2, 10, 30, 50]) {
        for (let clusters = 1; clusters <= 60; clusters++) {
          const here = rank(clusterFinding(clusters, coefficients, few));
          assert.ok(
            here <= rank(clusterFinding(clusters + 1, coefficients, few)),
            `clusters ${clusters}, p ${coefficients}, few ${few}`,
          );
          assert.ok(
            here >= rank(clusterFinding(clusters, coefficients + 1, few)),
            `clusters ${clusters}, p ${coefficients}, few ${few}`,
          );
          assert.ok(
            here >= rank(clusterFinding(clusters, coefficients, few + 5)),
            `clusters ${clusters}, p ${coefficients}, few ${few}`,
          );
        }
      }
    }
  });

  it("downgrades the contrasts and the omnibus test of a scope with too few clusters, and only that scope", async () => {
    // 5 items per benchmark: a benchmark's model has 7 coefficients (intercept, 2 template,
    // 2 model, decoding, scoring path) on 5 clusters; pooled, 8 coefficients on 10 clusters.
    const { table } = nestedSeedGrid({ seed: 5, itemsPerBenchmark: 5, templates: { T1: 0, T2: 0.8, T3: 0 } });
    const plan = normalizePlan({
      comparison_facet: "template",
      bootstrap: { resamples: 200, seed: 3 },
      specification_curve: false,
    });
    const result = await analyzeStudy(table, plan, { now });
    const check = result.integrity.checks.find((c) => c.check === "few_clusters")!;
    assert.equal(check.status, "fail");
    assert.equal(result.integrity.failed, true);
    for (const scope of result.contrasts.itt.byBenchmark) {
      for (const c of scope.contrasts)
        assert.equal(c.verdict, "not interpretable: 5 clusters for 7 coefficients", `${scope.scope} ${c.condition}`);
      assert.equal(scope.omnibusNotInterpretable, "5 clusters for 7 coefficients", scope.scope);
    }
    const pooled = result.contrasts.itt.pooled;
    assert.ok(
      pooled.contrasts.every((c) => !c.notInterpretable),
      JSON.stringify(pooled.contrasts.map((c) => c.verdict)),
    );
    assert.equal(pooled.omnibusNotInterpretable, undefined);
    assert.ok(
      check.cells.some((f) => f.scope === "pooled" && f.status === "warn"),
      JSON.stringify(check.cells),
    );
    assert.ok(check.downgraded.includes("ITT bbq omnibus"), check.downgraded.join(", "));
  });

  it("is not available when the study's analyses compute no contrast", () => {
    const { table } = nestedSeedGrid({ seed: 5, itemsPerBenchmark: 5, templates: { T1: 0, T2: 0.8, T3: 0 } });
    const plan = normalizePlan({ comparison_facet: "template" });
    const integrity = runIntegrityChecks({ rows: table.rows, plan, comparisonFacet: "template", reference: "T1" });
    assert.equal(integrity.checks.find((c) => c.check === "few_clusters")?.status, "fail");
    gateVerdicts({}, integrity, "T1");
    const check = integrity.checks.find((c) => c.check === "few_clusters")!;
    assert.equal(check.status, "not available");
    assert.deepEqual(check.cells, []);
    assert.equal(integrity.failed, false, "no other check fails on these rows");
  });

  it("passes a grid with enough clusters in every scope", async () => {
    const { table } = nestedSeedGrid({ seed: 6, itemsPerBenchmark: 30, templates: { T1: 0, T2: 0.8, T3: 0 } });
    const plan = normalizePlan({
      comparison_facet: "template",
      bootstrap: { resamples: 200, seed: 3 },
      specification_curve: false,
    });
    const result = await analyzeStudy(table, plan, { now });
    const check = result.integrity.checks.find((c) => c.check === "few_clusters")!;
    assert.equal(check.status, "pass", JSON.stringify(check.cells));
  });
});
