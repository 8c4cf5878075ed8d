/**
 * What `plan` and `run` refuse before anything is written (a design above execution.max_trials,
 * a sequential design without a contrast), the size warning, and the commands that write files
 * answering a path they cannot write with one line and exit 2 (missing folders are created).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";
import { interopDir, interopSkip } from "../interop/shared-logs.js";

/** 1-based line of the first line of `text` containing `needle`. */
function lineOf(text: string, needle: string): number {
  return text.split("\n").findIndex((line) => line.includes(needle)) + 1;
}

/** A refusal is one line (plus a spec error's heading), never a stack trace. */
function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at .+:\d+:\d+\)?\n/, `no stack trace: ${stderr}`);
  assert.doesNotMatch(stderr, /unexpected error/);
}

const sims = (n: number) =>
  Array.from({ length: n }, (_, i) => `  - { id: sim-${i}, provider: sim, model: medium }`).join("\n");
const seeds = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(", ");

describe("design size", () => {
  it("plan and run refuse a design above execution.max_trials at its spec line, and run writes nothing", () => {
    const models = 3;
    const items = 10;
    const attempts = 100;
    const conditions = 2;
    const trials = models * items * attempts * conditions;
    const limit = trials - 1;
    const { specPath, outDir } = writeDemoSpec({
      models: sims(models),
      items,
      attempts,
      facets: "    scaffold: [direct, cot]\n    format: [mc]",
      execution: `  concurrency: 4\n  max_trials: ${limit}`,
    });
    const line = lineOf(readFileSync(specPath, "utf8"), "max_trials:");
    for (const command of ["plan", "run"]) {
      const result = runCli(command === "run" ? ["run", specPath, "--out", outDir] : ["plan", specPath]);
      assert.equal(result.status, 2, `${command}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`study\\.yaml:${line}:\\d+: at YAML path execution\\.max_trials: `));
      assert.ok(result.stderr.includes(`${trials.toLocaleString("en-US")} trials`), result.stderr);
      assert.ok(result.stderr.includes(`execution.max_trials ${limit.toLocaleString("en-US")};`), result.stderr);
      assertNoStack(result.stderr);
    }
    assert.equal(existsSync(outDir), false, "run wrote nothing");
  });

  it("the default limit (5,000,000) is refused at once, before the plan renders any task", () => {
    const items = 100;
    const attempts = 100;
    const conditions = 1 + 500; // greedy, and diverse with 500 seeds
    const trials = items * attempts * conditions;
    assert.ok(trials > 5_000_000, "the design exceeds the default max_trials");
    const { specPath, outDir } = writeDemoSpec({
      items,
      attempts,
      facets: `    format: [mc]\n    decoding: [greedy, { name: diverse, seeds: [${seeds(500)}] }]`,
    });
    const started = Date.now();
    const plan = runCli(["plan", specPath]);
    assert.equal(plan.status, 2, plan.stderr);
    assert.ok(plan.stderr.includes(`the design has ${trials.toLocaleString("en-US")} trials`), plan.stderr);
    assert.ok(plan.stderr.includes("execution.max_trials 5,000,000 (its default)"), plan.stderr);
    assert.ok(Date.now() - started < 60_000, "refused without estimating");
    const run = runCli(["run", specPath, "--out", outDir]);
    assert.equal(run.status, 2, run.stderr);
    assert.equal(existsSync(outDir), false, "run wrote nothing");
  });

  it("plan names a design above 1,000,000 trials in a warning, and accepts it within the limit", () => {
    const items = 50;
    const attempts = 100;
    const conditions = 1 + 200;
    const trials = items * attempts * conditions;
    const { specPath } = writeDemoSpec({
      items,
      attempts,
      facets: `    format: [mc]\n    decoding: [greedy, { name: diverse, seeds: [${seeds(200)}] }]`,
      execution: "  concurrency: 4\n  max_trials: 2000000",
    });
    const plan = runCli(["plan", specPath]);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stderr, new RegExp(`^warning: the design has ${trials.toLocaleString("en-US")} trials`, "m"));
    assert.match(plan.stdout, new RegExp(`trials: ${trials}\\b`));
  });
});

describe("a sequential design without a contrast", () => {
  it("plan refuses it at execution.sequential, and run refuses it writing nothing", () => {
    const { specPath, outDir } = writeDemoSpec({
      facets: "    scaffold: [direct]\n    format: [mc]",
      execution: "  concurrency: 4\n  sequential:\n    looks: [0.5, 1]",
    });
    const line = lineOf(readFileSync(specPath, "utf8"), "sequential:") + 1;
    const plan = runCli(["plan", specPath]);
    assert.equal(plan.status, 2, plan.stderr);
    assert.match(plan.stderr, new RegExp(`study\\.yaml:${line}:\\d+: at YAML path execution\\.sequential: `));
    assert.match(plan.stderr, /comparison facet 'scaffold', but the design has none/);
    const run = runCli(["run", specPath, "--out", outDir]);
    assert.equal(run.status, 2, run.stderr);
    assert.equal(run.stderr, plan.stderr, "run refuses with plan's words");
    assert.ok(!existsSync(outDir) || readdirSync(outDir).length === 0, "run wrote nothing");
  });
});

describe("checks run makes after loading the spec", () => {
  it("a judge whose API key is not set is refused before anything is written", () => {
    const { specPath, outDir } = writeDemoSpec({ items: 4, facets: "    format: [mc, oe]" });
    const key = "PARALLAX_TEST_UNSET_JUDGE_KEY";
    writeFileSync(
      specPath,
      `${readFileSync(specPath, "utf8")}scoring:\n  judges:\n` +
        `    - { id: j, provider: openai, model: gpt-4o-mini, api_key_env: ${key} }\n`,
    );
    const env = { ...process.env };
    delete env[key];
    const run = runCli(["run", specPath, "--out", outDir], { env });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`model 'j' \\(openai\\): environment variable ${key} .*is not set`));
    assert.equal(existsSync(outDir), false, "run wrote nothing");
  });
});

describe("output paths", () => {
  const work = mkdtempSync(join(tmpdir(), "parallax-outputs-"));
  const file = join(work, "a-file");
  let study: string;
  before(() => {
    writeFileSync(file, "not a folder\n");
    const { specPath, outDir } = writeDemoSpec({ items: 4, facets: "    format: [mc]" });
    const run = runCli(["run", specPath, "--out", outDir]);
    assert.equal(run.status, 0, run.stderr);
    study = outDir;
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("export --output into missing folders creates them", () => {
    const target = join(work, "new", "deeper", "trials.csv");
    const result = runCli(["export", study, "--output", target]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(readFileSync(target, "utf8").trim().split("\n").length, 1 + 4, "header and 4 trials");
  });

  it("export --output through a file is one line, exit 2", () => {
    const target = join(file, "trials.csv");
    const result = runCli(["export", study, "--output", target]);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(
      result.stderr,
      `parallax: cannot create export file ${target}: a part of the path is a file, not a folder (ENOTDIR)\n`,
    );
  });

  it("export --output naming a folder is refused", () => {
    const result = runCli(["export", study, "--output", work]);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stderr, `parallax: export file ${work} is a folder; name a file\n`);
  });

  it("export --output whose writes fail (a full device) is one line, exit 2, not a silent success", {
    skip: existsSync("/dev/full") ? undefined : "no /dev/full on this system",
  }, () => {
    const result = runCli(["export", study, "--output", "/dev/full"]);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stderr, "parallax: cannot write export file /dev/full: no space left on the device (ENOSPC)\n");
  });

  it("run --out naming a file is one line, exit 2, the file untouched", () => {
    const { specPath } = writeDemoSpec({ items: 4, facets: "    format: [mc]" });
    const result = runCli(["run", specPath, "--out", file]);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stderr, `parallax: study directory ${file} is a file, not a folder\n`);
    assert.equal(readFileSync(file, "utf8"), "not a folder\n");
  });

  it("analyze --out and preregister --out through a file are one line, exit 2", () => {
    const analysis = runCli(["analyze", study, "--out", join(file, "analysis.json")]);
    assert.equal(analysis.status, 2, analysis.stderr);
    assert.match(analysis.stderr, /^parallax: cannot create analysis file .*a-file\/analysis\.json: .*\(ENOTDIR\)\n$/);
    const { specPath } = writeDemoSpec({ items: 4, facets: "    format: [mc]" });
    const stamp = runCli(["preregister", specPath, "--out", file]);
    assert.equal(stamp.status, 2, stamp.stderr);
    assert.equal(stamp.stderr, `parallax: study directory ${file} is a file, not a folder\n`);
  });

  it("import --out naming an existing file is one line, exit 2", { skip: interopSkip }, () => {
    const log = join(interopDir, "inspect-json", "data_arc_qwen.json");
    const result = runCli(["import", "inspect", log, "--out", file]);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stderr, `parallax: ${file} is a file; import into a new study directory\n`);
    assert.equal(readFileSync(file, "utf8"), "not a folder\n");
  });
});
