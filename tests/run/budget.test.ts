/**
 * The shared budget counter (issue 16) on SQLite: a call is reserved before it is made (refused
 * when used + reserved + it would pass a limit), settled with its real cost, released when it
 * failed unpaid; reservations of a dead process are charged at their estimate (expired, or every
 * one when a single-process run resumes); the counter holds across resumes.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ProviderError } from "../../src/core/errors.js";
import { estimatedCallCost } from "../../src/run/execute/budget.js";
import { BudgetExhausted, RunBudget } from "../../src/run/execute/index.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import type { BudgetReservation, TrialStore } from "../../src/run/store/types.js";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";

/** A recorded run with every trial pending, and its store. */
async function recordedRun(items = 4): Promise<{ store: TrialStore; runId: string; specPath: string; outDir: string }> {
  const { specPath, outDir } = writeDemoSpec({ items, facets: "    format: [mc]" });
  const stopped = new AbortController();
  stopped.abort();
  const { runId } = await runStudy({ specPath, outDir, env: {}, stopSignal: stopped.signal });
  return { store: await openStore(outDir), runId, specPath, outDir };
}

let next = 0;
const reservation = (costUsd: number, holder = "me"): BudgetReservation => ({
  id: `r${++next}`,
  holder,
  calls: 1,
  costUsd,
});

describe("budget counter in the store", () => {
  test("reserve only while used + reserved + request fits; settle replaces the estimate; release frees it", async () => {
    const { store, runId } = await recordedRun();
    try {
      assert.deepEqual(await store.openBudget(runId), {
        usedCalls: 0,
        usedCostUsd: 0,
        reservedCalls: 0,
        reservedCostUsd: 0,
      });
      const limits = { maxCalls: 3 };
      const held = [reservation(0), reservation(0), reservation(0)];
      for (const r of held)
        assert.ok(
          await store.reserveBudget(runId, r, limits, 60_000),
          "expected await store.reserveBudget(runId, r, limits, 60_000)",
        );
      assert.equal(
        await store.reserveBudget(runId, reservation(0), limits, 60_000),
        undefined,
        "a 4th call is refused",
      );
      assert.equal((await store.budgetState(runId))?.reservedCalls, 3);

      await store.settleBudget(runId, held[0], { calls: 1, costUsd: 0 });
      await store.settleBudget(runId, held[1], { calls: 0, costUsd: 0 }); // released: nothing paid
      const state = await store.budgetState(runId);
      assert.deepEqual([state?.usedCalls, state?.reservedCalls], [1, 1]);
      assert.ok(await store.reserveBudget(runId, reservation(0), limits, 60_000), "the released room is free again");
      assert.equal(await store.reserveBudget(runId, reservation(0), limits, 60_000), undefined);
    } finally {
      await store.close();
    }
  });

  test("a cost limit reserves the estimate, and the real cost replaces it at settlement", async () => {
    const { store, runId } = await recordedRun();
    try {
      await store.openBudget(runId);
      const limits = { maxCostUsd: 1 };
      const a = reservation(0.6);
      assert.ok(
        await store.reserveBudget(runId, a, limits, 60_000),
        "expected await store.reserveBudget(runId, a, limits, 60_000)",
      );
      assert.equal(await store.reserveBudget(runId, reservation(0.6), limits, 60_000), undefined, "0.6 + 0.6 > 1");
      const settled = await store.settleBudget(runId, a, { calls: 1, costUsd: 0.25 });
      assert.deepEqual(settled, { usedCalls: 1, usedCostUsd: 0.25, reservedCalls: 0, reservedCostUsd: 0 });
      assert.ok(await store.reserveBudget(runId, reservation(0.6), limits, 60_000), "0.25 + 0.6 <= 1");
    } finally {
      await store.close();
    }
  });

  test("an expired reservation is charged at its estimate; its late settlement corrects to the real cost", async () => {
    const { store, runId } = await recordedRun();
    try {
      await store.openBudget(runId);
      const dead = reservation(0.5, "dead-worker");
      const alive = reservation(0.5, "live-worker");
      await store.reserveBudget(runId, dead, {}, 1);
      await store.reserveBudget(runId, alive, {}, 60_000);
      await new Promise((r) => setTimeout(r, 30));
      assert.deepEqual(await store.expireBudgetReservations(runId), { calls: 1, costUsd: 0.5 }, "only the expired one");
      assert.deepEqual(await store.budgetState(runId), {
        usedCalls: 1,
        usedCostUsd: 0.5,
        reservedCalls: 1,
        reservedCostUsd: 0.5,
      });
      // Its holder was only slow: the settlement replaces the estimate charged for it.
      await store.settleBudget(runId, dead, { calls: 1, costUsd: 0.125 });
      assert.deepEqual(await store.budgetState(runId), {
        usedCalls: 1,
        usedCostUsd: 0.125,
        reservedCalls: 1,
        reservedCostUsd: 0.5,
      });
      assert.deepEqual(await store.expireBudgetReservations(runId, { all: true }), { calls: 1, costUsd: 0.5 });
      assert.equal((await store.budgetState(runId))?.reservedCalls, 0);
    } finally {
      await store.close();
    }
  });

  test("a run stored before the counter existed starts from its committed calls", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 3, facets: "    format: [mc]" });
    const { runId } = await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const committed = await store.spent(runId);
      assert.equal(committed.calls, 3);
      assert.equal(await store.budgetState(runId), undefined, "no limits: no counter was written");
      assert.deepEqual(await store.openBudget(runId), {
        usedCalls: committed.calls,
        usedCostUsd: committed.costUsd,
        reservedCalls: 0,
        reservedCostUsd: 0,
      });
    } finally {
      await store.close();
    }
  });
});

