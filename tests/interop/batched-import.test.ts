/**
 * An lm-eval samples file is not held in memory: the importer reads it through (checking and
 * counting), and the import builds its documents again, one at a time, writing the trials in
 * bounded batches while the file is still being read. The store ends up with what writing the
 * whole prepared import at once gives.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { importLogs } from "../../src/interop/import.js";
import { lmEvalImporter } from "../../src/interop/importers/lm-eval.js";
import { defaultMapping } from "../../src/interop/mapping.js";
import { planImport, prepareImport } from "../../src/interop/study.js";
import type { ImportedLog, ImportedSample } from "../../src/interop/types.js";
import { openStore } from "../../src/run/store/open.js";

const work = mkdtempSync(join(tmpdir(), "parallax-batched-import-"));
after(() => rmSync(work, { recursive: true, force: true }));

const STAMP = "2026-01-01T00-00-00.000000";
const TASK = "invented_counts";

/**
 * An lm-eval output folder of `documents` documents. With two filters the rows come filter by
 * filter, as lm-eval writes them, so a document is complete only at its second row.
 */
function lmEvalFolder(name: string, documents: number, filters: string[]): string {
  const dir = join(work, name);
  mkdirSync(dir);
  const lines: string[] = [];
  for (const filter of filters)
    for (let doc = 0; doc < documents; doc++) {
      const answer = String((doc * 7) % 5);
      lines.push(
        JSON.stringify({
          doc_id: doc,
          doc: { question: `Invented question ${doc}` },
          target: String(doc % 5),
          arguments: { gen_args_0: { arg_0: `Question ${doc}: how many?`, arg_1: {} } },
          resps: [[`The answer is ${answer}`]],
          filtered_resps: [filter === "none" ? `The answer is ${answer}` : answer],
          filter,
          metrics: ["exact_match"],
          exact_match: answer === String(doc % 5) ? 1 : 0,
        }),
      );
    }
  writeFileSync(join(dir, `samples_${TASK}_${STAMP}.jsonl`), `${lines.join("\n")}\n`);
  writeFileSync(
    join(dir, `results_${STAMP}.json`),
    JSON.stringify({
      results: { [TASK]: Object.fromEntries(filters.map((f) => [`exact_match,${f}`, 0.2])) },
      "n-samples": { [TASK]: { original: documents, effective: documents } },
      model_name: "invented/model",
    }),
  );
  return dir;
}

test("an lm-eval samples file is streamed: written in bounded batches before it is read through", async () => {
  const documents = 2_500;
  const size = 100;
  const logs = await lmEvalImporter.read([lmEvalFolder("one-filter", documents, ["none"])], defaultMapping());
  assert.equal(logs.length, 1);
  const [log] = logs;
  assert.equal(log.samples.length, 0, "the importer holds no sample");
  assert.equal(log.stream?.count, documents, "it counted the documents");
  const plan = await planImport("lm-eval", logs, defaultMapping());
  assert.equal(plan.trials.length, documents);
  // Count the documents the file has given when each batch is written.
  const stream = log.stream!;
  let given = 0;
  log.stream = {
    count: stream.count,
    each: (visit) =>
      stream.each((sample) => {
        given++;
        return visit(sample);
      }),
  };
  const writes: { size: number; given: number }[] = [];
  await plan.batches(size, async (batch) => {
    writes.push({ size: batch.length, given });
  });
  assert.equal(writes.length, Math.ceil(documents / size), "one write per batch");
  assert.ok(
    writes.every((w) => w.size <= size),
    `batches of at most ${size}: ${writes.map((w) => w.size)}`,
  );
  assert.equal(
    writes.reduce((n, w) => n + w.size, 0),
    documents,
  );
  assert.ok(
    writes[0].given <= size,
    `the first batch is written after ${writes[0].given} of ${documents} documents were read`,
  );
  assert.ok(
    writes.every((w, i) => w.given <= (i + 1) * size),
    "batch k is written before more than k batches of documents were read",
  );
});

test("documents of several filters are merged, each given once when its last row is read", async () => {
  const documents = 40;
  const logs = await lmEvalImporter.read(
    [lmEvalFolder("two-filters", documents, ["none", "strict"])],
    defaultMapping(),
  );
  const samples: ImportedSample[] = [];
  await logs[0].stream!.each((sample) => {
    samples.push(sample);
  });
  assert.equal(samples.length, documents);
  assert.deepEqual(
    samples.map((s) => s.item),
    Array.from({ length: documents }, (_, i) => String(i)),
  );
  assert.ok(
    samples.every((s) => s.scores.map((x) => x.scorer).join() === "exact_match,exact_match,strict"),
    "each document carries both filters' scores",
  );
  assert.ok(
    samples.every((s) => s.entry === `line ${Number(s.item) + 1}`),
    "a document's entry is its first row",
  );
});

test("the batched import stores what writing the whole prepared import at once stores", async () => {
  const folder = lmEvalFolder("same-store", 230, ["none", "strict"]);
  const now = new Date("2026-02-03T04:05:06Z");
  const batched = join(work, "batched-study");
  await importLogs({ format: "lm-eval", paths: [folder], target: batched, now, batchSize: 17 });

  // The whole import in memory, written as one run, one set of trials, completions and scores.
  const [streamed] = await lmEvalImporter.read([folder], defaultMapping());
  const samples: ImportedSample[] = [];
  await streamed.stream!.each((sample) => {
    samples.push(sample);
  });
  const held: ImportedLog = { ...streamed, samples, stream: undefined };
  const prepared = prepareImport("lm-eval", [held], defaultMapping(), now);
  const whole = join(work, "whole-study");
  mkdirSync(whole);
  const store = await openStore(whole);
  try {
    await store.saveRun(prepared.run);
    await store.addPlannedTrials(prepared.trials);
    await store.completeTrials(prepared.completions);
    await store.saveScores(prepared.scores);
  } finally {
    await store.close();
  }

  const contents = async (dir: string) => {
    const s = await openStore(dir, { readOnly: true });
    try {
      const run = (await s.getRun())!;
      const trials = (await s.listTrials(run.id)).map(({ updatedAt: _, ...t }) => t);
      return { run, trials, calls: await s.listCalls(run.id), scores: await s.listScores(run.id) };
    } finally {
      await s.close();
    }
  };
  const a = await contents(batched);
  const b = await contents(whole);
  assert.equal(a.trials.length, 230);
  assert.equal(a.scores.length, 460);
  assert.deepEqual(a.run, b.run);
  assert.deepEqual(a.trials, b.trials);
  assert.deepEqual(a.calls, b.calls);
  assert.deepEqual(a.scores, b.scores);
});

test("a samples file changed between its reads is refused, naming it", async () => {
  const folder = lmEvalFolder("changed", 30, ["none"]);
  const logs = await lmEvalImporter.read([folder], defaultMapping());
  const row = { doc_id: 30, target: "1", resps: [["1"]], filtered_resps: ["1"], filter: "none" };
  appendFileSync(
    join(folder, `samples_${TASK}_${STAMP}.jsonl`),
    `${JSON.stringify({ ...row, metrics: ["exact_match"], exact_match: 1 })}\n`,
  );
  await assert.rejects(
    planImport("lm-eval", logs, defaultMapping()),
    /samples_invented_counts_.*changed during the import/,
  );
});
