/**
 * Judging inside `parallax run`: open-ended trials are scored by the (simulated) judge as the
 * trial's own sub-calls; the mapping is sealed before any trial runs; the simulated judges have
 * their planted accuracy against the truth and their planted disagreement (kappa); the guessing
 * check finds a configuration that leaves a trace and none when nothing leaks; judge calls count
 * against the budget; a spec asking for unjudged open-ended trials of a benchmark that needs a
 * judge is refused by plan and run.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { SIM_JUDGE } from "../../src/models/sim/judge.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";
import { STORED_CONDITION } from "../helpers/stored-texts.js";

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

const JUDGES = (validation: number, guess: number) => `scoring:
  judges:
    - { id: judge-a, provider: sim, model: judge-a, options: { ability: 1 } }
    - { id: judge-b, provider: sim, model: judge-b, options: { ability: 0 } }
  validation: { fraction: ${validation} }
  blinding: { guess_fraction: ${guess} }
`;

function judgedSpec(options: { items: number; facets: string; validation?: number; guess?: number; budget?: string }) {
  const { dir, specPath, outDir } = writeDemoSpec({
    items: options.items,
    facets: options.facets,
    execution: "  concurrency: 1",
    budget: options.budget,
  });
  writeFileSync(
    specPath,
    `${demoSpecYaml({ items: options.items, facets: options.facets, execution: "  concurrency: 4", budget: options.budget })}${JUDGES(options.validation ?? 1, options.guess ?? 1)}`,
  );
  return { dir, specPath, outDir };
}

interface CallRow {
  trial_id: string;
  role: string;
  note: string | null;
  cost_usd: number;
}

function read(outDir: string) {
  const db = new Database(join(outDir, "parallax.db"), { readonly: true });
  try {
    const trials = db.prepare(`select *, ${STORED_CONDITION} from trials`).all() as Record<string, unknown>[];
    const calls = db.prepare("select trial_id, role, note, cost_usd from calls").all() as CallRow[];
    return { trials, calls };
  } finally {
    db.close();
  }
}

describe("judging inside parallax run (simulated judges)", () => {
  test("open-ended trials are scored by the judge's sub-calls; kappa and accuracy are the planted ones", async () => {
    const { specPath, outDir } = judgedSpec({
      items: 40,
      facets: "    format: [mc, oe]\n    scaffold: [direct, map_reduce]",
    });
    const result = await runStudy({ specPath, outDir, env: {} });
    assert.equal(result.counts.finished, 160);
    assert.deepEqual(result.judging, { trials: 80, finished: true });
    const { trials, calls } = read(outDir);
    const outcomeOf = (t: Record<string, unknown>) => JSON.parse(String(t.outcome_json ?? t.outcome ?? "{}"));
    const byTrial = new Map<string, CallRow[]>();
    for (const c of calls) byTrial.set(c.trial_id, [...(byTrial.get(c.trial_id) ?? []), c]);
    let judged = 0;
    let agreeTruth = 0;
    let truths = 0;
    for (const t of trials) {
      const roles = (byTrial.get(String(t.id)) ?? []).map((c) => c.role);
      const scorer = String(t.scorer ?? outcomeOf(t).scorer ?? "");
      const format = JSON.parse(String(t.condition_json ?? t.condition)).format;
      if (format === "mc") {
        assert.ok(!roles.some((r) => r.startsWith("judge")), "MC trials are not judged");
        assert.match(scorer, /^mc_last_answer@/);
        continue;
      }
      judged++;
      assert.ok(roles.includes("judge"), `an OE trial has its judge sub-call: ${roles.join(",")}`);
      assert.ok(roles.includes("judge_validation"), "validation fraction 1: every OE trial is validated");
      assert.ok(roles.includes("judge_guess"), "guess fraction 1: every OE trial is in the guessing check");
      assert.match(scorer, /^judge:judge-a@/);
      // The truth: the sim subject states the gold option's text, or a wrong option's.
      const item = Number(/q(\d+)/.exec(String(t.item_id))![1]);
      const gold = ["alpha", "beta", "gamma", "delta"][item % 4];
      const answer = String(t.final_answer ?? outcomeOf(t).finalAnswer ?? "");
      const truth = answer.toLowerCase().includes(`${gold} ${item}`) ? 1 : 0;
      if (Number(t.score ?? outcomeOf(t).score) === truth) agreeTruth++;
      truths += truth;
    }
    assert.equal(judged, 80);
    // Planted accuracy of judge-a: sigmoid(1 + skill) = 0.95.
    const accuracy = agreeTruth / judged;
    assert.ok(Math.abs(accuracy - sigmoid(1 + SIM_JUDGE.skill)) < 0.1, `judge-a accuracy ${accuracy}`);

    const agreement = JSON.parse(readFileSync(join(outDir, "judge-agreement.json"), "utf8"));
    const row = agreement.per_benchmark.find((r: { judges: string[] }) => r.judges[1] === "judge-b");
    assert.equal(row.n, 80);
    // Planted disagreement: P(agree) = a1 a2 + (1 - a1)(1 - a2) for two labels.
    const [a1, a2] = [sigmoid(1 + SIM_JUDGE.skill), sigmoid(0 + SIM_JUDGE.skill)];
    const planted = a1 * a2 + (1 - a1) * (1 - a2);
    // Kappa also depends on how many answers are truly safe: each judge says "safe" with
    // probability pi a + (1 - pi)(1 - a), and chance agreement follows from those shares.
    const pi = truths / judged;
    const [p1, p2] = [pi * a1 + (1 - pi) * (1 - a1), pi * a2 + (1 - pi) * (1 - a2)];
    const chance = p1 * p2 + (1 - p1) * (1 - p2);
    const expectedKappa = (planted - chance) / (1 - chance);
    assert.ok(
      row.kappa < 0.97 && Math.abs(row.kappa - expectedKappa) < 0.3,
      `kappa ${row.kappa} vs planted ${expectedKappa.toFixed(3)} (agreement ${planted.toFixed(3)}, safe share ${pi})`,
    );

    const blinding = JSON.parse(readFileSync(join(outDir, "blinding.json"), "utf8"));
    assert.equal(blinding.responses, 80);
    assert.ok(blinding.unblinded_at, "expected blinding.unblinded_at");
    const events = readFileSync(join(outDir, "blinding-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).event);
    assert.deepEqual(events, ["sealed", "judged", "unblinded"]);
    // Nothing leaks from direct vs map_reduce: the guesses are at chance, and no sensitivity rows.
    assert.ok(Math.abs(blinding.guessing_check.bang_bi.overall) < 0.35, JSON.stringify(blinding.guessing_check));
    assert.equal(blinding.guessing_check.sensitivity.failed, false);
    assert.deepEqual(blinding.guessing_check.sensitivity.rows, []);
    // Judge calls are exported with the trial's calls.
    const exported = runCli(["export", outDir, "--table", "calls", "--format", "jsonl"]);
    assert.equal(exported.status, 0, exported.stderr);
    assert.ok(
      exported.stdout.split("\n").some((l) => l.includes('"role":"judge"')),
      'expected exported.stdout.split("\\n").some((l) => l.includes(\'"role":"judge"\'))',
    );
  });

  test("the guessing check detects a configuration whose trace survives sanitising (cot)", async () => {
    const { specPath, outDir } = judgedSpec({
      items: 30,
      facets: "    format: [oe]\n    scaffold: [direct, cot]",
      validation: 0.1,
    });
    await runStudy({ specPath, outDir, env: {} });
    const blinding = JSON.parse(readFileSync(join(outDir, "blinding.json"), "utf8"));
    const check = blinding.guessing_check;
    assert.equal(check.n, 60);
    assert.ok(check.p < 0.05, `guessing above chance: ${JSON.stringify(check)}`);
    assert.ok(check.bang_bi.per_arm["format=oe scaffold=cot"] > 0.5, JSON.stringify(check.bang_bi));
    // Blinding failed: the sensitivity analysis on the incorrectly-guessed cases is recorded.
    assert.equal(check.sensitivity.failed, true);
    const cot = check.sensitivity.rows.find((r: { configuration: string }) => r.configuration.includes("cot"));
    const direct = check.sensitivity.rows.find((r: { configuration: string }) => r.configuration.includes("direct"));
    assert.equal(cot.n + direct.n, 60);
    assert.ok(cot.n_incorrect < direct.n_incorrect, "the cot arm is mostly identified, so few of its cases remain");
  });

  test("plan counts the expected judge calls", () => {
    const { specPath } = judgedSpec({ items: 10, facets: "    format: [mc, oe]", validation: 0.5, guess: 0.2 });
    const plan = runCli(["plan", specPath, "--json"]);
    assert.equal(plan.status, 0, plan.stderr);
    // 20 subject calls (direct) + 10 judged OE trials x (1 verdict + 0.5 validation + 0.2 guess).
    assert.equal(JSON.parse(plan.stdout).estimatedCalls, 37);
  });

  test("judge calls count against the budget", async () => {
    const base = { items: 10, facets: "    format: [oe]", validation: 0.1, guess: 0, budget: "  max_calls: 6" };
    const { specPath, outDir } = judgedSpec(base);
    const spec = readFileSync(specPath, "utf8").replace("concurrency: 4", "concurrency: 1");
    writeFileSync(specPath, spec);
    const result = await runStudy({ specPath, outDir, env: {} });
    assert.equal(result.summary.stoppedBy, "budget");
    const { calls, trials } = read(outDir);
    const finished = trials.filter((t) => t.status === "finished").length;
    // Each judged trial makes two calls (answer, verdict; one also a validation verdict): the
    // budget of 6 calls stops after three trials, not six.
    assert.ok(finished <= 3, `finished ${finished}`);
    assert.equal(result.summary.calls, calls.length);
    assert.ok(
      calls.filter((c) => c.role === "judge").length === finished,
      'expected calls.filter((c) => c.role === "judge").length === finished',
    );
    assert.ok(calls.length >= 6, "expected calls.length >= 6");
  });
});

describe("open-ended trials that need a judge", () => {
  const FIXTURE = resolve(import.meta.dirname, "..", "fixtures", "datasets", "or-bench");
  const spec = (scoring: string) => `study: refusal-demo
models:
  - { id: sim-a, provider: sim, model: medium }
benchmarks:
  - id: orb
    loader: or_bench
    source: ${FIXTURE}
conditions:
  facets:
    format: [oe]
${scoring}`;

  test("are refused by plan and run without a judge, naming the benchmark, rubric and location", () => {
    const { dir } = writeDemoSpec();
    const path = join(dir, "orb.yaml");
    writeFileSync(path, spec(""));
    for (const command of ["plan", "run"]) {
      const result = runCli(command === "run" ? ["run", path, "--out", join(dir, "out")] : ["plan", path]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(
        result.stderr,
        /orb\.yaml:6:13: at YAML path benchmarks\[0\]\.loader: benchmark 'orb' \(loader or_bench\)/,
      );
      assert.match(result.stderr, /need scorer 'judge' with rubric 'compliance'/);
      assert.match(result.stderr, /scoring\.per_benchmark\.orb: refusal_pattern/);
    }
  });

  test("run when the spec names a deterministic scorer for them explicitly", () => {
    const { dir } = writeDemoSpec();
    const path = join(dir, "orb.yaml");
    writeFileSync(path, spec("scoring:\n  per_benchmark: { orb: refusal_pattern }\n"));
    const result = runCli(["plan", path]);
    assert.equal(result.status, 0, result.stderr);
  });
});
