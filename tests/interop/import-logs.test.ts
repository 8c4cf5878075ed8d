import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, test } from "node:test";
import { importLogs } from "../../src/interop/import.js";
import { HELM_DEFAULT_METRICS } from "../../src/interop/importers/helm.js";
import { openStore } from "../../src/run/store/open.js";
import {
  countEval,
  countHelm,
  countInspectJson,
  countLmEvalSamples,
  filesIn,
  interopDir,
  interopSkip,
  type RawCounts,
} from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-interop-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Imports, then reads back trials per (model, benchmark) and scores, and checks them against the raw counts. */
async function importAndCount(
  format: string,
  paths: string[],
  mapping?: string,
): Promise<{ trials: number; scores: number; maxAttempt: number; items: Set<string>; finished: number }> {
  const out = join(work, `${format}-${readdirSync(work).length}`);
  await importLogs({ format, paths, target: out, mapping });
  const store = await openStore(out);
  try {
    const run = (await store.getRun())!;
    const trials = await store.listTrials(run.id);
    const scores = await store.listScores(run.id);
    const counts = await store.countByStatus(run.id);
    return {
      trials: trials.length,
      scores: scores.length,
      maxAttempt: Math.max(0, ...trials.map((t) => t.attempt)),
      items: new Set(trials.map((t) => t.itemId)),
      finished: counts.finished + counts.errored,
    };
  } finally {
    await store.close();
  }
}

function sum(counts: RawCounts[]): RawCounts {
  return {
    trials: counts.reduce((n, c) => n + c.trials, 0),
    scores: counts.reduce((n, c) => n + c.scores, 0),
    maxEpoch: Math.max(0, ...counts.map((c) => c.maxEpoch)),
    items: new Set(counts.flatMap((c) => [...c.items])),
  };
}

test("every Inspect .eval log imports, one by one, with its samples, epochs and scores", {
  skip: interopSkip,
}, async () => {
  const logs = filesIn("inspect", ".eval");
  assert.equal(logs.length, 10);
  for (const log of logs) {
    const raw = countEval(log);
    const got = await importAndCount("inspect", [log]);
    assert.equal(got.trials, raw.trials, `${basename(log)}: trials`);
    assert.equal(got.finished, raw.trials, `${basename(log)}: every trial finished`);
    assert.equal(got.scores, raw.scores, `${basename(log)}: scores`);
    assert.equal(got.maxAttempt, raw.maxEpoch, `${basename(log)}: epochs`);
    assert.deepEqual(got.items, raw.items, `${basename(log)}: items`);
  }
});

test("all ten .eval logs import together when a mapping tells the copies apart", { skip: interopSkip }, async () => {
  const logs = filesIn("inspect", ".eval");
  const mapping = join(work, "evals.yaml");
  // custom.eval is a renamed copy of the input_task log; the two popularity logs share their items.
  writeFileSync(mapping, "facets:\n  log:\n    logs: { custom.eval: copy }\n    field: eval.task_id\n");
  const raw = sum(logs.map(countEval));
  const got = await importAndCount("inspect", logs, mapping);
  assert.equal(got.trials, raw.trials);
  assert.equal(got.scores, raw.scores);
  await assert.rejects(importLogs({ format: "inspect", paths: logs, target: join(work, "dup") }), /same trial/);
});

test("every Inspect .json log imports (the one without samples as an empty run)", { skip: interopSkip }, async () => {
  const logs = filesIn("inspect-json", ".json");
  assert.equal(logs.length, 4);
  for (const log of logs) {
    const raw = countInspectJson(log);
    const got = await importAndCount("inspect", [log]);
    assert.equal(got.trials, raw.trials, `${basename(log)}: trials`);
    assert.equal(got.scores, raw.scores, `${basename(log)}: scores`);
    assert.deepEqual(got.items, raw.items, `${basename(log)}: items`);
  }
});

test("lm-eval results with their --log_samples JSONL import", { skip: interopSkip }, async () => {
  const raw = sum(filesIn("lm-eval", ".jsonl").map(countLmEvalSamples));
  assert.ok(raw.trials > 0, "expected raw.trials > 0");
  const got = await importAndCount("lm-eval", [join(interopDir, "lm-eval")]);
  assert.equal(got.trials, raw.trials);
  assert.equal(got.scores, raw.scores);
  assert.deepEqual(got.items, raw.items);
});

test("every HELM run directory imports, with its correctness metrics as scores", { skip: interopSkip }, async () => {
  const dirs = readdirSync(join(interopDir, "helm")).map((d) => join(interopDir, "helm", d));
  assert.equal(dirs.length, 3);
  const raw = sum(dirs.map((d) => countHelm(d, HELM_DEFAULT_METRICS)));
  const got = await importAndCount("helm", dirs);
  assert.equal(got.trials, raw.trials);
  assert.equal(got.scores, raw.scores);
  assert.equal(got.maxAttempt, raw.maxEpoch);
  // A mapping that names one metric imports that one only.
  const mapping = join(work, "helm.yaml");
  writeFileSync(mapping, "metrics: [quasi_exact_match]\n");
  const one = await importAndCount("helm", dirs, mapping);
  assert.equal(one.scores, sum(dirs.map((d) => countHelm(d, ["quasi_exact_match"]))).scores);
});
