/**
 * examples/safety-repro.yaml (SafetyRepro's grid for real models) and examples/grid-quickstart.yaml
 * (the same design on the simulated panel): both plan, with cell counts computed from the specs'
 * own facets and exclusions; the quickstart runs and analyses end to end, and its planted T4 rank
 * flip is in the trials. Needs ../shared/datasets; skips with a message when it is absent.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { facetName } from "../../src/contracts/condition.js";
import type { StudySpec } from "../../src/contracts/spec.js";
import { summarisePlan } from "../../src/run/plan.js";
import { prepareStudy } from "../../src/run/study.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const DATASETS = resolve(repoRoot, "..", "shared", "datasets");
const skip = existsSync(DATASETS) ? false : `needs ${DATASETS}`;

/**
 * |C_b| recomputed from the spec by hand: templates x (free-form: every decoding, log-prob:
 * greedy only) x few-shot levels, minus what the benchmark's exclude entries remove.
 */
function expectedConfigurations(spec: StudySpec, benchmark: string): number {
  const f = spec.conditions.facets;
  const names = (values: unknown) => (Array.isArray(values) ? values : [values]).map((v) => facetName(v as never));
  const rules = spec.conditions.exclude.filter(
    (r) => r.benchmark !== undefined && names(r.benchmark).includes(benchmark),
  );
  const excludedPaths = rules.filter((r) => r.few_shot === undefined).flatMap((r) => names(r.scoring_path));
  const excludedShots = rules.filter((r) => r.scoring_path === undefined).flatMap((r) => names(r.few_shot));
  const shots = names(f.few_shot).filter((s) => !excludedShots.includes(s)).length;
  const paths = names(f.scoring_path).filter((p) => !excludedPaths.includes(p));
  const perPath = (path: string) => (path === "logprob" ? 1 : f.decoding.length);
  return f.template.length * shots * paths.reduce((sum, p) => sum + perPath(p), 0) * (f.quantization?.length ?? 1);
}

for (const name of ["safety-repro", "grid-quickstart"]) {
  describe(`examples/${name}.yaml`, { skip }, () => {
    it("plans the grid with the configuration counts its facets and exclusions imply", async () => {
      const study = await prepareStudy(join(repoRoot, "examples", `${name}.yaml`));
      const summary = summarisePlan(study);
      let cells = 0;
      for (const b of summary.perBenchmark) {
        assert.equal(b.configurations, expectedConfigurations(study.spec, b.benchmark), b.benchmark);
        cells += b.configurations * study.spec.models.length;
      }
      assert.equal(summary.configurationCells, cells);
      // The paper's |C| = 48 where the data allows the whole grid.
      const full = summary.perBenchmark.filter(
        (b) =>
          !study.spec.conditions.exclude.some(
            (r) => r.benchmark === b.benchmark || (Array.isArray(r.benchmark) && r.benchmark.includes(b.benchmark)),
          ),
      );
      for (const b of full) assert.equal(b.configurations, 4 * 3 * (3 + 1));
    });
  });
}

describe("examples/grid-quickstart.yaml end to end", { skip }, () => {
  it("runs, analyses, and its trials show the planted T4 rank flip", () => {
    const out = join(mkdtempSync(join(tmpdir(), "parallax-grid-")), "run");
    const cli = ["--import", "tsx", join(repoRoot, "src", "cli", "main.ts")];
    execFileSync(process.execPath, [...cli, "run", join(repoRoot, "examples", "grid-quickstart.yaml"), "--out", out], {
      stdio: "pipe",
    });
    const analyze = spawnSync(process.execPath, [...cli, "analyze", out], { encoding: "utf8" });
    assert.ok([0, 3].includes(analyze.status ?? -1), analyze.stderr);
    const csv = execFileSync(process.execPath, [...cli, "export", out], { encoding: "utf8" });
    const [header, ...lines] = csv.trim().split("\n");
    const columns = header.split(",");
    const at = (row: string[], c: string) => row[columns.indexOf(c)];
    assert.ok(columns.includes("decoding_seed") && columns.includes("model_revision"));
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
