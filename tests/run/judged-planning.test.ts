/**
 * A judged run on SQLite stores its plan batch by batch while it executes, as an unjudged one
 * does: the blinding round is sealed over the whole plan (read from planTrials) before the first
 * trial, so the first trial waits for one planning batch, not the whole plan. A run stopped or
 * SIGKILLed while the plan is still being stored resumes under the same sealed round: every
 * trial finished once, one verdict per judged trial, the round sealed once and judged once.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import Database from "better-sqlite3";
import { runStudy } from "../../src/run/execute/run-study.js";
import { planTrials, runIdFor } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { killWhenFinished, startPlannedRun, storeCounts } from "../helpers/planned-runs.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

const JUDGES = `scoring:
  judges:
    - { id: judge-a, provider: sim, model: judge-a, options: { ability: 1 } }
    - { id: judge-b, provider: sim, model: judge-b, options: { ability: 0 } }
  validation: { fraction: 0.5 }
  blinding: { guess_fraction: 0.5 }
`;

/** 40 items x 5 attempts x (mc, oe) on one model: 400 trials, the 200 open-ended ones judged. */
function judgedSpec(latencyMs: number) {
  const { specPath, outDir } = writeDemoSpec();
  const spec = demoSpecYaml({
    items: 40,
    attempts: 5,
    facets: "    format: [mc, oe]",
    models: `  - { id: sim-a, provider: sim, model: medium, options: { latency_ms: ${latencyMs} } }`,
    execution: "  concurrency: 4",
  });
  writeFileSync(specPath, `${spec}${JUDGES}`);
  return { specPath, outDir };
}
const TOTAL = 400;
const JUDGED = 200;

const mappingOf = (outDir: string): { trialId: string }[] =>
  JSON.parse(readFileSync(join(outDir, "blinding-mapping.json"), "utf8")).entries;

const eventsOf = (outDir: string): string[] =>
  readFileSync(join(outDir, "blinding-log.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).event);

/** The planned open-ended trials, in id order (the order the store pages them in). */
async function plannedJudgedIds(specPath: string): Promise<string[]> {
  const study = await prepareStudy(specPath);
  return [...planTrials(study, runIdFor(study))]
    .filter((t) => t.condition.format === "oe")
    .map((t) => t.id)
    .sort();
}

/** Every trial finished once; one primary verdict call per judged trial; the round judged over all of them. */
function assertJudgedOnce(outDir: string): void {
  const db = new Database(join(outDir, "parallax.db"), { readonly: true });
  try {
    const trials = db.prepare("select id, status, executions from trials").all() as {
      id: string;
      status: string;
      executions: number;
    }[];
    assert.equal(trials.length, TOTAL);
    assert.ok(
      trials.every((t) => t.status === "finished" && t.executions === 1),
      "every trial finished, once",
    );
    const verdictCalls = db.prepare("select trial_id, count(*) as n from calls where role = 'judge' group by trial_id");
    const perTrial = verdictCalls.all() as { trial_id: string; n: number }[];
    assert.equal(perTrial.length, JUDGED);
    assert.ok(
      perTrial.every((c) => c.n === 1),
      "one verdict call per judged trial",
    );
    const primaries = db.prepare("select count(*) as n from judge_verdicts where role = 'primary'").get() as {
      n: number;
    };
    assert.equal(primaries.n, JUDGED);
  } finally {
    db.close();
  }
}

it("a judged run seals its round over the whole plan and starts after one planning batch", async () => {
  const { specPath, outDir } = judgedSpec(0);
  const storedAtFirst: number[] = [];
  const stop = new AbortController();
  const stopped = await runStudy({
    specPath,
    outDir,
    env: {},
    planBatch: 50,
    stopSignal: stop.signal,
    onTrialDone: () => {
      if (storedAtFirst.length > 0) return;
      storedAtFirst.push(storeCounts(outDir).stored);
      stop.abort();
    },
  });
  assert.equal(storedAtFirst[0], 50, "one planning batch stored when the first trial finished");
  assert.deepEqual(stopped.judging, { trials: JUDGED, finished: false });
  const judged = await plannedJudgedIds(specPath);
  const sealed = mappingOf(outDir).map((e) => e.trialId);
  assert.deepEqual(sealed, judged, "the sealed mapping holds every planned judged trial, in id order");

  const resumed = await runStudy({ specPath, outDir, env: {}, planBatch: 50 });
  assert.deepEqual(resumed.counts, { pending: 0, finished: TOTAL, errored: 0 });
  assert.deepEqual(resumed.judging, { trials: JUDGED, finished: true });
  assert.deepEqual(
    mappingOf(outDir).map((e) => e.trialId),
    sealed,
    "the resumed run reuses the sealed round",
  );
  assert.deepEqual(eventsOf(outDir), ["sealed", "judged", "unblinded"]);
  assertJudgedOnce(outDir);
});

it("a judged run SIGKILLed while its plan is stored batch by batch resumes under its sealed round", {
  timeout: 180_000,
}, async () => {
  const batch = 50;
  const { specPath, outDir } = judgedSpec(10);
  for (const threshold of [30, 160]) {
    const at = await killWhenFinished(startPlannedRun(specPath, outDir, batch), outDir, threshold);
    assert.ok(!at.endedFirst, "the run ended by itself before the kill");
    assert.ok(at.stored < TOTAL, `killed while planning: ${at.stored} of ${TOTAL} stored`);
  }
  const last = startPlannedRun(specPath, outDir, batch);
  let output = "";
  last.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  last.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => last.once("exit", resolve));
  assert.equal(code, 0, output);
  assert.deepEqual(JSON.parse(output), { pending: 0, finished: TOTAL, errored: 0 });
  assert.deepEqual(eventsOf(outDir), ["sealed", "judged", "unblinded"], "sealed once, judged once");
  assert.deepEqual(
    mappingOf(outDir).map((e) => e.trialId),
    await plannedJudgedIds(specPath),
  );
  assertJudgedOnce(outDir);
});
