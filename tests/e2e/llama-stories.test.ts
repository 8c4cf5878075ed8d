/**
 * examples/llama-stories.yaml, the README's llama example, loads and plans (no model is
 * loaded: the plan only checks that the GGUF file is there). Its model path is relative to the
 * spec's folder, so the plan works from any working directory (the test runs it from a temporary
 * one), and the README's command runs its 20 trials from the repository root (the provider gets
 * the spec's folder, as the plan's check does); it skips with a message when ../shared (the model
 * or the BBQ files) or the llama engine is absent.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { summarisePlan } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { runCli } from "../helpers/cli.js";
import { needsLlamaEngine } from "../helpers/prerequisites.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SPEC = resolve(repoRoot, "examples", "llama-stories.yaml");
const MODEL = resolve(repoRoot, "..", "shared", "models", "stories260K.gguf");
const BBQ = resolve(repoRoot, "..", "shared", "datasets", "bbq", "data");

const skip = !existsSync(MODEL)
  ? `examples/llama-stories.yaml needs ${MODEL} (the shared materials beside the checkout): not found`
  : !existsSync(BBQ)
    ? `examples/llama-stories.yaml needs the BBQ files in ${BBQ}: not found`
    : false;

test("examples/llama-stories.yaml loads and plans from any working directory", { skip }, async () => {
  const cwd = process.cwd();
  process.chdir(mkdtempSync(join(tmpdir(), "parallax-llama-cwd-")));
  try {
    const study = await prepareStudy(SPEC);
    assert.deepEqual(study.warnings, []);
    const [model] = study.spec.models;
    assert.equal(model.provider, "llama");
    assert.deepEqual(model.options, { context_size: 2048, threads: 1, chat_template: "plain" });
    const plan = summarisePlan(study);
    assert.equal(plan.models, 1);
    assert.equal(plan.conditions, 2, "direct and cot, MC");
    assert.equal(plan.items, 10);
    assert.equal(plan.trials, 20);
    assert.equal(plan.estimatedCalls, 20, "one call per trial");
    assert.equal(plan.estimatedCostUsd, 0, "a local model costs nothing");
  } finally {
    process.chdir(cwd);
  }
});

const needsEngine = needsLlamaEngine();

test("the README's llama command runs from the repository root: the GGUF resolves against the spec's folder", {
  skip: skip || needsEngine,
}, () => {
  const out = mkdtempSync(join(tmpdir(), "parallax-llama-root-"));
  try {
    const run = runCli(["run", "examples/llama-stories.yaml", "--out", out], { cwd: repoRoot });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /20 finished, 0 errored, 0 pending/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
