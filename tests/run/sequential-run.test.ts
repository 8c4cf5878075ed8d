import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStudy } from "../../src/run/execute/run-study.js";
import { readLooks } from "../../src/run/sequential/run-looks.js";
import { lookSchedule } from "../../src/run/sequential/schedule.js";
import { openStore } from "../../src/run/store/open.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { describeNeeding, it, needsSpecData } from "../helpers/prerequisites.js";

const EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "sequential-sim.yaml");
const SHARED = join(import.meta.dirname, "..", "..", "..", "shared");

/** The example with cot's planted shift replaced (its data path made absolute), in a temp dir. */
function variant(shift: string): { specPath: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), "parallax-sequential-"));
  const text = readFileSync(EXAMPLE, "utf8")
    .replaceAll("shift: -2 }", `shift: ${shift} }`)
    .replace("../../shared", SHARED);
  const specPath = join(dir, "study.yaml");
  writeFileSync(specPath, text);
  return { specPath, outDir: join(dir, "out") };
}

async function storedState(outDir: string) {
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const finished = await store.listTrials(run.id, { status: ["finished"] });
    return { looks: await readLooks(store, run.id), finished, counts: await store.countByStatus(run.id) };
  } finally {
    await store.close();
  }
}

describeNeeding(needsSpecData(EXAMPLE), "sequential runs", () => {
  it("every look holds whole items, the same share of each benchmark, in a seeded order", async () => {
    const study = await prepareStudy(variant("-2").specPath);
    const sequential = study.spec.execution.sequential!;
    const schedule = lookSchedule(study, sequential);
    assert.deepEqual(schedule.itemsAt, [40, 80, 120, 160]);
    const perLook = [0, 1, 2, 3].map((k) => [...schedule.entersAt.values()].filter((v) => v === k).length);
    assert.deepEqual(perLook, [40, 40, 40, 40]);
    const reseeded = lookSchedule(study, { ...sequential, seed: 99 });
    const moved = [...schedule.entersAt].filter(([item, look]) => reseeded.entersAt.get(item) !== look).length;
    assert.ok(moved > 40, `another seed orders the items differently (${moved} items change look)`);
  });

  it("stops at an early look on a large planted harm and records what it did not spend", async () => {
    const { specPath, outDir } = variant("-2");
    const result = await runStudy({ specPath, outDir, env: process.env });
    assert.equal(result.sequential?.stoppedEarly, true, "stopped early");
    const last = result.sequential!.looks.at(-1)!;
    assert.ok(last.look < 4, `stopped at look ${last.look}`);
    const cot = last.contrasts[0];
    assert.equal(cot.decision, "harm");
    assert.ok(cot.z! <= -cot.critical, `z ${cot.z} crosses -${cot.critical}`);
    assert.ok(cot.rci![1] < 0, "the repeated CI excludes no effect");
    assert.equal(last.end!.trialsNotRun, result.counts.pending);
    assert.ok(last.end!.trialsNotRun > 0 && last.end!.costNotSpentUsd > 0, "trials and dollars not spent");
    assert.equal(result.counts.finished, (last.items / 160) * 640, "only the looks' items ran");

    // Run again: the stop is read back, nothing is executed or paid again.
    const again = await runStudy({ specPath, outDir, env: process.env });
    assert.equal(again.summary.attempted, 0);
    assert.deepEqual(again.sequential!.looks, result.sequential!.looks);
  });

  it("runs to the last look when the condition has no effect", async () => {
    const { specPath, outDir } = variant("-0.25");
    const result = await runStudy({ specPath, outDir, env: process.env });
    assert.equal(result.sequential?.stoppedEarly, false);
    assert.equal(result.sequential!.looks.length, 4);
    assert.equal(result.counts.pending, 0);
    assert.equal(result.sequential!.looks.at(-1)!.end?.early, false);
  });

  it("an interrupted run resumes from its last recorded look, never running a finished trial again", async () => {
    const { specPath, outDir } = variant("-0.25");
    const stop = new AbortController();
    let done = 0;
    // Look 1 holds 160 trials: stop in the middle of look 2.
    const first = await runStudy({
      specPath,
      outDir,
      env: process.env,
      concurrency: 1,
      stopSignal: stop.signal,
      onTrialDone: () => {
        if (++done === 200) stop.abort();
      },
    });
    assert.equal(first.summary.stoppedBy, "stop");
    const middle = await storedState(outDir);
    assert.deepEqual(
      middle.looks.map((l) => l.look),
      [1],
      "look 1 recorded, look 2 not yet",
    );
    const resumed = await runStudy({ specPath, outDir, env: process.env });
    const after = await storedState(outDir);
    assert.deepEqual(
      after.looks.map((l) => l.look),
      [1, 2, 3, 4],
    );
    assert.deepEqual(after.looks[0], middle.looks[0], "look 1 is not analysed again");
    assert.equal(resumed.summary.attempted, 640 - middle.counts.finished, "only unfinished trials ran");
    assert.ok(
      after.finished.every((t) => t.executions === 1),
      "every finished trial was executed once",
    );
  });
});
