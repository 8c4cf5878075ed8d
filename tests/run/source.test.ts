/**
 * The executor's work source and budget (issue #8 item 7): trials are claimed from a
 * TrialSource and acknowledged once each; the budget is read from the store's ledger, so what
 * another invocation (or process) spent counts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fromSpecParams } from "../../src/models/policy.js";
import { providers } from "../../src/models/registry.js";
import {
  executeTrials,
  type ModelRuntime,
  RunBudget,
  StoreTrialSource,
  type TrialEvent,
  type TrialSource,
} from "../../src/run/execute/index.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { planTrials } from "../../src/run/plan/plan.js";
import { logprobOptionsOf, scorerChooser } from "../../src/run/score/index.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow, TrialStore } from "../../src/run/store/types.js";
import { allItems, type PreparedStudy, prepareStudy } from "../../src/run/prepare/study.js";
import { writeDemoSpec } from "../helpers/study.js";

/**
 * A recorded run (stopped before its first trial) whose planned trials are all stored and
 * pending: a run stores its plan batch by batch as it executes, so the plan is stored here.
 */
async function plannedStudy(items: number): Promise<{ study: PreparedStudy; store: TrialStore; runId: string }> {
  const { specPath, outDir } = writeDemoSpec({ items, facets: "    format: [mc]" });
  const stopped = new AbortController();
  stopped.abort();
  const result = await runStudy({ specPath, outDir, env: {}, stopSignal: stopped.signal });
  assert.equal(result.counts.pending, items);
  const study = await prepareStudy(specPath);
  const store = await openStore(outDir);
  assert.equal(await store.addPlannedTrials([...planTrials(study, result.runId)]), items);
  return { study, store, runId: result.runId };
}

async function simModels(study: PreparedStudy): Promise<Map<string, ModelRuntime>> {
  const models = new Map<string, ModelRuntime>();
  for (const spec of study.spec.models) {
    const provider = await providers.get(spec.provider).create(spec, {});
    provider.observeItems?.(allItems(study));
    models.set(spec.id, { spec, provider, params: fromSpecParams(spec.params), price: undefined });
  }
  return models;
}

async function execute(study: PreparedStudy, store: TrialStore, runId: string, extra: object) {
  return executeTrials({
    store,
    runId,
    items: study.items,
    models: await simModels(study),
    scorerFor: scorerChooser(study.spec),
    logprobOptions: logprobOptionsOf(study.spec),
    concurrency: 3,
    cache: false,
    ...extra,
  });
}

