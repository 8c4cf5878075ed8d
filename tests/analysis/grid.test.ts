import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { gridAnalysis, type GridResult } from "../../src/analysis/grid/grid-analysis.js";
import { type AnalysisContext, type AnalysisRow, clusterKey, normalizePlan } from "../../src/analysis/index.js";
import { type PresentedAnalysis, registeredAnalyses } from "../../src/analysis/core/registry.js";
import {
  GRID_CARD_JSON,
  GRID_CARD_MD,
  gridCardMarkdown,
  NOT_RECORDED,
  writeGridCard,
} from "../../src/analysis/grid/card.js";
import type { AnalysisRecord } from "../../src/analysis/core/record.js";
import { gridCells } from "../../src/analysis/grid/cells.js";
import type { IntegrityResult } from "../../src/analysis/integrity/gate.js";
import { benchmarksWithoutThreshold } from "../../src/analysis/core/directory.js";
import type { AnalysisPlanInput } from "../../src/contracts/analysis.js";
import type { StudySpec } from "../../src/contracts/spec.js";
import { datasetLoaders } from "../../src/datasets/registry.js";
import { complianceFlipRate, complianceFlipRateCeiling, scoreDispersion } from "../../src/stats/index.js";
import { type GridDesign, paperDesign, plantedConfigurations, plantedGridTable, plantedScore } from "./grid-helpers.js";
import { plantedTable } from "./helpers.js";

const MODELS = { alpha: 0.1, beta: 0, gamma: -0.1 };
// tmpl: the template axis carries the planted effect; flip: beta beats alpha only under T4;
// plain: the models differ and nothing else does; crows_pairs: log-prob only (CFR N/A).
const DESIGN: GridDesign = paperDesign(
  40,
  {
    tmpl: { base: 0.5, template: { T1: 0, T2: 0.15, T3: 0.3, T4: -0.2 }, logprob: 0.2 },
    flip: { base: 0.5, modelTemplate: { alpha: { T4: -0.3 } } },
    plain: { base: 0.5, decoding: { moderate: 0.02 } },
    crows_pairs: { base: 0.4, logprobOnly: true },
  },
  MODELS,
);

function contextOf(
  design: GridDesign,
  grid: NonNullable<AnalysisPlanInput["grid"]> | false,
  integrity?: IntegrityResult,
): AnalysisContext {
  const table = plantedGridTable(design);
  const plan = normalizePlan({ comparison_facet: "template", grid });
  return {
    table,
    plan,
    resolved: { comparisonFacet: "template" },
    results: integrity ? { integrity } : {},
  } as unknown as AnalysisContext;
}

function run(design: GridDesign, grid: NonNullable<AnalysisPlanInput["grid"]> = {}, integrity?: IntegrityResult) {
  const out = gridAnalysis(contextOf(design, { resamples: 200, ...grid }, integrity));
  assert.ok(!("skipped" in out), "the grid analysis ran");
  return out as GridResult;
}

const full = (r: GridResult, benchmark: string) => r.envelopes[0].benchmarks.find((b) => b.benchmark === benchmark)!;
const configurationsOf = (benchmark: string, keep: (l: Record<string, string>) => boolean = () => true) =>
  plantedConfigurations(DESIGN, benchmark).filter(keep);

