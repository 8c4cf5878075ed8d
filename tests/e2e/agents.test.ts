/**
 * The agent examples: examples/gaia.yaml (the paper's design on real models, the gated GAIA
 * validation files supplied by the user) plans on a GAIA-format folder written for the test;
 * examples/agents-quickstart.yaml plans, and runs end to end on a sample of its tasks with real
 * sandboxed tool calls on the simulated panel.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { loadSpec } from "../../src/core/spec-loader.js";
import { summarisePlan } from "../../src/run/plan/plan.js";
import { analyzeDirectory } from "../../src/analysis/core/directory.js";
import { normalizePlan } from "../../src/analysis/core/plan.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { needsBubblewrap } from "../helpers/prerequisites.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const GAIA = join(repoRoot, "examples", "gaia.yaml");
const QUICKSTART = join(repoRoot, "examples", "agents-quickstart.yaml");
const dir = mkdtempSync(join(tmpdir(), "parallax-agent-examples-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("examples/gaia.yaml", () => {
  it("is the paper's design: 5 models from 3 providers x 3 scaffolds, 3 attempts, Levels 1-2, 200K truncation", () => {
    const { spec } = loadSpec(GAIA);
    assert.deepEqual(
      spec.models.map((m) => m.provider),
      ["anthropic", "anthropic", "anthropic", "google", "openai"],
    );
    assert.deepEqual(spec.conditions.facets.scaffold, ["agent_react", "planner_actor_rater", "planner_executor"]);
    assert.equal(spec.attempts, 3);
    assert.deepEqual(spec.benchmarks[0].options?.levels, [1, 2]);
    assert.equal(spec.agent_limits?.context_tokens, 200_000);
  });

  it("plans on GAIA-format files: every Level 1-2 question x 15 cells x 3 attempts; Level 3 left out", async () => {
    const data = join(dir, "gaia", "data", "GAIA", "2023", "validation");
    cpSync(join(repoRoot, "examples", "agents", "validation"), data, { recursive: true });
    // One Level 3 task, which the design leaves out.
    const level3 = JSON.stringify({
      task_id: "l3",
      Question: "A hard one?",
      Level: 3,
      "Final answer": "x",
      file_name: "",
    });
    writeFileSync(join(data, "metadata.jsonl"), `${readFileSync(join(data, "metadata.jsonl"), "utf8")}${level3}\n`);
    const specPath = join(dir, "gaia", "gaia.yaml");
    cpSync(GAIA, specPath);
    const study = await prepareStudy(specPath);
    const questions = study.manifest.benchmarks[0].items.length;
    assert.equal(questions, readFileSync(join(data, "metadata.jsonl"), "utf8").trim().split("\n").length - 1);
    const plan = summarisePlan(study);
    assert.equal(plan.trials, 5 * 3 * questions * 3);
    // One family per level (the paper reads each level apart): 15 cells x the level's questions x 3.
    const levels = readFileSync(join(data, "metadata.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { Level: number }).Level);
    const perLevel = (level: number) => levels.filter((l) => l === level).length;
    assert.deepEqual(
      plan.families!.map((f) => [f.name, f.trials]),
      [
        ["level_1", 5 * 3 * perLevel(1) * 3],
        ["level_2", 5 * 3 * perLevel(2) * 3],
      ],
    );
    assert.ok(perLevel(1) > 0 && perLevel(2) > 0, "the test files hold questions of both levels");
  });
});

describe("examples/agents-quickstart.yaml", () => {
  it("plans: 3 simulated models x 3 agent scaffolds x 12 tasks x 3 attempts", async () => {
    const study = await prepareStudy(QUICKSTART);
    assert.ok(
      study.spec.models.every((m) => m.provider === "sim"),
      'expected study.spec.models.every((m) => m.provider === "sim")',
    );
    assert.equal(summarisePlan(study).trials, 3 * 3 * 12 * 3);
  });

  it("runs end to end with real sandboxed tool calls (one model, one attempt, a sample of tasks)", {
    skip: needsBubblewrap(),
    timeout: 300_000,
  }, async () => {
    const copy = join(dir, "quickstart");
    cpSync(join(repoRoot, "examples"), copy, { recursive: true });
    const specPath = join(copy, "agents-quickstart.yaml");
    const text = readFileSync(specPath, "utf8")
      .replace("attempts: 3", "attempts: 1")
      .replace("    source: agents", "    source: agents\n    sample: { n: 4, seed: 1 }");
    writeFileSync(specPath, text);
    const outDir = join(copy, "out");
    const result = await runStudy({ specPath, outDir, env: {} });
    assert.equal(result.counts.pending, 0);
    const store = await openStore(outDir);
    try {
      const calls = await store.listCalls(result.runId);
      const tools = calls.filter((c) => c.role === "tool");
      assert.ok(
        tools.some((c) => c.note?.tool === "bash" && c.note?.error === null),
        "a bash call ran in the sandbox",
      );
      assert.ok(
        tools.some((c) => c.note?.tool === "submit_answer"),
        'expected tools.some((c) => c.note?.tool === "submit_answer")',
      );
      // The attachments reached the sandbox: a read of one returned its content.
      assert.ok(
        tools.some((c) =>
          /store,units_sold|item,quantity|item,price_usd|Monday: Priya|Harbour:|worker-/.test(String(c.responseText)),
        ),
        "expected tools.some((c) => /store,units_sold|item,quantity|item,price_usd|Monday: Priya|Harbour:...",
      );
      // The run's own analysis is the GAIA comparison's: its agent rows come from the stored calls.
      const run = (await store.getRun(result.runId))!;
      const { analysis } = await analyzeDirectory(outDir, store, run, {
        plan: normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: false, agents: { resamples: 200 } }),
      });
      const agents = analysis.agents;
      assert.ok(agents && !("skipped" in agents), "the agent analyses ran on the agent trials");
    } finally {
      await store.close();
    }
  });
});
