/**
 * A SIGKILL during agent trials loses nothing: a trial killed mid-trajectory (model and tool
 * sub-calls made, nothing committed) reruns from its start on resume and is stored once, with
 * one execution's calls numbered without gaps or duplicates.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { finishedCount, killWhenFinished, startRun } from "../helpers/run-process.js";
import { AGENT_TASKS, writeAgentStudy } from "../helpers/agent-study.js";
import { needsBubblewrap } from "../helpers/prerequisites.js";

const spec = writeAgentStudy({ attempts: 3, agent: "{ tool_calls: { agent: 3, actor: 2, executor: 2 } }" });
after(() => rmSync(spec.dir, { recursive: true, force: true }));

test("SIGKILL mid agent trial: resume reruns it from its start and stores it once", {
  timeout: 600_000,
  skip: needsBubblewrap(),
}, async () => {
  const planned = 3 * AGENT_TASKS.length * 3;
  await killWhenFinished(startRun(spec.specPath, spec.outDir), spec.outDir, 4);
  assert.ok(finishedCount(spec.outDir) < planned, "the run finished before the kill");
  const child = startRun(spec.specPath, spec.outDir);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? -1)));
  assert.equal(code, 0, stderr);

  const db = new Database(join(spec.outDir, "parallax.db"), { readonly: true });
  try {
    const trials = db.prepare("select id, status, executions from trials").all() as {
      id: string;
      status: string;
      executions: number;
    }[];
    assert.equal(trials.length, planned);
    assert.ok(
      trials.every((t) => t.status === "finished" && t.executions === 1),
      'expected trials.every((t) => t.status === "finished" && t.executions === 1)',
    );
    const calls = db.prepare("select trial_id, execution, seq, role from calls order by trial_id, seq").all() as {
      trial_id: string;
      execution: number;
      seq: number;
      role: string;
    }[];
    const byTrial = new Map<string, typeof calls>();
    for (const call of calls) byTrial.set(call.trial_id, [...(byTrial.get(call.trial_id) ?? []), call]);
    assert.equal(byTrial.size, planned, "every trial has its calls");
    for (const [id, own] of byTrial) {
      assert.ok(
        own.every((c) => c.execution === 1),
        id,
      );
      assert.deepEqual(
        own.map((c) => c.seq),
        own.map((_, i) => i + 1),
        `${id}: calls 1..n once each`,
      );
      assert.ok(
        own.some((c) => c.role === "tool"),
        `${id}: its tool calls are stored`,
      );
    }
  } finally {
    db.close();
  }
});