describe("grid analysis on a planted grid", () => {
  const result = run(DESIGN, {
    reference: { template: "T1", decoding: "greedy", few_shot: "0", scoring_path: "free_form" },
  });

  it("builds one envelope per benchmark with the valid configurations (|C| = 48, and 12 log-prob only)", () => {
    for (const b of Object.keys(DESIGN.benchmarks))
      assert.equal(full(result, b).configurations, configurationsOf(b).length);
    assert.equal(full(result, "tmpl").configurations, 48);
    assert.equal(full(result, "crows_pairs").configurations, 12);
  });

  it("SDI and CFR come from the planted per-configuration scores; CFR is N/A on CrowS-Pairs", () => {
    for (const b of ["tmpl", "plain"]) {
      for (const model of Object.keys(MODELS)) {
        const planted = configurationsOf(b).map((l) => plantedScore(DESIGN, model, b, l));
        const slice = full(result, b).models.find((m) => m.model === model)!;
        const expected = scoreDispersion(planted);
        assert.ok(
          Math.abs(slice.dispersion.sdi! - expected.sdi!) < 1e-12,
          "expected Math.abs(slice.dispersion.sdi! - expected.sdi!) < 1e-12",
        );
        assert.ok(
          Math.abs(slice.dispersion.min - expected.min) < 1e-12,
          "expected Math.abs(slice.dispersion.min - expected.min) < 1e-12",
        );
        assert.ok(
          Math.abs(slice.dispersion.max - expected.max) < 1e-12,
          "expected Math.abs(slice.dispersion.max - expected.max) < 1e-12",
        );
        for (const c of slice.cfr!) assert.equal(c.cfr, complianceFlipRate(planted, c.theta).cfr);
      }
    }
    for (const m of full(result, "crows_pairs").models) {
      assert.equal(m.cfr, null);
      assert.equal(m.cfrAtMedian, null);
    }
    const median = full(result, "tmpl").models[0].cfrAtMedian!;
    assert.ok(
      median.cfr! <= complianceFlipRateCeiling(48) + 1e-12,
      "expected median.cfr! <= complianceFlipRateCeiling(48) + 1e-12",
    );
  });

  it("finds the planted flip between alpha and beta with N+ / N- from the planted templates", () => {
    const pair = full(result, "flip").rankFlip!.pairs.find((p) => p.modelA === "alpha" && p.modelB === "beta")!;
    const configs = configurationsOf("flip");
    const sign = (l: Record<string, string>) =>
      Math.sign(plantedScore(DESIGN, "alpha", "flip", l) - plantedScore(DESIGN, "beta", "flip", l));
    assert.equal(pair.nPlus, configs.filter((l) => sign(l) > 0).length);
    assert.equal(pair.nMinus, configs.filter((l) => sign(l) < 0).length);
    // The planted structure: beta wins exactly the T4 configurations.
    assert.equal(pair.nMinus, configs.filter((l) => l.template === "T4").length);
    assert.equal(pair.rhoFlip, pair.nMinus / configs.length);
    assert.ok(!pair.d1, "expected !pair.d1");
    // No flip where none is planted: alpha dominates beta on `plain`.
    const plain = full(result, "plain").rankFlip!.pairs.find((p) => p.modelA === "alpha" && p.modelB === "beta")!;
    assert.equal(plain.rhoFlip, 0);
    assert.ok(plain.d1 && plain.d2, "expected plain.d1 && plain.d2");
  });

  it("attributes the variance to the template where it is planted, to the model where it is not", () => {
    const tmpl = result.variance.find((v) => v.benchmark === "tmpl")!;
    assert.ok(
      !("error" in tmpl.typeII) && !("error" in tmpl.typeIII),
      'expected !("error" in tmpl.typeII) && !("error" in tmpl.typeIII)',
    );
    const eta = (term: string) =>
      (tmpl.typeII as { terms: { term: string; etaSq: number }[] }).terms.find((t) => t.term === term)!.etaSq;
    assert.ok(
      eta("template") > eta("model") && eta("template") > eta("decoding") && eta("template") > eta("few_shot"),
      'expected eta("template") > eta("model") && eta("template") > eta("decoding") && eta("template") ...',
    );
    assert.ok(tmpl.typeII.rho! > 1, "expected tmpl.typeII.rho! > 1");
    const plain = result.variance.find((v) => v.benchmark === "plain")!;
    assert.ok(
      !("error" in plain.typeII) && plain.typeII.rho! < 1,
      'expected !("error" in plain.typeII) && plain.typeII.rho! < 1',
    );
    // Free-form slice only: 36 configurations x 3 models.
    assert.equal(tmpl.cells, configurationsOf("tmpl", (l) => l.scoring_path === "free_form").length * 3);
    assert.equal(
      result.variance.some((v) => v.benchmark === "crows_pairs"),
      false,
    );
  });

  it("re-analyses the declared tiers with their own |C|", () => {
    const sizes = (name: string) => result.envelopes.find((e) => e.name === name)!.benchmarks;
    const count = (name: string, b: string) => sizes(name).find((x) => x.benchmark === b)!.configurations;
    assert.equal(count("excl_t4", "tmpl"), configurationsOf("tmpl", (l) => l.template !== "T4").length);
    assert.equal(count("excl_diverse", "tmpl"), configurationsOf("tmpl", (l) => l.decoding !== "diverse").length);
    assert.equal(
      count("core", "tmpl"),
      configurationsOf("tmpl", (l) => l.template !== "T4" && l.decoding !== "diverse").length,
    );
    const conservative = (l: Record<string, string>) =>
      ["T1", "T3"].includes(l.template) && l.decoding === "greedy" && l.few_shot === "0";
    assert.equal(count("conservative_core", "tmpl"), configurationsOf("tmpl", conservative).length);
    assert.equal(count("conservative_core", "crows_pairs"), configurationsOf("crows_pairs", conservative).length);
    // Dropping T4 removes the only configurations where beta beats alpha.
    const flip = sizes("excl_t4")
      .find((x) => x.benchmark === "flip")!
      .rankFlip!.pairs.find((p) => p.modelA === "alpha" && p.modelB === "beta")!;
    assert.equal(flip.rhoFlip, 0);
  });

  it("stratifies by scoring path and reports the scoring-method effect over matched greedy configurations", () => {
    const strata = result.strata.find((s) => s.benchmark === "tmpl")!.slices;
    assert.deepEqual(
      strata.map((s) => [s.slice, s.configurations]),
      [
        ["free_form", configurationsOf("tmpl", (l) => l.scoring_path === "free_form").length],
        ["logprob", configurationsOf("tmpl", (l) => l.scoring_path === "logprob").length],
        ["mixed", 48],
      ],
    );
    const effect = result.scoringMethod.find((e) => e.model === "alpha" && e.benchmark === "tmpl")!;
    const greedy = configurationsOf("tmpl", (l) => l.decoding === "greedy" && l.scoring_path === "free_form");
    const gaps = greedy.map((l) =>
      Math.abs(
        plantedScore(DESIGN, "alpha", "tmpl", l) -
          plantedScore(DESIGN, "alpha", "tmpl", { ...l, scoring_path: "logprob" }),
      ),
    );
    assert.equal(effect.n, greedy.length);
    assert.ok(
      Math.abs(effect.mean - gaps.reduce((a, b) => a + b, 0) / gaps.length) < 1e-12,
      "expected Math.abs(effect.mean - gaps.reduce((a, b) => a + b, 0) / gaps.length) < 1e-12",
    );
    assert.ok(
      Math.abs(effect.max - Math.max(...gaps)) < 1e-12,
      "expected Math.abs(effect.max - Math.max(...gaps)) < 1e-12",
    );
    assert.equal(result.quantization.length, 0);
  });

  it("bootstraps every metric family over configurations, with the App. I maximum", () => {
    const metrics = result.bootstrap.map((f) => f.metric);
    assert.deepEqual(metrics, ["SDI", "CFR_0.5", "CFR_0.6", "CFR_0.7", "CFR_0.8", "tau_R", "rho"]);
    const sdi = result.bootstrap[0];
    const observedMax = Math.max(...sdi.slices.map((s) => s.point ?? Number.NEGATIVE_INFINITY));
    assert.equal(sdi.max.point, observedMax);
    for (const s of sdi.slices) {
      assert.ok(s.range && s.range[0] <= s.range[1], "expected s.range && s.range[0] <= s.range[1]");
      assert.ok(s.range[1] <= sdi.max.range![1] + 1e-12, "a slice's upper range never exceeds the maximum's");
    }
    // CrowS-Pairs has no CFR slices; rho has one per benchmark with a free-form slice.
    assert.equal(
      result.bootstrap[1].slices.some((s) => s.benchmark === "crows_pairs"),
      false,
    );
    assert.deepEqual(
      result.bootstrap.find((f) => f.metric === "rho")!.slices.map((s) => s.benchmark),
      ["flip", "plain", "tmpl"],
    );
  });

  it("checks parse-clean and item-subsample robustness", () => {
    for (const p of result.parseClean) assert.equal(p.configurations, full(result, p.benchmark).configurations);
    const sub = result.subsamples.find((s) => s.benchmark === "flip")!;
    assert.equal(sub.subsamples, 3);
    assert.equal(sub.perSubsample.length, 3);
    assert.ok(
      sub.cellRange && sub.cellRange.max >= sub.cellRange.median,
      "expected sub.cellRange && sub.cellRange.max >= sub.cellRange.median",
    );
  });
});

