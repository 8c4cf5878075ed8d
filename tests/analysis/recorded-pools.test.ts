/**
 * The analysis reads a run's study back from its store with each exemplar pool cut to the
 * exemplars the spec's few_shot levels draw (recorded-study.ts, as the run holds them): it holds
 * no whole pool, and every gold position it works out (the integrity facts, through the few-shot
 * facet's draw on tasks whose options were reordered) is the one the whole pools give.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { formattedGold } from "../../src/analysis/core/integrity-facts.js";
import { recordedStudy, releaseRecordedStudy } from "../../src/analysis/core/recorded-study.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { drawnPools } from "../../src/run/prepare/exemplars.js";
import { openStore } from "../../src/run/store/open.js";
import { openStoredStudy } from "../../src/run/store/stored-study.js";

/** Our own MMLU-format questions (headerless CSV: question, four options, answer letter). */
function writeCsv(path: string, count: number): void {
  const rows = Array.from({ length: count }, (_, i) => {
    const options = ["red", "green", "blue", "grey"].map((w) => `${w} ${i}`);
    return [`"Which colour is demo tile ${i}?"`, ...options, "ABCD"[i % 4]].join(",");
  });
  writeFileSync(path, `${rows.join("\n")}\n`);
}

describe("the study an analysis reads back", () => {
  it("holds the drawn exemplars only, and finds the golds the whole pools give", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-recorded-pools-"));
    writeCsv(join(dir, "tiles_test.csv"), 400);
    const specPath = join(dir, "study.yaml");
    writeFileSync(
      specPath,
      `study: recorded-pools
seed: 3
models:
  - { id: sim-a, provider: sim, model: medium, params: { temperature: 0 } }
benchmarks:
  - id: tiles
    loader: mmlu
    source: tiles_test.csv
    sample: { n: 12, seed: 4 }
    exemplars: { source: tiles_test.csv, exclude_evaluated: true }
conditions:
  facets:
    few_shot: ["0", "3", { name: "5", seed: 9 }]
    perturbation: [none, choice_reorder]
`,
    );
    const outDir = join(dir, "out");
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      releaseRecordedStudy();
      const recorded = await recordedStudy(outDir, store, run);
      assert.ok(!("unavailable" in recorded), "the run's study is in its store");
      const whole = await openStoredStudy(store, run, (missing) => new Error(missing));
      const wholePool = whole.exemplars.get("tiles")!;
      assert.ok(wholePool.length > 300, `the store keeps the whole pool (${wholePool.length} exemplars)`);
      const kept = recorded.exemplars.get("tiles")!;
      assert.deepEqual(kept, drawnPools(run.spec, whole.exemplars).get("tiles"), "the drawn exemplars, in pool order");
      assert.ok(kept.length <= 8, `no more than the 3 and 5 exemplars drawn (${kept.length})`);

      const trials = await store.listTrials(run.id);
      const hashes = [...new Set(trials.flatMap((t) => (t.taskHash ? [t.taskHash] : [])))];
      const tasks = await store.getTaskFacts(hashes);
      const conditionOf = new Map(trials.map((t) => [t.taskHash, t.condition]));
      let moved = 0;
      for (const [hash, task] of tasks) {
        if (task.perturbation?.status === "applied" && task.perturbation.changed?.includes("options")) moved++;
        const condition = conditionOf.get(hash)!;
        assert.deepEqual(
          formattedGold(task, condition, recorded),
          formattedGold(task, condition, whole),
          `the gold of task ${hash}`,
        );
      }
      assert.ok(moved > 0, "some tasks had their options reordered, so their gold was found through the draw");
    } finally {
      releaseRecordedStudy();
      await store.close();
    }
  });
});
