import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

test("plan shows the expanded design without calling a model", () => {
  const { specPath } = writeDemoSpec({ items: 5, attempts: 2 });
  const result = runCli(["plan", specPath]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /1 model\(s\) x 2 condition\(s\) x 5 item\(s\) x 2 attempt\(s\)/);
  assert.match(result.stdout, /trials: 20/);
  assert.match(result.stdout, /format=mc/);
  const json = JSON.parse(runCli(["plan", specPath, "--json"]).stdout);
  assert.equal(json.trials, 20);
  assert.equal(json.estimatedCalls, 20);
});

test("a bad spec exits 2 with file, line and expectation, and writes nothing", () => {
  const { dir, outDir } = writeDemoSpec();
  const specPath = join(dir, "bad.yaml");
  writeFileSync(specPath, demoSpecYaml().replace("attempts: 1", "attempts: -3"));
  for (const args of [
    ["plan", specPath],
    ["run", specPath, "--out", outDir],
  ]) {
    const result = runCli(args);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /bad\.yaml:\d+:\d+: at YAML path attempts: expected/);
  }
  assert.equal(existsSync(outDir), false, "nothing is written for a bad spec");
});

test("run's closing lines fit 120 columns when the study folder's path does", () => {
  const { dir, specPath } = writeDemoSpec({ items: 2 });
  // Three times this path is far wider than a terminal; once, with a command, it fits.
  const outDir = join(dir, "a-study-folder", "by-model-and-condition");
  const run = runCli(["run", specPath, "--out", outDir]);
  assert.equal(run.status, 0, run.stderr);
  const wide = run.stdout.split("\n").filter((line) => line.length > 120);
  assert.deepEqual(wide, [], "no line wider than 120 columns");
  assert.match(
    run.stdout,
    new RegExp(`results: ${outDir.replace(/[/\\]/g, ".")}\n  parallax status .+\n  parallax export `),
  );
});

test("run, status and export work end to end; an unknown study directory is a clear error", () => {
  const { specPath, outDir } = writeDemoSpec({ items: 4 });
  const run = runCli(["run", specPath, "--out", outDir]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /ran 8 trial\(s\): 8 finished, 0 errored/);
  assert.match(run.stdout, new RegExp(`results: ${outDir.replace(/[/\\]/g, ".")}`));

  const status = runCli(["status", outDir]);
  assert.equal(status.status, 0, status.stderr);
  assert.match(status.stdout, /finished 8 \| errored 0 \| pending 0/);
  assert.match(status.stdout, /SIMULATED/);

  const exported = runCli(["export", outDir, "--table", "trials", "--format", "jsonl"]);
  assert.equal(exported.status, 0, exported.stderr);
  const rows = exported.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.equal(rows.length, 8);
  assert.ok(
    rows.every((r) => r.status === "finished" && r.simulated === true && (r.format === "mc" || r.format === "oe")),
    'expected rows.every((r) => r.status === "finished" && r.simulated === true && (r.format === "mc"...',
  );

  const missing = runCli(["status", join(outDir, "nope")]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /is not a study directory/);
  const badTable = runCli(["export", outDir, "--table", "items"]);
  assert.equal(badTable.status, 2);
  assert.match(badTable.stderr, /--table must be trials or calls/);
});

test("an unknown provider is named with the known ones, exit 2", () => {
  const { specPath, outDir } = writeDemoSpec({
    models: "  - id: x\n    provider: nosuch\n    model: m",
  });
  const result = runCli(["run", specPath, "--out", outDir]);
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /unknown provider 'nosuch'; known: anthropic, google, llama, openai, sim/);
  assert.equal(existsSync(outDir), false, "nothing is written for a bad model entry");
});

test("plan refuses the cells run would refuse, and says when it cannot check without keys", () => {
  const logprob = writeDemoSpec({ facets: "    format: [mc]\n    scoring_path: [free_form, logprob]" });
  const refused = runCli(["plan", logprob.specPath]);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /no continuation_logprobs capability/);

  const keyless = writeDemoSpec({
    models: "  - id: gpt\n    provider: openai\n    model: gpt-4o-mini\n    api_key_env: PARALLAX_UNSET_KEY_FOR_TEST",
  });
  const env = { ...process.env };
  delete env.PARALLAX_UNSET_KEY_FOR_TEST;
  const planned = runCli(["plan", keyless.specPath], { env });
  assert.equal(planned.status, 0, planned.stderr);
  assert.match(planned.stdout, /provider capability checks skipped \(.*PARALLAX_UNSET_KEY_FOR_TEST/);
  assert.match(planned.stdout, /trials: 20/);
});
