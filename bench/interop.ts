/**
 * npm run bench:interop — import and export throughput on a synthetic Inspect log pair.
 * Writes two older-format Inspect .json logs (two models on the same `-- --samples N` items,
 * default 5,000, 2 epochs each, our own invented text), then times `importLogs` into a study
 * directory, the EEE export (computed CIs) and the Parquet export of the trials and calls tables,
 * and reports wall time, throughput and output sizes. Prints Markdown.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { exportEee } from "../src/interop/eee/export.js";
import { importLogs } from "../src/interop/import.js";
import { exportParquet } from "../src/run/export/parquet.js";
import { openStore } from "../src/run/store/open.js";

const { values } = parseArgs({ options: { samples: { type: "string", default: "5000" } } });
const samples = Number(values.samples);
const epochs = 2;
const dir = mkdtempSync(join(tmpdir(), "parallax-bench-interop-"));

function syntheticLog(model: string, skill: number): string {
  const rows = [];
  for (let id = 1; id <= samples; id++) {
    for (let epoch = 1; epoch <= epochs; epoch++) {
      const question = `Invented question ${id}: which of the boxes holds ${id % 7} marbles?`;
      const answer = "ABCD"[(id * 7 + epoch) % 4];
      const correct = ((id * 2654435761 + epoch * 97 + skill) >>> 0) % 100 < skill;
      rows.push({
        id,
        epoch,
        input: question,
        choices: ["box one", "box two", "box three", "box four"],
        target: "A",
        messages: [
          { role: "user", content: question },
          { role: "assistant", content: `ANSWER: ${answer}` },
        ],
        output: {
          choices: [{ message: { role: "assistant", content: `ANSWER: ${answer}` } }],
          usage: { input_tokens: 40, output_tokens: 3 },
        },
        scores: { choice: { value: correct ? "C" : "I", answer, explanation: `ANSWER: ${answer}` } },
        total_time: 0.5,
      });
    }
  }
  return JSON.stringify({
    status: "success",
    eval: { task: "demo/boxes", model, task_args: {} },
    plan: { config: { temperature: 0.5, max_tokens: 64 } },
    results: { scores: [{ name: "choice" }] },
    samples: rows,
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

try {
  const logs = [
    ["demo/model-a", 60],
    ["demo/model-b", 75],
  ].map(([model, skill], i) => {
    const path = join(dir, `log-${i}.json`);
    writeFileSync(path, syntheticLog(model as string, skill as number));
    return path;
  });
  const trials = 2 * samples * epochs;
  const study = join(dir, "study");
  const [, importMs] = await timed(() => importLogs({ format: "inspect", paths: logs, target: study }));
  const store = await openStore(study);
  const run = (await store.getRun())!;
  const facets = Object.keys(run.spec.conditions.facets);
  const [eee, eeeMs] = await timed(() => exportEee({ target: study, store, run }, join(dir, "eee")));
  const [, trialsMs] = await timed(() =>
    exportParquet(store, { runId: run.id, facets, table: "trials" }, join(dir, "trials.parquet")),
  );
  const [, callsMs] = await timed(() =>
    exportParquet(store, { runId: run.id, facets, table: "calls" }, join(dir, "calls.parquet")),
  );
  await store.close();
  const mb = (path: string) => (statSync(path).size / 1e6).toFixed(2);
  const rate = (ms: number) => Math.round(trials / (ms / 1000)).toLocaleString("en");
  console.log(
    `## bench:interop (${trials.toLocaleString("en")} trials: 2 models x ${samples} samples x ${epochs} epochs)\n`,
  );
  console.log("| step | wall time | trials/s | output |");
  console.log("| --- | --- | --- | --- |");
  console.log(
    `| import inspect (2 .json logs, ${mb(logs[0])} MB each) | ${(importMs / 1000).toFixed(1)} s | ${rate(importMs)} | parallax.db ${mb(join(study, "parallax.db"))} MB |`,
  );
  console.log(
    `| export --format eee (${eee.instances} instances, CIs computed) | ${(eeeMs / 1000).toFixed(1)} s | ${rate(eeeMs)} | ${eee.files.length} files |`,
  );
  console.log(
    `| export --format parquet --table trials | ${(trialsMs / 1000).toFixed(1)} s | ${rate(trialsMs)} | ${mb(join(dir, "trials.parquet"))} MB |`,
  );
  console.log(
    `| export --format parquet --table calls | ${(callsMs / 1000).toFixed(1)} s | ${rate(callsMs)} | ${mb(join(dir, "calls.parquet"))} MB |`,
  );
  console.log(`\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
