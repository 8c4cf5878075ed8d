/**
 * Planning a large design stores its trials in batches, reporting progress while it does: a
 * `run` killed (SIGKILL) in the middle of planning leaves whole batches, and running again
 * stores exactly the planned trials, none lost and none twice.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { it } from "node:test";
import { runStudy } from "../../src/run/execute/run-study.js";
import { planTrials, plannedTrialCount, runIdFor } from "../../src/run/plan/plan.js";
import { openStore } from "../../src/run/store/open.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { writeDemoSpec } from "../helpers/study.js";

const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");
const PLAN_BATCH = 5_000;

/** Starts `parallax run` and kills it at its first planning line; returns that line. */
function killWhilePlanning(specPath: string, outDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI, "run", specPath, "--out", outDir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    let killedAt: string | undefined;
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const line = /^planning trials: .*$/m.exec(stderr)?.[0];
      if (line && killedAt === undefined) {
        killedAt = line;
        child.kill("SIGKILL");
      }
    });
    child.on("exit", () =>
      killedAt ? resolve(killedAt) : reject(new Error(`run ended before planning reported: ${stderr}`)),
    );
  });
}

it("a run killed while planning resumes it, storing every planned trial exactly once", async () => {
  const models = 10;
  const items = 100;
  const attempts = 100;
  const total = models * items * attempts;
  const { specPath, outDir } = writeDemoSpec({
    models: Array.from({ length: models }, (_, i) => `  - { id: sim-${i}, provider: sim, model: medium }`).join("\n"),
    items,
    attempts,
    facets: "    format: [mc]",
  });
  const line = await killWhilePlanning(specPath, outDir);
  const [, shown, of] = /planning trials: (\d+) of (\d+) stored/.exec(line) ?? [];
  assert.equal(Number(of), total, line);
  assert.ok(Number(shown) > 0, line);

  const study = await prepareStudy(specPath);
  assert.equal(plannedTrialCount(study), total);
  const runId = runIdFor(study);
  const countStored = async () => {
    const store = await openStore(outDir);
    try {
      const counts = await store.countByStatus(runId);
      return counts.pending + counts.finished + counts.errored;
    } finally {
      await store.close();
    }
  };
  const partial = await countStored();
  assert.ok(partial >= Number(shown) && partial < total, `killed mid-planning: ${partial} of ${total} stored`);
  assert.equal(partial % PLAN_BATCH, 0, "only whole batches were stored");

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
    const planned = new Set([...planTrials(study, runId)].map((t) => t.id));
    assert.equal(stored.size, total);
    assert.deepEqual(
      [...planned].filter((id) => !stored.has(id)),
      [],
      "no planned trial lost",
    );
  } finally {
    await store.close();
  }
});

it("Ctrl-C while planning stops after the batch in hand (exit 130), and says how far planning got", async () => {
  const items = 100;
  const attempts = 100;
  const { specPath, outDir } = writeDemoSpec({ items, attempts, facets: "    format: [mc]" });
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