describe("trial source", () => {
  test("the store source claims unfinished trials in id order, a page at a time, each once", async () => {
    const { store, runId } = await plannedStudy(7);
    try {
      const source = new StoreTrialSource(store, runId, 3);
      const claimed: TrialRow[] = [];
      assert.deepEqual(await source.claim(0), []);
      for (;;) {
        const batch = await source.claim(2);
        if (batch.length === 0) break;
        assert.ok(batch.length <= 2, "expected batch.length <= 2");
        claimed.push(...batch);
      }
      const ids = claimed.map((t) => t.id);
      assert.deepEqual(ids, [...ids].sort());
      assert.deepEqual(
        ids,
        (await store.listTrials(runId)).map((t) => t.id),
      );
      assert.equal(source.inFlight, 7);
      for (const id of ids) await source.acknowledge(id);
      assert.equal(source.inFlight, 0);
    } finally {
      await store.close();
    }
  });

  test("executeTrials runs what its source hands out and acknowledges each trial once, with its status", async () => {
    const { study, store, runId } = await plannedStudy(6);
    try {
      const pending = await store.listTrials(runId);
      const served = pending.slice(0, 4);
      const acknowledged: [string, TrialEvent["status"]][] = [];
      let maxAsked = 0;
      const source: TrialSource = {
        claim: async (max) => {
          maxAsked = Math.max(maxAsked, max);
          return served.splice(0, 1);
        },
        acknowledge: async (trialId, status) => {
          acknowledged.push([trialId, status]);
        },
      };
      const summary = await execute(study, store, runId, { source });
      assert.equal(summary.attempted, 4);
      assert.ok(maxAsked <= 3, "never claims more than the free slots");
      assert.deepEqual(
        acknowledged.map(([id]) => id).sort(),
        pending.slice(0, 4).map((t) => t.id),
      );
      assert.ok(
        acknowledged.every(([, status]) => status === "finished"),
        'expected acknowledged.every(([, status]) => status === "finished")',
      );
      assert.deepEqual(await store.countByStatus(runId), { pending: 2, finished: 4, errored: 0 });
    } finally {
      await store.close();
    }
  });
  test("a store failure while committing is the run's error, not the trial's: the trial stays unfinished", async () => {
    const { study, store, runId } = await plannedStudy(3);
    try {
      let failures = 0;
      // The store refuses the first commit, as a full disk or a dropped connection would.
      const failingOnce = new Proxy(store, {
        get(target, key, receiver) {
          if (key !== "completeTrials") return Reflect.get(target, key, receiver);
          return async (entries: Parameters<TrialStore["completeTrials"]>[0]) => {
            if (failures++ === 0) throw new Error("store unavailable: disk full");
            return target.completeTrials(entries);
          };
        },
      });
      await assert.rejects(execute(study, failingOnce, runId, { concurrency: 1 }), /disk full/);
      const counts = await store.countByStatus(runId);
      assert.equal(counts.errored, 0, "no trial recorded the store's failure as its own error");
      assert.equal(counts.pending + counts.finished, 3);
      assert.ok(counts.pending >= 1, "the trial whose commit failed is still pending");
      const rerun = await execute(study, store, runId, {});
      assert.equal(rerun.finished, counts.pending);
      assert.deepEqual(await store.countByStatus(runId), { pending: 0, finished: 3, errored: 0 });
    } finally {
      await store.close();
    }
  });

  test("a trial's slot is free for the next call once its own calls are done; it is done only once committed", async () => {
    const concurrency = 2;
    const items = 3 * concurrency;
    const { study, store, runId } = await plannedStudy(items);
    try {
      let openCommits!: () => void;
      const commitsOpen = new Promise<void>((resolve) => (openCommits = resolve));
      let commitsHeld = true;
      // Every commit waits until the test lets them through, as a slow store would.
      const slowStore = new Proxy(store, {
        get(target, key, receiver) {
          if (key !== "completeTrials") return Reflect.get(target, key, receiver);
          return async (entries: Parameters<TrialStore["completeTrials"]>[0]) => {
            await commitsOpen;
            return target.completeTrials(entries);
          };
        },
      });
      let calling = 0;
      let mostCalling = 0;
      let callsWhileHeld = 0;
      const models = await simModels(study);
      for (const runtime of models.values()) {
        const inner = runtime.provider;
        runtime.provider = Object.assign(Object.create(inner), {
          generate: async (request: Parameters<typeof inner.generate>[0]) => {
            calling++;
            mostCalling = Math.max(mostCalling, calling);
            if (commitsHeld) callsWhileHeld++;
            try {
              await new Promise((resolve) => setImmediate(resolve));
              return await inner.generate(request);
            } finally {
              calling--;
            }
          },
        });
      }
      let doneWhileHeld = 0;
      const onTrialDone = () => {
        if (commitsHeld) doneWhileHeld++;
      };
      const running = execute(study, slowStore, runId, { models, concurrency, onTrialDone });
      // Let the executor go as far as it can while no commit completes: until it has made as many
      // calls as it may (or a generous wait passes), then a little longer, to see it stop there.
      const waitUntil = Date.now() + 10_000;
      while (callsWhileHeld < 2 * concurrency && Date.now() < waitUntil)
        await new Promise((resolve) => setTimeout(resolve, 5));
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
      commitsHeld = false;
      openCommits();
      const summary = await running;
      assert.equal(mostCalling <= concurrency, true, `at most ${concurrency} calls at once, saw ${mostCalling}`);
      assert.equal(
        callsWhileHeld,
        2 * concurrency,
        "the next trials call while the first ones wait to commit, up to as many again as the concurrency",
      );
      assert.equal(doneWhileHeld, 0, "no trial counts as done before its commit");
      assert.equal(summary.finished, items);
      assert.deepEqual(await store.countByStatus(runId), { pending: 0, finished: items, errored: 0 });
    } finally {
      await store.close();
    }
  });
});

describe("budget through the store", () => {
  test("what the run spent counts across invocations: nothing starts once the limit is reached", async () => {
    const { study, store, runId } = await plannedStudy(4);
    try {
      // The store is the ledger: 2 calls spent, a limit of 3 allows exactly one more trial.
      const first = await execute(study, store, runId, { budget: { maxCalls: 2 }, concurrency: 1 });
      assert.equal(first.calls, 2);
      const second = await execute(study, store, runId, { budget: { maxCalls: 3 }, concurrency: 1 });
      assert.equal(second.attempted, 1);
      assert.equal(second.stoppedBy, "budget");
      assert.deepEqual(await store.spent(runId), { calls: 3, costUsd: 0 });
      const third = await execute(study, store, runId, { budget: { maxCalls: 3 } });
      assert.equal(third.stoppedBy, "budget");
      assert.equal(third.attempted, 0);
      assert.deepEqual(third.budget?.state, { usedCalls: 3, usedCostUsd: 0, reservedCalls: 0, reservedCostUsd: 0 });
    } finally {
      await store.close();
    }
  });

  test("without limits the budget never touches the store", async () => {
    const { store, runId } = await plannedStudy(1);
    try {
      const budget = await RunBudget.open(store, runId, {});
      assert.equal(budget.exhausted(), false);
      assert.equal(
        await budget.charged(
          0,
          async () => "sent",
          () => 0,
          () => false,
        ),
        "sent",
      );
      assert.equal(await store.budgetState(runId), undefined, "no counter row was written");
      assert.equal(await budget.report(), undefined);
    } finally {
      await store.close();
    }
  });
});