describe("RunBudget around a call", () => {
  test("settles a success at its real cost, releases an unpaid failure, charges a timeout at its estimate", async () => {
    const { store, runId } = await recordedRun();
    try {
      const budget = await RunBudget.open(store, runId, { maxCalls: 10, maxCostUsd: 100 });
      const paid = (error: unknown) => (error as ProviderError).bucket === "timeout";
      assert.equal(
        await budget.charged(
          2,
          async () => "answer",
          () => 1.5,
          paid,
        ),
        "answer",
      );
      await assert.rejects(
        budget.charged(
          2,
          async () => {
            throw new ProviderError("server error", "provider_error");
          },
          () => 0,
          paid,
        ),
        /server error/,
      );
      await assert.rejects(
        budget.charged(
          2,
          async () => {
            throw new ProviderError("timed out", "timeout");
          },
          () => 0,
          paid,
        ),
        /timed out/,
      );
      budget.close();
      assert.deepEqual(await store.budgetState(runId), {
        usedCalls: 2,
        usedCostUsd: 1.5 + 2,
        reservedCalls: 0,
        reservedCostUsd: 0,
      });
    } finally {
      await store.close();
    }
  });

  test("a refused call is never sent and says which limit; the report shows the counter", async () => {
    const { store, runId } = await recordedRun();
    try {
      const budget = await RunBudget.open(store, runId, { maxCalls: 1 });
      let sent = 0;
      const send = async () => ++sent;
      await budget.charged(
        0,
        send,
        () => 0,
        () => false,
      );
      assert.equal(budget.exhausted(), true, "no room left as last seen");
      await assert.rejects(
        budget.charged(
          0,
          send,
          () => 0,
          () => false,
        ),
        (error: Error) => error instanceof BudgetExhausted && /max_calls 1/.test(error.message),
      );
      assert.equal(sent, 1);
      const report = await budget.report();
      budget.close();
      assert.equal(report?.refused, 1);
      assert.deepEqual(report?.state, { usedCalls: 1, usedCostUsd: 0, reservedCalls: 0, reservedCostUsd: 0 });
      assert.deepEqual(report?.over, { calls: 0, costUsd: 0 });
    } finally {
      await store.close();
    }
  });
});

