/**
 * The analysis reads each call's facts without its text (store listCallFactsOf): on a real store
 * (the viewer's fixture study plus agent trials with tool notes, call errors, cache tokens and a
 * retried execution) the narrow read returns exactly the full read's fact fields, and the loaded
 * table equals the rows built from the full calls, while rows of one condition share one facets
 * record.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadScoredStudyTable, trialRow } from "../../src/analysis/core/table.js";
import type { CallRecord, PlannedTrial } from "../../src/contracts/trial.js";
import { conditionHash } from "../../src/core/hash.js";
import { plainRow } from "../../src/analysis/core/trial-columns.js";
import { conditionColumns } from "../../src/facets/registry.js";
import { trialAuditAggregates } from "../../src/run/export/export.js";
import { agentColumnsOf } from "../../src/run/export/trial-agent-columns.js";
import { openStore } from "../../src/run/store/open.js";
import { trialPages } from "../../src/run/store/pages.js";
import type { TrialStore } from "../../src/run/store/types.js";
import { makeCall, makeOutcome } from "../store/store-suite.js";
import { RUN_ID, writeLargeStudy } from "../viewer/fixture.js";

const FACT_FIELDS = ["trialId", "execution", "seq", "role", "usage", "error", "audit", "note"] as const;

function facts(call: CallRecord): Record<string, unknown> {
  return Object.fromEntries(FACT_FIELDS.filter((f) => call[f] !== undefined).map((f) => [f, call[f]]));
}

/** Agent trials whose calls carry what the agent columns and the checks read. */
async function addAgentTrials(store: TrialStore, count: number): Promise<void> {
  const condition = { scaffold: "agent_react", perturbation: "none" };
  const trials: PlannedTrial[] = Array.from({ length: count }, (_, i) => ({
    id: `zz-agent-${String(i).padStart(3, "0")}`,
    runId: RUN_ID,
    modelId: "sim-a",
    benchmarkId: "demo",
    itemId: "q0",
    conditionHash: conditionHash(condition),
    condition,
    attempt: 1 + i,
  }));
  await store.addPlannedTrials(trials);
  for (const [i, trial] of trials.entries()) {
    const tool = (seq: number, note: Record<string, unknown>): CallRecord => ({
      ...makeCall(trial.id, seq, "tool"),
      note,
    });
    // A first execution that errored, then the one the outcome comes from.
    await store.completeTrial(trial.id, makeOutcome("errored"), [
      { ...makeCall(trial.id, 0), error: { bucket: "rate_limit", message: "slow down" } },
    ]);
    await store.completeTrial(trial.id, makeOutcome("finished"), [
      { ...makeCall(trial.id, 0), usage: { inputTokens: 50, outputTokens: 7, cacheReadTokens: 40 + i } },
      tool(1, { tool: "search", error: i % 2 === 0 ? "no such page" : null }),
      tool(2, { tool: "search", truncated: true, limit: "steps" }),
      {
        ...makeCall(trial.id, 3),
        audit: { options_reached: i % 2 === 0, safety_reached: true },
        error: i === 1 ? { bucket: "context_too_long", message: "too long" } : null,
      },
      tool(4, { tool: "submit_answer" }),
    ]);
  }
}

describe("the analysis's narrow call read", () => {
  it("gives the full read's facts and the same table rows, sharing facets records", async () => {
    const { dir } = await writeLargeStudy(240);
    const store = await openStore(dir);
    try {
      await addAgentTrials(store, 3);
      const run = (await store.getRun())!;
      const facets = conditionColumns(run.spec.conditions);
      const expected = [];
      let compared = 0;
      for await (const page of trialPages(store, run.id, { pageSize: 100 })) {
        const ids = page.map((t) => t.id);
        const full = await store.listCallsOf(run.id, ids);
        const narrow = await store.listCallFactsOf(run.id, ids);
        for (const trial of page) {
          const calls = full.get(trial.id)!;
          assert.deepEqual(narrow.get(trial.id), calls.map(facts), `the facts of ${trial.id}'s calls`);
          compared += calls.length;
          if (trial.status === "pending") continue;
          const audit = Object.assign(trialAuditAggregates(calls), agentColumnsOf(trial, calls));
          expected.push(trialRow(trial, facets, { audit }));
        }
      }
      assert.ok(compared > 240, `calls compared: ${compared}`);
      const agentRows = expected.filter((r) => r.agent !== undefined);
      assert.equal(agentRows.length, 3, "the agent trials have agent columns");
      assert.ok(
        agentRows.some((r) => r.agent?.flags?.length),
        `the agent trials' flags are read: ${JSON.stringify(agentRows.map((r) => r.agent))}`,
      );
      const table = await loadScoredStudyTable(store, run, dir);
      assert.deepEqual(table.rows.map(plainRow), expected, "the loaded rows equal the rows built from the full calls");
      const byCondition = new Map<string, Set<object>>();
      for (const row of table.rows) {
        const key = JSON.stringify(row.facets);
        byCondition.set(key, (byCondition.get(key) ?? new Set()).add(row.facets));
      }
      assert.ok(byCondition.size >= 4, `conditions: ${byCondition.size}`);
      for (const [key, records] of byCondition) assert.equal(records.size, 1, `one facets record for ${key}`);
    } finally {
      await store.close();
    }
  });
});