describe("grid cells", () => {
  const row = (item: string, seed: string, outcome: number, extra: Partial<AnalysisRow> = {}): AnalysisRow => ({
    trialId: null,
    model: "m",
    benchmark: "b",
    item,
    cluster: clusterKey("b", item),
    attempt: 1,
    facets: { template: "T1", decoding: "moderate", decoding_seed: seed },
    outcome,
    parseFailed: false,
    errored: false,
    simulated: true,
    ...extra,
  });
  const thresholds = normalizePlan({}).integrity;

  it("averages decoding seeds within each item before averaging items", () => {
    // Item 1: seeds 1,1,1,0 (mean 3/4); item 2: one seed, 0. Item mean 3/8; the pooled rate would be 3/5.
    const rows = [row("1", "1", 1), row("1", "2", 1), row("1", "3", 1), row("1", "4", 0), row("2", "1", 0)];
    const [cell] = gridCells(rows, ["template", "decoding"], { population: "itt", thresholds });
    assert.equal(cell.score, (3 / 4 + 0) / 2);
    assert.equal(cell.items, 2);
  });

  it("marks a cell with too many parse failures or errors unreadable, and gives it no score", () => {
    const failing = [
      row("1", "1", 0, { parseFailed: true }),
      row("2", "1", 1),
      row("3", "1", 0, { parseFailed: true }),
    ];
    const [cell] = gridCells(failing, ["template"], { population: "itt", thresholds });
    assert.equal(cell.score, null);
    assert.match(cell.unreadable!, /parse failures/);
    const errored = [row("1", "1", 0, { errored: true, outcome: null }), row("2", "1", 1)];
    assert.match(gridCells(errored, ["template"], { population: "itt", thresholds })[0].unreadable!, /errored/);
  });
});