describe("the budget in a run (SQLite, one process)", () => {
  test("with many trials in flight the calls made stop at max_calls exactly; refused trials stay pending", async () => {
    const items = 20;
    const maxCalls = 7;
    const { specPath, outDir } = writeDemoSpec({
      items,
      facets: "    format: [mc]",
      execution: "  concurrency: 6",
      budget: `  max_calls: ${maxCalls}`,
    });
    const result = await runStudy({ specPath, outDir, env: {} });
    assert.equal(result.summary.stoppedBy, "budget");
    assert.equal(result.counts.finished, maxCalls, "one call per direct trial");
    assert.equal(result.counts.pending, items - maxCalls);
    assert.deepEqual(result.summary.budget?.state, {
      usedCalls: maxCalls,
      usedCostUsd: 0,
      reservedCalls: 0,
      reservedCostUsd: 0,
    });
    const store = await openStore(outDir);
    try {
      assert.equal((await store.spent(result.runId)).calls, maxCalls);
    } finally {
      await store.close();
    }
  });

  test("a cost limit stops where the next call's estimate no longer fits, and the spend stays under it", async () => {
    const price = { input_per_mtok: 1_000, output_per_mtok: 2_000 };
    const maxCostUsd = 0.3;
    const { specPath, outDir } = writeDemoSpec({
      items: 30,
      facets: "    format: [mc]",
      models: `  - id: sim-priced
    provider: sim
    model: medium
    price: { input_per_mtok: ${price.input_per_mtok}, output_per_mtok: ${price.output_per_mtok} }
    params: { temperature: 0, max_tokens: 16 }`,
      execution: "  concurrency: 1",
      budget: `  max_cost_usd: ${maxCostUsd}`,
    });
    const result = await runStudy({ specPath, outDir, env: {} });
    assert.equal(result.summary.stoppedBy, "budget");
    const store = await openStore(outDir);
    try {
      const calls = await store.listCalls(result.runId);
      const spent = calls.reduce((sum, c) => sum + c.costUsd, 0);
      const state = result.summary.budget!.state;
      assert.ok(Math.abs(state.usedCostUsd - spent) < 1e-9, "the counter holds what the stored calls cost");
      // The sim never answers past max_tokens, so no call cost more than its estimate: no overrun.
      for (const c of calls)
        assert.ok(
          c.costUsd <= estimatedCallCost(c.messages, c.paramsUsed, price) + 1e-12,
          "expected c.costUsd <= estimatedCallCost(c.messages, c.paramsUsed, price) + 1e-12",
        );
      assert.ok(spent <= maxCostUsd, `spent ${spent} of ${maxCostUsd}`);
      assert.equal(result.summary.budget!.over.costUsd, 0);
      // It stopped because the next call's estimate did not fit (the prompts are about the same size).
      const largest = Math.max(...calls.map((c) => estimatedCallCost(c.messages, c.paramsUsed, price)));
      assert.ok(maxCostUsd - spent < largest * 1.5, `stopped with ${maxCostUsd - spent} left; a call is ~${largest}`);
      assert.ok(
        calls.length > 1 && result.counts.pending > 0,
        "expected calls.length > 1 && result.counts.pending > 0",
      );
    } finally {
      await store.close();
    }
  });

  test("a resume counts the calls of earlier invocations and the reservations a crash left behind", async () => {
    const maxCalls = 6;
    const leftBehind = 2;
    const { specPath, outDir } = writeDemoSpec({
      items: 10,
      facets: "    format: [mc]",
      execution: "  concurrency: 1",
      budget: `  max_calls: ${maxCalls}`,
    });
    const stopped = new AbortController();
    stopped.abort();
    const { runId } = await runStudy({ specPath, outDir, env: {}, stopSignal: stopped.signal });
    // A process that crashed with calls in flight: reserved (for long), never settled.
    const store = await openStore(outDir);
    try {
      for (let i = 0; i < leftBehind; i++) await store.reserveBudget(runId, reservation(0, "crashed"), {}, 600_000);
    } finally {
      await store.close();
    }
    const resumed = await runStudy({ specPath, outDir, env: {} });
    assert.equal(resumed.summary.stoppedBy, "budget");
    assert.equal(resumed.counts.finished, maxCalls - leftBehind, "the crashed calls are charged, not leaked");
    assert.deepEqual(resumed.summary.budget?.state, {
      usedCalls: maxCalls,
      usedCostUsd: 0,
      reservedCalls: 0,
      reservedCostUsd: 0,
    });
    const again = await runStudy({ specPath, outDir, env: {} });
    assert.equal(again.summary.stoppedBy, "budget");
    assert.equal(again.summary.attempted, 0, "the budget was spent by earlier invocations");
    assert.equal(again.counts.finished, maxCalls - leftBehind);
    const status = runCli(["status", outDir]);
    assert.equal(status.status, 0, status.stderr);
    assert.match(
      status.stdout,
      new RegExp(
        `budget \\(max_calls ${maxCalls}\\): used ${maxCalls} call\\(s\\), \\$0\\.0000; reserved in flight 0 call`,
      ),
    );
  });
});
