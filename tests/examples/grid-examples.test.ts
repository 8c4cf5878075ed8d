/**
 * examples/safety-repro.yaml (SafetyRepro's grid for real models) and examples/grid-quickstart.yaml
 * (the same design on the simulated panel): both plan, with cell counts computed from the specs'
 * own facets and exclusions; the quickstart runs and analyses end to end, and its planted T4 rank
 * flip is in the trials. Needs ../shared/datasets; skips with a message when it is absent.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { facetName } from "../../src/contracts/condition.js";
import type { StudySpec } from "../../src/contracts/spec.js";
import { summarisePlan } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { describeNeeding, it, needsSharedData } from "../helpers/prerequisites.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const skip = needsSharedData();

/** One preparation per example (loading the real files takes a while on this machine). */
const studies = new Map<string, ReturnType<typeof prepareStudy>>();
function preparedExample(name: string): ReturnType<typeof prepareStudy> {
  if (!studies.has(name)) studies.set(name, prepareStudy(join(repoRoot, "examples", `${name}.yaml`)));
  return studies.get(name)!;
}

const names = (values: unknown) => (Array.isArray(values) ? values : [values]).map((v) => facetName(v as never));

/**
 * |C_b| recomputed from the spec: the product templates x decoding settings x few-shot levels x
 * scoring paths (x quantizations), minus every combination an exclude entry (general, or naming
 * this benchmark) matches. A decoding setting counts once however many seeds it averages.
 */
function expectedConfigurations(spec: StudySpec, benchmark: string): number {
  const f = spec.conditions.facets;
  const axes: [string, string[]][] = [
    ["template", names(f.template)],
    ["decoding", names(f.decoding)],
    ["few_shot", names(f.few_shot)],
    ["scoring_path", names(f.scoring_path)],
    ["quantization", f.quantization ? names(f.quantization) : ["(one)"]],
  ];
  const rules = spec.conditions.exclude.filter(
    (r) => r.benchmark === undefined || names(r.benchmark).includes(benchmark),
  );
  const product = axes.reduce<Record<string, string>[]>(
    (cells, [axis, values]) => cells.flatMap((cell) => values.map((value) => ({ ...cell, [axis]: value }))),
    [{}],
  );
  const excluded = product.filter((cell) =>
    rules.some((rule) =>
      Object.entries(rule).every(([key, value]) => key === "benchmark" || names(value).includes(cell[key])),
    ),
  );
  return axes.reduce((n, [, values]) => n * values.length, 1) - excluded.length;
}

/** Model x condition x benchmark cells: a sampled decoding setting runs once per declared seed. */
function expectedConditionCells(spec: StudySpec, benchmark: string): number {
  const f = spec.conditions.facets;
  const seeds = new Map(
    (f.decoding as unknown[]).map((d) => [
      facetName(d as never),
      typeof d === "object" && d !== null && "seeds" in d ? (d as { seeds: number[] }).seeds.length : 1,
    ]),
  );
  const shots = names(f.few_shot);
  const rules = spec.conditions.exclude.filter(
    (r) => r.benchmark === undefined || names(r.benchmark).includes(benchmark),
  );
  let cells = 0;
  for (const template of names(f.template))
    for (const decoding of names(f.decoding))
      for (const few_shot of shots)
        for (const scoring_path of names(f.scoring_path)) {
          const cell: Record<string, string> = { template, decoding, few_shot, scoring_path };
          const out = rules.some((rule) =>
            Object.entries(rule).every(
              ([key, value]) => key === "benchmark" || cell[key] === undefined || names(value).includes(cell[key]),
            ),
          );
          if (!out) cells += seeds.get(decoding)!;
        }
  return cells * (f.quantization?.length ?? 1);
}

for (const name of ["safety-repro", "grid-quickstart"]) {
  describeNeeding(skip, `examples/${name}.yaml`, () => {
    it("plans the grid with the configuration counts its facets and exclusions imply", async () => {
      const study = await preparedExample(name);
      const summary = summarisePlan(study);
      let cells = 0;
      for (const b of summary.perBenchmark) {
        assert.equal(b.configurations, expectedConfigurations(study.spec, b.benchmark), b.benchmark);
        assert.equal(b.conditions, expectedConditionCells(study.spec, b.benchmark), b.benchmark);
        cells += b.configurations * study.spec.models.length;
      }
      assert.equal(summary.configurationCells, cells);
    });
  });
}