describe("unreadable cells in the grid analysis", () => {
  const failing = {
    ...DESIGN,
    parseFailures: (m: string, b: string, l: Record<string, string>) =>
      m === "gamma" && b === "tmpl" && l.template === "T4" && l.scoring_path === "free_form" ? 0.5 : 0,
  };
  const gate: IntegrityResult = {
    failed: true,
    checks: [
      {
        check: "planted",
        title: "planted failure",
        status: "fail",
        threshold: "-",
        detail: "-",
        cells: [{ condition: "T2", benchmark: "plain", status: "fail", reason: "planted gate failure" }],
        downgraded: [],
      },
    ],
  };
  const result = run(failing, { reference: { template: "T4" } }, gate);

  it("leaves the unreadable configurations out of every envelope and lists them", () => {
    const dropped = configurationsOf("tmpl", (l) => l.template === "T4" && l.scoring_path === "free_form").length;
    assert.equal(full(result, "tmpl").configurations, 48 - dropped);
    assert.equal(full(result, "tmpl").dropped.length, dropped);
    const listed = result.cells.unreadable.filter((u) => u.benchmark === "tmpl");
    assert.equal(listed.length, dropped);
    assert.ok(
      listed.every((u) => u.model === "gamma" && /parse failures/.test(u.reason)),
      'expected listed.every((u) => u.model === "gamma" && /parse failures/.test(u.reason))',
    );
    const grid = result.grids.find((g) => g.benchmark === "tmpl")!;
    assert.equal(
      grid.configurations.some((c) => c.startsWith("T4") && c.endsWith("free_form")),
      false,
    );
  });

  it("follows the integrity gate's marks: the failed condition yields no number on its benchmark", () => {
    const t2 = configurationsOf("plain", (l) => l.template === "T2").length;
    assert.equal(full(result, "plain").configurations, 48 - t2);
    assert.ok(
      result.cells.unreadable.some((u) => u.benchmark === "plain" && /planted gate failure/.test(u.reason)),
      'expected result.cells.unreadable.some((u) => u.benchmark === "plain" && /planted gate failure/.t...',
    );
  });

  it("the card's point score at an unreadable reference says not interpretable", () => {
    const entry = result.card.entries.find((e) => e.model === "gamma" && e.benchmark === "tmpl")!;
    assert.equal(entry.pointScore.value, null);
    assert.match(entry.pointScore.note!, /not interpretable/);
    assert.match(result.notes.join("\n"), /unreadable cell/);
  });
});

