/**
 * Planning a large design into the store: on SQLite the plan is stored a batch at a time while
 * the run executes, so the first trial starts after one batch; a `run` killed (SIGKILL) while
 * batches are still being stored resumes, and ends with every planned trial stored and finished
 * exactly once. Runs that need every trial stored first (here batch mode) store their whole plan
 * before executing, and Ctrl-C there stops between two batches.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { it } from "node:test";
import Database from "better-sqlite3";
import { runStudy } from "../../src/run/execute/run-study.js";
import { planTrials, plannedTrialCount, runIdFor } from "../../src/run/plan/plan.js";
import { openStore } from "../../src/run/store/open.js";
import { PLAN_BATCH } from "../../src/run/execute/trial-source.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { killWhenFinished, startPlannedRun, storeCounts } from "../helpers/planned-runs.js";
import { writeDemoSpec } from "../helpers/study.js";

it("a run killed while its plan is stored batch by batch resumes: every trial stored and finished once", {
  timeout: 180_000,
}, async () => {
  const batch = 50;
  const { specPath, outDir } = writeDemoSpec({
    items: 40,
    attempts: 5,
    facets: "    format: [mc]",
    models: ["medium", "strong"]
      .map((m) => `  - { id: sim-${m}, provider: sim, model: ${m}, options: { latency_ms: 10 } }`)
      .join("\n"),
    execution: "  concurrency: 4",
  });
  const total = 2 * 40 * 5;
  for (const threshold of [60, 220]) {
    const at = await killWhenFinished(startPlannedRun(specPath, outDir, batch), outDir, threshold);
    assert.ok(!at.endedFirst || at.seenFinished >= threshold, "the run ended by itself before the kill");
    assert.ok(at.stored < total, `killed while planning: ${at.stored} of ${total} stored`);
    assert.equal(at.stored % batch, 0, `only whole batches are stored (${at.stored})`);
    assert.ok(at.finished >= threshold && at.finished <= at.stored, `finished ${at.finished} of ${at.stored}`);
  }
  const last = startPlannedRun(specPath, outDir, batch);
  let stdout = "";
  last.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  const code = await new Promise<number | null>((resolve) => last.once("exit", resolve));
  assert.equal(code, 0, stdout);
  assert.deepEqual(JSON.parse(stdout), { pending: 0, finished: total, errored: 0 });

  const study = await prepareStudy(specPath);
  const planned = [...planTrials(study, runIdFor(study))].map((t) => t.id);
  const db = new Database(join(outDir, "parallax.db"), { readonly: true });
  try {
    const trials = db.prepare("select id, status, executions from trials").all() as {
      id: string;
      status: string;
      executions: number;
    }[];
    const ids = new Set(trials.map((t) => t.id));
    assert.equal(trials.length, total, "as many stored trials as planned");
    assert.equal(ids.size, total, "no trial id twice");
    assert.deepEqual(
      planned.filter((id) => !ids.has(id)),
      [],
      "every planned trial stored",
    );
    assert.ok(
      trials.every((t) => t.status === "finished" && t.executions === 1),
      "every trial finished, once",
    );
    const calls = db.prepare("select trial_id, count(*) as n from calls group by trial_id").all() as {
      trial_id: string;
      n: number;
    }[];
    assert.equal(calls.length, total, "every trial has its call");
    assert.ok(
      calls.every((c) => c.n === 1),
      "one call per trial: no finished trial ran again",
    );
  } finally {
    db.close();
  }
});

it("the first trial runs after one planning batch is stored, not the whole plan", async () => {
  const { specPath, outDir } = writeDemoSpec({ items: 50, attempts: 20, facets: "    format: [mc]" });
  const total = 50 * 20;
  const storedAtFirst: number[] = [];
  const stop = new AbortController();
  const result = await runStudy({
    specPath,
    outDir,
    env: process.env,
    planBatch: 100,
    stopSignal: stop.signal,
    onStart: ({ total: shown, pending }) => {
      assert.equal(shown, total, "the total counts trials not stored yet");
      assert.equal(pending, total);
    },
    onTrialDone: () => {
      if (storedAtFirst.length > 0) return;
      storedAtFirst.push(storeCounts(outDir).stored);
      stop.abort();
    },
  });
  assert.equal(storedAtFirst[0], 100, "one batch stored when the first trial finished");
  assert.equal(result.summary.stoppedBy, "stop");
  const { pending, finished, errored } = result.counts;
  assert.equal(pending + finished + errored, total, "trials not stored yet count as pending");
  assert.ok(finished > 0 && finished <= 100, `finished ${finished}`);
});

it("batch mode stores the whole plan before executing; a run killed while planning resumes it", async () => {
  const models = 10;
  const items = 100;
  const attempts = 100;
  const total = models * items * attempts;
  const { specPath, outDir } = writeDemoSpec({
    models: Array.from({ length: models }, (_, i) => `  - { id: sim-${i}, provider: sim, model: medium }`).join("\n"),
    items,
    attempts,
    facets: "    format: [mc]",
    execution: "  concurrency: 4\n  mode: batch",
  });
  const child = startPlannedRun(specPath, outDir, PLAN_BATCH);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exit.then(() => {
    exited = true;
  });
  while (!exited && storeCounts(outDir).stored === 0) await new Promise((r) => setTimeout(r, 10));
  child.kill("SIGKILL");
  await exit;

  const study = await prepareStudy(specPath);
  assert.equal(plannedTrialCount(study), total);
  const runId = runIdFor(study);
  const partial = storeCounts(outDir);
  assert.ok(partial.stored > 0 && partial.stored < total, `killed mid-planning: ${partial.stored} of ${total} stored`);
  assert.equal(partial.finished, 0, "no trial runs before the plan is stored");
  assert.equal(partial.stored % PLAN_BATCH, 0, "only whole batches were stored");

  // Resume: planning completes; the stop signal, raised once it has, keeps any trial from running.
  const stop = new AbortController();
  const resumed = await runStudy({
    specPath,
    outDir,
    env: process.env,
    stopSignal: stop.signal,
    onStart: () => stop.abort(),
  });
  assert.equal(resumed.summary.attempted, 0);
  assert.deepEqual(resumed.counts, { pending: total, finished: 0, errored: 0 });
  const store = await openStore(outDir);
  try {
    const stored = new Set((await store.listTrials(runId)).map((t) => t.id));
    assert.equal(stored.size, total);
    assert.deepEqual(
      [...planTrials(study, runId)].map((t) => t.id).filter((id) => !stored.has(id)),
      [],
      "no planned trial lost",
    );
  } finally {
    await store.close();
  }
});

it("Ctrl-C while a batch-mode run plans stops after the batch in hand (exit 130), saying how far it got", async () => {
  const items = 100;
  const attempts = 100;
  const { specPath, outDir } = writeDemoSpec({
    items,
    attempts,
    facets: "    format: [mc]",
    execution: "  concurrency: 4\n  mode: batch",
  });
  const stop = new AbortController();
  stop.abort();
  await assert.rejects(
    runStudy({ specPath, outDir, env: process.env, stopSignal: stop.signal }),
    (error: Error & { exitCode?: number }) => {
      assert.equal(error.exitCode, 130);
      assert.equal(
        error.message,
        `stopped while planning trials (${PLAN_BATCH} of ${items * attempts} stored): run the same command again to resume`,
      );
      return true;
    },
  );
});
