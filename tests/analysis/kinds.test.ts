/**
 * Study kinds: read from the design or declared in the spec, they choose the analyses that run;
 * each left-out analysis is named with its reason, and the scorecard, the summary and the report
 * follow the same selection. Also the number formats every output shares (no "-0.0 pp") and the
 * configuration labels (no empty slot).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analyzeStudy,
  buildScorecard,
  configurationOf,
  formatOverview,
  formatSummary,
  normalizePlan,
  pct,
  pp,
  scorecardMarkdown,
} from "../../src/analysis/index.js";
import { parseSpec } from "../../src/core/spec-loader.js";
import { renderReport } from "../../src/report/index.js";
import { plantedTable } from "./helpers.js";

const methodology = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

const table = () =>
  plantedTable({
    seed: 9,
    models: { m1: 0, m2: 0.05 },
    benchmarks: ["b1"],
    itemsPerBenchmark: 24,
    effects: { direct: 0, map_reduce: -0.1, react: 0 },
  });
const plan = () => normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: false });

describe("study kinds", () => {
  it("a scaffold comparison is a comparison study: its analyses run, the other kinds' are named as left out", async () => {
    const analysis = await analyzeStudy(table(), plan());
    const selection = analysis.meta.selection!;
    assert.deepEqual(selection.kinds, ["comparison"]);
    assert.equal(selection.kindsFrom, "design");
    const leftOut = new Map(selection.leftOut.map((l) => [l.analysis, l.reason]));
    for (const name of ["grid", "audit", "agents"]) {
      assert.match(leftOut.get(name) ?? "", /of another study kind; this study is comparison/, name);
      assert.ok(!(name in analysis), `${name} has a result`);
    }
    // The paper's H3 benchmarks (sycophancy, bbq, xstest, truthfulqa) are not here: left out, saying so.
    assert.match(leftOut.get("subhypotheses") ?? "", /H3-syc \(sycophancy\).*benchmarks here: b1/);
    assert.ok(!("subhypotheses" in analysis), "subhypotheses has a result");
    for (const name of ["rates", "contrasts", "hypotheses", "pairwise", "paired", "variance"])
      assert.ok(name in analysis, `${name} did not run`);
  });

  it("the default trend (ScaffoldSafety's order) is left out with one note when at most two of its levels are here", async () => {
    const two = await analyzeStudy(
      plantedTable({
        seed: 3,
        models: { m1: 0 },
        benchmarks: ["b1"],
        itemsPerBenchmark: 20,
        effects: { direct: 0, map_reduce: 0 },
      }),
      plan(),
    );
    assert.equal(two.hypotheses.trend, null);
    assert.ok(
      two.meta.notes.some((n) => /^trend \(H4\): left out: the default order is ScaffoldSafety's/.test(n)),
      "expected two.meta.notes.some((n) => /^trend \\(H4\\): left out: the default order is ScaffoldSafet...",
    );
    assert.ok(!two.meta.notes.some((n) => /declared level\(s\) not in the data/.test(n)), two.meta.notes.join("\n"));
    // A grid or agent study never reads ScaffoldSafety's order: no note about it.
    for (const kind of ["grid", "agents"] as const) {
      const other = await analyzeStudy(
        plantedTable({
          seed: 3,
          models: { m1: 0 },
          benchmarks: ["b1"],
          itemsPerBenchmark: 20,
          effects: { direct: 0, map_reduce: 0 },
        }),
        plan(),
        { kinds: [kind] },
      );
      assert.ok(!other.meta.notes.some((n) => /ScaffoldSafety/.test(n)), `${kind}: ${other.meta.notes.join("\n")}`);
    }
    // Three of the paper's levels: the trend runs over them.
    const three = await analyzeStudy(table(), plan());
    assert.ok(three.hypotheses.trend && !("error" in three.hypotheses.trend), JSON.stringify(three.hypotheses.trend));
    assert.deepEqual(three.hypotheses.trend.order, ["direct", "react", "map_reduce"]);
    // A declared trend over two levels is tested as declared.
    const declared = await analyzeStudy(
      plantedTable({
        seed: 3,
        models: { m1: 0 },
        benchmarks: ["b1"],
        itemsPerBenchmark: 20,
        effects: { direct: 0, map_reduce: 0 },
      }),
      normalizePlan({
        bootstrap: { resamples: 100 },
        specification_curve: false,
        hypotheses: { trend: { scores: { direct: 0, map_reduce: 1 } } },
      }),
    );
    assert.ok(declared.hypotheses.trend, "a declared trend is not left out");
  });

  it("kinds declared in the spec choose the analyses, and every output follows the selection", async () => {
    const analysis = await analyzeStudy(table(), plan(), { kinds: ["grid"] });
    const selection = analysis.meta.selection!;
    assert.deepEqual(selection.kinds, ["grid"]);
    assert.equal(selection.kindsFrom, "spec");
    const leftOut = selection.leftOut.map((l) => l.analysis);
    for (const name of ["format", "baselineDependence", "sensitivityProfiles", "subhypotheses", "audit", "agents"])
      assert.ok(leftOut.includes(name), `${name} not left out of a declared grid study`);
    for (const name of ["contrasts", "pairwise", "variance", "grid"])
      assert.ok(!leftOut.includes(name), `${name} left out of a grid study`);

    const card = buildScorecard(analysis, methodology);
    assert.equal(card.title, "Study scorecard", "a grid study's scorecard is not the Scaffold Safety Scorecard");
    const markdown = scorecardMarkdown(card);
    assert.match(markdown, /The GRID card of this study: grid-card\.md\./);
    assert.doesNotMatch(markdown, /Scaffold Safety Scorecard/);

    const overview = formatOverview(analysis, methodology);
    assert.match(overview, /^== GRID card \(SIMULATED\): configuration grid \(SafetyRepro\); in grid-card\.md ==$/m);
    assert.doesNotMatch(overview, /Scaffold Safety Scorecard/);
    assert.match(overview, /^left out: [^\n]*format/m);
    const full = formatSummary(analysis, methodology);
    assert.doesNotMatch(full, /^format: oe minus mc/m, "--full prints a left-out analysis");

    const html = renderReport({ analysis, methodology }, card, { trialsHref: "trials.html" });
    assert.doesNotMatch(html, /id="format"/, "the report renders a left-out analysis's section");
    assert.match(html, /Study kinds and analyses left out/);
    assert.match(html, /<td>sensitivityProfiles<\/td><td>of another study kind; this study is grid<\/td>/);
  });

  it("the spec takes `kind` or `kinds`, not both, and only known kinds", () => {
    const spec = (extra: string) =>
      [
        "study: s",
        extra,
        "models: [{ id: m, provider: sim, model: x }]",
        "benchmarks: [{ id: b, loader: inline, items: [{ id: i, stem: q }] }]",
        "conditions:",
        "  facets:",
        "    scaffold: [direct, cot]",
      ].join("\n");
    assert.equal(parseSpec(spec("kind: audit"), "s.yaml").kind, "audit");
    assert.deepEqual(parseSpec(spec("kinds: [comparison, grid]"), "s.yaml").kinds, ["comparison", "grid"]);
    assert.throws(
      () => parseSpec(spec("kind: grid\nkinds: [grid]"), "s.yaml"),
      /declare either kind or kinds, not both/,
    );
    assert.throws(() => parseSpec(spec("kind: survey"), "s.yaml"), /s\.yaml:2:\d+.*kind/);
  });
});

describe("shared text formats", () => {
  it("a difference that rounds to zero prints unsigned, never -0.0", () => {
    assert.equal(pp(-0.00001), "0.0 pp");
    assert.equal(pp(-1e-12, 2), "0.00 pp");
    assert.equal(pp(0), "0.0 pp");
    assert.equal(pp(-0.0004), "0.0 pp");
    assert.equal(pp(-0.0006), "-0.1 pp");
    assert.equal(pp(0.0006), "+0.1 pp");
    assert.equal(pct(-0.00001), "0.0%");
  });

  it("a configuration label has no empty slot for a facet the configuration does not set", () => {
    const row = { facets: { template: "T1", decoding: "greedy", decoding_seed: "", few_shot: "0" } };
    const varying = ["template", "decoding", "decoding_seed", "few_shot"];
    assert.equal(configurationOf(row as never, varying), "T1 · greedy · 0");
    assert.equal(
      configurationOf({ facets: { ...row.facets, decoding: "t0.7", decoding_seed: "2" } } as never, varying),
      "T1 · t0.7 · 2 · 0",
    );
  });
});