describe("the GRID card", () => {
  const reference = { template: "T2", decoding: "greedy", few_shot: "3", scoring_path: "free_form" };
  const result = run(DESIGN, { reference, thresholds: [0.55, 0.65], roster: ["alpha", "beta", "gamma"] });

  it("has the six fields with values computed from the inputs", () => {
    assert.equal(result.card.entries.length, 3 * Object.keys(DESIGN.benchmarks).length);
    const entry = result.card.entries.find((e) => e.model === "beta" && e.benchmark === "tmpl")!;
    // (i) axis receipt
    assert.deepEqual(entry.receipt, [
      { axis: "template", value: "T2" },
      { axis: "decoding", value: "greedy" },
      { axis: "few-shot", value: "3" },
      { axis: "scoring", value: "free_form" },
      { axis: "quantization", value: NOT_RECORDED },
      { axis: "weights hash", value: "sha256:beta0000" },
    ]);
    // (ii) point score at the reference
    assert.equal(entry.pointScore.value, plantedScore(DESIGN, "beta", "tmpl", reference));
    // (iii) neighbourhood
    const planted = configurationsOf("tmpl").map((l) => plantedScore(DESIGN, "beta", "tmpl", l));
    assert.ok(
      Math.abs(entry.neighbourhood.min! - Math.min(...planted)) < 1e-12,
      "expected Math.abs(entry.neighbourhood.min! - Math.min(...planted)) < 1e-12",
    );
    assert.ok(
      Math.abs(entry.neighbourhood.max! - Math.max(...planted)) < 1e-12,
      "expected Math.abs(entry.neighbourhood.max! - Math.max(...planted)) < 1e-12",
    );
    assert.ok(
      Math.abs(entry.neighbourhood.mean! - planted.reduce((a, b) => a + b, 0) / planted.length) < 1e-12,
      "expected Math.abs(entry.neighbourhood.mean! - planted.reduce((a, b) => a + b, 0) / planted.lengt...",
    );
    assert.ok(
      entry.neighbourhood.sdi.range && entry.neighbourhood.tauR.range,
      "expected entry.neighbourhood.sdi.range && entry.neighbourhood.tauR.range",
    );
    assert.deepEqual(
      entry.neighbourhood.cfr!.map((c) => c.theta),
      [0.55, 0.65],
    );
    // (iv) CFR at the declared thresholds
    assert.deepEqual(
      entry.verdictStability!.map((v) => v.cfr),
      [0.55, 0.65].map((t) => complianceFlipRate(planted, t).cfr),
    );
    // (v) tau_R over the declared roster
    assert.deepEqual(entry.rankingStability.roster, ["alpha", "beta", "gamma"]);
    assert.equal(entry.rankingStability.tauR.point, full(result, "tmpl").tauR!.tauR);
    assert.equal(entry.rankingStability.nullExpectation, 0);
    // CrowS-Pairs: CFR N/A, and its reference (free-form) is not in its grid.
    const crows = result.card.entries.find((e) => e.benchmark === "crows_pairs")!;
    assert.equal(crows.verdictStability, null);
    assert.equal(crows.pointScore.value, null);
  });

  it("states exactly the axes that were not varied", () => {
    const grid = result.card.scope.filter((s) => /^(template|decoding|few_shot|scoring_path|quantization):/.test(s));
    assert.deepEqual(grid, [`quantization: not varied (not a facet of this study; ${NOT_RECORDED})`]);
    assert.ok(
      result.card.scope.some((s) => s.startsWith("models: only alpha, beta, gamma")),
      'expected result.card.scope.some((s) => s.startsWith("models: only alpha, beta, gamma"))',
    );
    assert.ok(
      result.card.scope.some((s) => s.includes(`${DESIGN.seedShifts.length} decoding seed(s)`)),
      "expected result.card.scope.some((s) => s.includes(`${DESIGN.seedShifts.length} decoding seed(s)`))",
    );
    const fixed = run({ ...DESIGN, fewShots: ["0"], decodings: ["greedy"] }).card.scope;
    assert.deepEqual(
      fixed.filter((s) => /^(template|decoding|few_shot|scoring_path|quantization):/.test(s)),
      [
        "decoding: not varied (fixed at greedy)",
        "few_shot: not varied (fixed at 0)",
        `quantization: not varied (not a facet of this study; ${NOT_RECORDED})`,
      ],
    );
    assert.ok(
      fixed.some((s) => s.startsWith("seed counts: one draw per trial (no stochastic decoding seeds)")),
      'expected fixed.some((s) => s.startsWith("seed counts: one draw per trial (no stochastic decoding...',
    );
  });

  it("renders all six fields in Markdown", () => {
    const text = gridCardMarkdown(result.card, "planted");
    for (const field of [
      "(i) Axis receipt",
      "(ii) Point score",
      "(iii) Score neighbourhood",
      "(iv) Verdict stability",
      "(v) Ranking stability",
      "(vi) Scope statement",
    ]) {
      assert.ok(text.includes(field), field);
    }
    assert.ok(text.includes("sha256:alpha000"), 'expected text.includes("sha256:alpha000")');
  });

  it("is written as grid-card.json and grid-card.md beside the scorecard", () => {
    const dir = mkdtempSync(join(tmpdir(), "grid-card-"));
    const record = {
      analysis: { grid: result, meta: { source: { study: "planted", path: "planted-grid" } } },
    } as unknown as AnalysisRecord;
    assert.deepEqual(writeGridCard(dir, record), [join(dir, GRID_CARD_JSON), join(dir, GRID_CARD_MD)]);
    const json = JSON.parse(readFileSync(join(dir, GRID_CARD_JSON), "utf8"));
    assert.deepEqual(json, JSON.parse(JSON.stringify(result.card)));
    assert.equal(readFileSync(join(dir, GRID_CARD_MD), "utf8"), gridCardMarkdown(result.card, "planted"));
    const skipped = {
      analysis: { grid: { skipped: "x" }, meta: { source: { study: null, path: "p" } } },
    } as unknown as AnalysisRecord;
    assert.deepEqual(writeGridCard(dir, skipped), []);
  });

  it("refuses a reference value that is not a level, naming the levels", () => {
    assert.throws(
      () => run(DESIGN, { reference: { template: "T9" } }),
      /analysis\.grid\.reference\.template: 'T9' is not a level; levels: T1, T2, T3, T4/,
    );
  });

  it("is skipped on a study without a grid axis (a scaffold comparison)", () => {
    const table = plantedTable({
      seed: 1,
      models: { m: 0 },
      benchmarks: ["b"],
      itemsPerBenchmark: 5,
      effects: { direct: 0, react: 0 },
    });
    const plan = normalizePlan({});
    const out = gridAnalysis({
      table,
      plan,
      resolved: { comparisonFacet: "scaffold" },
      results: {},
    } as unknown as AnalysisContext);
    assert.ok(
      "skipped" in out && /no grid axis/.test(out.skipped),
      'expected "skipped" in out && /no grid axis/.test(out.skipped)',
    );
  });

  it("reads CFR as N/A, with the loader's reason, on a CrowS-Pairs benchmark under any id (App. L)", async () => {
    // The spec names the benchmark `crows`: the plan's default list (crows_pairs) does not reach it,
    // the loader's meta does (what a study directory's analysis passes in).
    const design = paperDesign(20, { tmpl: { base: 0.5 }, crows: { base: 0.4, logprobOnly: true } }, MODELS);
    const reasons = await benchmarksWithoutThreshold({
      benchmarks: [
        { id: "tmpl", loader: "truthfulqa_mc1" },
        { id: "crows", loader: "crows_pairs" },
      ],
    } as unknown as StudySpec);
    assert.deepEqual(Object.keys(reasons), ["crows"]);
    assert.equal(reasons.crows, datasetLoaders.get("crows_pairs").meta.noPassThreshold);
    const without = gridAnalysis(contextOf(design, { resamples: 20 })) as GridResult;
    assert.ok(
      full(without, "crows").models.every((m) => m.cfr !== null),
      "without the loader's word CFR is computed",
    );
    const ctx = { ...contextOf(design, { resamples: 20 }), cfrNotApplicable: reasons };
    const result = gridAnalysis(ctx) as GridResult;
    const crows = full(result, "crows");
    assert.equal(crows.cfrNotApplicable, reasons.crows);
    for (const m of crows.models) assert.deepEqual([m.cfr, m.cfrAtMedian], [null, null]);
    assert.ok(
      full(result, "tmpl").models.every((m) => m.cfr !== null && full(result, "tmpl").cfrNotApplicable === undefined),
      'expected full(result, "tmpl").models.every((m) => m.cfr !== null && full(result, "tmpl").cfrNotA...',
    );
    // No CFR bootstrap slice for it; the card and its Markdown say N/A with the reason.
    for (const family of result.bootstrap.filter((f) => f.metric.startsWith("CFR_"))) {
      assert.ok(!family.slices.some((sl) => sl.benchmark === "crows"), family.metric);
    }
    const entry = result.card.entries.find((e) => e.benchmark === "crows")!;
    assert.equal(entry.verdictStability, null);
    assert.equal(entry.neighbourhood.cfr, null);
    const md = gridCardMarkdown(result.card, "t");
    const section = md.slice(md.indexOf(`## ${entry.model} / crows`));
    assert.match(section, /\(iv\) Verdict stability: N\/A \(its score is a stereotype-preference rate/);
    assert.match(section, /CFR N\/A \(its score is a stereotype-preference rate/);
  });

  it("is skipped when the plan turns it off", () => {
    assert.deepEqual(gridAnalysis(contextOf(DESIGN, false)), { skipped: "analysis.grid is false" });
  });
});

describe("the GRID card's |C| = 4 caveat and per-axis attribution", () => {
  // Planted: decoding moves every model's score by the same amount (no flip); only template T4
  // lowers alpha below beta and gamma (the flips). The attribution must name each.
  const PLANTED: GridDesign = paperDesign(
    40,
    {
      planted: {
        base: 0.5,
        decoding: { greedy: 0, moderate: 0.2, diverse: -0.2 },
        modelTemplate: { alpha: { T4: -0.3 } },
      },
    },
    MODELS,
  );
  const result = run(PLANTED);
  const overview = () => {
    const grid = registeredAnalyses().find((a) => a.name === "grid")!;
    return grid.overview!({ analysis: { grid: result } } as unknown as PresentedAnalysis);
  };

  it("names the planted flip axis (template) and the planted score axis (decoding)", () => {
    const a = result.card.attribution.find((x) => x.benchmark === "planted")!;
    assert.equal(a.flipAxis, "template", "the planted template x model term drives the flips");
    assert.equal(a.scoreAxis, "decoding", "the planted decoding shift moves the scores most");
    const row = (axis: string) => a.rows.find((r) => r.axis === axis)!;
    assert.equal(row("decoding").reversals, 0, "a shift common to every model reverses no pair");
    assert.equal(row("few_shot").reversals, 0, "few-shot carries no planted effect");
    assert.equal(row("template").reversalShare, 1, "every reversal comes from a template swap");
    // The template reversals, counted from the planted scores: a swap into or out of T4 reverses
    // alpha vs beta and alpha vs gamma wherever the planted scores order them strictly.
    const configs = plantedConfigurations(PLANTED, "planted");
    const key = (l: Record<string, string>) => [l.decoding, l.few_shot, l.scoring_path].join("|");
    const models = Object.keys(MODELS);
    let reversals = 0;
    for (const c1 of configs)
      for (const c2 of configs) {
        if (c1 === c2 || key(c1) !== key(c2) || c1.template >= c2.template) continue;
        for (let m = 0; m < models.length; m++)
          for (let n = m + 1; n < models.length; n++) {
            const s = (l: Record<string, string>) =>
              Math.sign(
                plantedScore(PLANTED, models[m], "planted", l) - plantedScore(PLANTED, models[n], "planted", l),
              );
            if (s(c1) !== 0 && s(c2) !== 0 && s(c1) !== s(c2)) reversals++;
          }
      }
    assert.ok(reversals > 0, "the planted design reverses some pair");
    assert.equal(row("template").reversals, reversals, "the template reversals match the planted scores");
  });

  it("prints the attribution in the overview, the Markdown card and the JSON card", () => {
    const lines = overview();
    assert.ok(
      lines.some((l) => l.includes("planted: moves scores: decoding") && l.includes("drives flips: template")),
      `the overview names both axes:\n${lines.join("\n")}`,
    );
    for (const line of lines) assert.ok(line.length <= 120, `overview line within 120 columns: ${line}`);
    const text = gridCardMarkdown(result.card, "planted");
    assert.ok(text.includes("## Per-axis attribution"), "the Markdown card has the attribution section");
    assert.ok(text.includes("drives flips: template"), "the Markdown card names the flip axis");
  });

  it("prints the |C| = 4 caveat next to every subset of four configurations", () => {
    const conservative = result.envelopes.find((e) => e.name === "conservative_core")!;
    assert.equal(conservative.benchmarks[0].configurations, 4, "T1 + T3 x greedy x 0-shot x 2 paths");
    const tier = result.card.tiers.find((t) => t.envelope === "conservative_core")!;
    assert.match(tier.note ?? "", /\|C\| = 4 caps rho\^max at 0\.5/, "the card's tier carries the caveat");
    assert.equal(
      result.card.tiers.filter((t) => t.note).length,
      result.card.tiers.filter((t) => t.configurations === 4).length,
      "only subsets of four configurations carry it",
    );
    const lines = overview();
    const row = lines.find((l) => l.startsWith("planted "))!;
    assert.ok(row.trimEnd().endsWith("*"), `the conservative core's cell is marked: ${row}`);
    assert.ok(
      lines.some((l) => l.includes("* |C| = 4 caps rho^max at 0.5")),
      "the overview prints the caveat under the table",
    );
    const text = gridCardMarkdown(result.card, "planted");
    assert.ok(
      text
        .split("\n")
        .some((l) => l.startsWith("| conservative_core | planted | 4 |") && l.includes("= 4 caps rho^max at 0.5")),
      "the Markdown card's subset row carries the caveat",
    );
  });
});
