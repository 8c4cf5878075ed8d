/**
 * Judge sub-calls are crash safe: `parallax run` of a judged study is SIGKILLed at several
 * points (also while judge calls are in flight); rerunning the same command ends with every trial
 * finished once, exactly one verdict call per judged trial in its committed execution, the
 * blinding mapping sealed once (a resumed run reuses the sealed round) and the round judged once.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { finishedCount, killWhenFinished, startRun } from "../helpers/run-process.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";
import { STORED_CONDITION } from "../helpers/stored-texts.js";

test("SIGKILL during a judged run loses and duplicates no judge call", { timeout: 180_000 }, async () => {
  const { specPath, outDir } = writeDemoSpec();
  const spec = demoSpecYaml({
    items: 30,
    facets: "    format: [mc, oe]",
    models: `  - id: sim-slow
    provider: sim
    model: medium
    options: { latency_ms: 10 }`,
    execution: "  concurrency: 4",
  });
  writeFileSync(
    specPath,
    `${spec}scoring:
  judges:
    - { id: judge-a, provider: sim, model: judge-a, options: { ability: 1, latency_ms: 25 } }
    - { id: judge-b, provider: sim, model: judge-b, options: { ability: 0, latency_ms: 25 } }
  validation: { fraction: 0.5 }
  blinding: { guess_fraction: 0.5 }
`,
  );
  const planned = 2 * 30;
  for (const threshold of [8, 25, 45]) {
    await killWhenFinished(startRun(specPath, outDir), outDir, threshold, 15);
    assert.ok(finishedCount(outDir) < planned, `the run finished before the kill at ${threshold}`);
  }
  const last = startRun(specPath, outDir);
  let stderr = "";
  last.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number>((resolve) => last.once("exit", (c) => resolve(c ?? -1)));
  assert.equal(code, 0, stderr);

  const db = new Database(join(outDir, "parallax.db"), { readonly: true });
  try {
    const trials = db.prepare(`select id, status, executions, ${STORED_CONDITION}, scorer from trials`).all() as {
      id: string;
      status: string;
      executions: number;
      condition: string;
      scorer: string;
    }[];
    assert.equal(trials.length, planned);
    assert.ok(
      trials.every((t) => t.status === "finished" && t.executions === 1),
      'expected trials.every((t) => t.status === "finished" && t.executions === 1)',
    );
    const roles = db.prepare("select trial_id, role from calls").all() as { trial_id: string; role: string }[];
    const open = trials.filter((t) => JSON.parse(t.condition).format === "oe");
    assert.equal(open.length, 30);
    for (const t of open) {
      const mine = roles.filter((r) => r.trial_id === t.id).map((r) => r.role);
      assert.equal(mine.filter((r) => r === "judge").length, 1, `one verdict call: ${mine.join(",")}`);
      assert.ok(
        mine.filter((r) => r === "judge_validation").length <= 1,
        'expected mine.filter((r) => r === "judge_validation").length <= 1',
      );
      assert.match(t.scorer, /^judge:judge-a@/);
    }
    const verdicts = db.prepare("select role, trial_id from judge_verdicts").all() as {
      role: string;
      trial_id: string;
    }[];
    assert.equal(verdicts.filter((v) => v.role === "primary").length, 30);
    assert.equal(verdicts.filter((v) => v.role === "validation").length, 15);
    assert.ok(
      verdicts.every((v) => v.trial_id !== null),
      "linked at unblinding",
    );
  } finally {
    db.close();
  }
  const events = readFileSync(join(outDir, "blinding-log.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).event);
  assert.deepEqual(events, ["sealed", "judged", "unblinded"], "sealed once before the first run, judged once");
  const blinding = JSON.parse(readFileSync(join(outDir, "blinding.json"), "utf8"));
  assert.equal(blinding.responses, 30);
  // One configuration (format=oe): there is nothing to guess.
  assert.equal(blinding.guessing_check, null);
});