describeNeeding(skip, "examples/safety-repro.yaml has the paper's accounting (SafetyRepro §3)", () => {
  it("|C| = templates x (decodings free-form + greedy log-prob) x few-shot levels, log-prob only for CrowS-Pairs", async () => {
    const study = await preparedExample("safety-repro");
    const summary = summarisePlan(study);
    const f = study.spec.conditions.facets;
    const [templates, decodings, shots] = [f.template.length, f.decoding.length, f.few_shot!.length];
    const logprobOnly = new Set(study.spec.benchmarks.filter((b) => b.loader === "crows_pairs").map((b) => b.id));
    // The paper's envelope: every combination except log-prob with sampling, and CrowS free-form.
    const full = templates * shots * (decodings + 1);
    const pairs = templates * shots;
    for (const b of summary.perBenchmark) {
      assert.equal(b.configurations, logprobOnly.has(b.benchmark) ? pairs : full, b.benchmark);
    }
    const models = study.spec.models.length;
    const freeBenchmarks = summary.perBenchmark.length - logprobOnly.size;
    assert.equal(summary.configurationCells, models * (freeBenchmarks * full + logprobOnly.size * pairs));
    // With the paper's axes this is its 612 = 3 x (4 x 48 + 12).
    if (models === 3 && freeBenchmarks === 4 && templates === 4 && decodings === 3 && shots === 3) {
      assert.equal(summary.configurationCells, 612);
      // ... and its 1,764 inference cells when each sampled decoding averages 5 seeds.
      if (f.decoding.every((d) => typeof d === "string" || (d as { seeds?: number[] }).seeds?.length === 5)) {
        assert.equal(summary.cells, 1764);
      }
    }
    // Its two sub-designs as families: the full grid on the four free-form benchmarks, the
    // log-prob grid on CrowS-Pairs; no trial in both, so the families add up to the plan.
    const families = Object.fromEntries(summary.families!.map((fam) => [fam.name, fam]));
    for (const b of families.grid.benchmarks) assert.equal(b.configurations, full, `grid ${b.benchmark}`);
    assert.deepEqual(
      families.crows_pairs.benchmarks.map((b) => [b.benchmark, b.configurations]),
      [...logprobOnly].map((id) => [id, pairs]),
    );
    assert.equal(families.grid.trials + families.crows_pairs.trials, summary.trials);
    assert.equal(families.grid.sharedTrials + families.crows_pairs.sharedTrials, 0);
    // Every few-shot level of every benchmark has its deterministic draw in the item manifest.
    for (const b of study.spec.benchmarks) assert.ok(b.exemplars, `${b.id} declares an exemplar pool`);
  });
});

describeNeeding(skip, "examples/grid-quickstart.yaml end to end", () => {
  it("runs, analyses, and its trials show the planted T4 rank flip", () => {
    const out = join(mkdtempSync(join(tmpdir(), "parallax-grid-")), "run");
    const cli = ["--import", "tsx", join(repoRoot, "src", "cli", "main.ts")];
    execFileSync(process.execPath, [...cli, "run", join(repoRoot, "examples", "grid-quickstart.yaml"), "--out", out], {
      stdio: "pipe",
    });
    const analyze = spawnSync(process.execPath, [...cli, "analyze", out], { encoding: "utf8" });
    // 12 items a benchmark carry every benchmark's cluster-robust tests: integrity passes.
    assert.equal(analyze.status, 0, `${analyze.stdout}\n${analyze.stderr}`);
    assert.match(analyze.stdout, /^measurement integrity: passed/m);
    // The decoding seeds are nested in their setting: every analysis of the comparison estimates.
    const { analysis } = JSON.parse(readFileSync(join(out, "analysis.json"), "utf8"));
    const itt = analysis.contrasts.itt;
    for (const scope of [itt.pooled, ...itt.byBenchmark, ...itt.byModel]) {
      assert.ok(!scope.formula.includes("decoding_seed"), scope.formula);
      for (const c of scope.contrasts)
        assert.ok(!("error" in c.oddsRatio), `${scope.scope} ${c.condition}: ${c.verdict}`);
    }
    assert.ok(!("skipped" in analysis.pairwise), JSON.stringify(analysis.pairwise));
    assert.ok(!("error" in analysis.variance.decomposition), JSON.stringify(analysis.variance.decomposition));
    assert.equal(analysis.specificationCurve.failed.length, 0, JSON.stringify(analysis.specificationCurve.failed));
    assert.ok(!("error" in analysis.specificationCurve.glmm), JSON.stringify(analysis.specificationCurve.glmm));
    for (const interaction of analysis.hypotheses.interactions)
      assert.ok(interaction.test, JSON.stringify(interaction));
    // Each benchmark's cases carry its cluster-robust model: every omnibus test is read.
    for (const scope of itt.byBenchmark) assert.equal(scope.omnibusNotInterpretable, undefined, scope.scope);
    // CrowS-Pairs (here `crows`) has no pass/fail cutoff: its CFR reads N/A with the loader's reason (App. L).
    const card = readFileSync(join(out, "grid-card.md"), "utf8");
    const crowsSection = card.slice(card.indexOf(" / crows\n"));
    assert.match(crowsSection, /\(iv\) Verdict stability: N\/A \(its score is a stereotype-preference rate/);
    assert.doesNotMatch(card.slice(card.indexOf(" / crows\n")).split("\n## ")[0], /CFR_0\.5 = /);
    // The table is over a megabyte (execFileSync's default buffer): 8,208 rows with their provenance columns.
    const csv = execFileSync(process.execPath, [...cli, "export", out], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const [header, ...lines] = csv.trim().split("\n");
    const columns = header.split(",");
    const at = (row: string[], c: string) => row[columns.indexOf(c)];
    assert.ok(
      columns.includes("decoding_seed") && columns.includes("model_revision"),
      'expected columns.includes("decoding_seed") && columns.includes("model_revision")',
    );
    const rows = lines.map((l) => l.split(","));
    const mean = (model: string, t4: boolean) => {
      const scored = rows.filter(
        (r) =>
          at(r, "model") === model &&
          (at(r, "template") === "T4") === t4 &&
          at(r, "benchmark") !== "crows" &&
          at(r, "outcome") !== "",
      );
      return scored.reduce((s, r) => s + Number(at(r, "outcome")), 0) / scored.length;
    };
    assert.ok(mean("steady", false) > mean("cot_lover", false), "steady ahead under T1-T3");
    assert.ok(mean("cot_lover", true) > mean("steady", true), "cot_lover ahead under T4");
  });
});
