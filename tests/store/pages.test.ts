import assert from "node:assert/strict";
import { test } from "node:test";
import { openStore } from "../../src/run/store/open.js";
import { eachTrial, trialPages } from "../../src/run/store/pages.js";
import { makeOutcome, makeRun, makeTrials } from "./store-suite.js";

test("trialPages reads a run in id order, a page at a time, with a status filter", async () => {
  const store = await openStore(":memory:");
  try {
    await store.saveRun(makeRun("r1"));
    const trials = makeTrials("r1", 10);
    await store.addPlannedTrials(trials);
    await store.completeTrial(trials[4].id, makeOutcome("finished"), []);
    const pages = [];
    for await (const page of trialPages(store, "r1", { pageSize: 3 })) pages.push(page.map((t) => t.id));
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 3, 1],
    );
    assert.deepEqual(pages.flat(), trials.map((t) => t.id).sort());
    const pending = [];
    for await (const trial of eachTrial(store, "r1", { status: ["pending"], pageSize: 4 })) pending.push(trial.id);
    assert.equal(pending.length, 9);
    assert.ok(!pending.includes(trials[4].id), "expected !pending.includes(trials[4].id)");
  } finally {
    await store.close();
  }
});
