/**
 * Agent trials through the runner: S1-S3 on the simulated panel with real sandboxed tool calls,
 * the stored trajectory (every model call, tool call and verdict a sub-call with its role), the
 * agent export columns, planted scaffold effects, the App. D/E buckets and flags, per-trial
 * limits and truncation, and retry-only-errored.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { facetName } from "../../src/contracts/condition.js";
import type { CallRecord } from "../../src/contracts/trial.js";
import { exportTable } from "../../src/run/export/export.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow } from "../../src/run/store/types.js";
import { AGENT_TASKS, type AgentSpecOptions, writeAgentStudy } from "../helpers/agent-study.js";
import { after, describeNeeding, needsBubblewrap, test } from "../helpers/prerequisites.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Stored {
  trials: TrialRow[];
  calls: Map<string, CallRecord[]>;
  rows: Map<string, Record<string, unknown>>;
}

async function run(options: AgentSpecOptions, again = 0): Promise<Stored> {
  const spec = writeAgentStudy(options);
  dirs.push(spec.dir);
  for (let i = 0; i <= again; i++) await runStudy({ specPath: spec.specPath, outDir: spec.outDir, env: {} });
  return stored(spec.outDir);
}

async function stored(outDir: string): Promise<Stored> {
  const store = await openStore(outDir);
  try {
    const runRecord = (await store.getRun())!;
    const trials = await store.listTrials(runRecord.id);
    const calls = new Map<string, CallRecord[]>();
    for (const call of await store.listCalls(runRecord.id))
      calls.set(call.trialId, [...(calls.get(call.trialId) ?? []), call]);
    const lines: string[] = [];
    await exportTable(
      store,
      { runId: runRecord.id, facets: ["scaffold", "format"], table: "trials", format: "jsonl" },
      (chunk) => lines.push(chunk),
    );
    const rows = new Map(
      lines
        .join("")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .map((row) => [row.trial_id as string, row]),
    );
    return { trials, calls, rows };
  } finally {
    await store.close();
  }
}

const gold = new Map(AGENT_TASKS.map((t) => [t.id, t.answer]));
const scaffoldOf = (trial: TrialRow) => facetName(trial.condition.scaffold);
const toolRecords = (calls: CallRecord[]) => calls.filter((c) => c.role === "tool");

describeNeeding(needsBubblewrap(), "agent trials on the simulated panel", () => {
  test("S1-S3 store the whole trajectory, score the submitted answer, and export its aggregates", {
    timeout: 300_000,
  }, async () => {
    const { trials, calls, rows } = await run({ attempts: 2, agent: "{ tool_error_rate: 0.5 }" });
    assert.equal(trials.length, 3 * AGENT_TASKS.length * 2);
    const roles: Record<string, string[]> = {
      agent_react: ["agent"],
      planner_actor_rater: ["planner", "actor", "rater"],
      planner_executor: ["planner", "executor"],
    };
    for (const trial of trials) {
      assert.equal(trial.status, "finished", trial.outcome?.errorMessage ?? "");
      const own = calls.get(trial.id) ?? [];
      const modelRoles = new Set(own.filter((c) => c.role !== "tool").map((c) => c.role));
      assert.deepEqual([...modelRoles].sort(), [...roles[scaffoldOf(trial)]].sort());
      const tools = toolRecords(own);
      for (const t of tools) {
        assert.equal(typeof t.note?.tool, "string");
        assert.ok(
          roles[scaffoldOf(trial)].includes(String(t.note?.caller)),
          "expected roles[scaffoldOf(trial)].includes(String(t.note?.caller))",
        );
        assert.equal(t.note?.output, t.responseText);
      }
      // The score is the submitted answer's, against the task's gold answer.
      const submitted = tools.filter((t) => t.note?.tool === "submit_answer").map((t) => String(t.note?.answer));
      const last = submitted[submitted.length - 1];
      assert.equal(trial.outcome?.score, last === gold.get(trial.itemId) ? 1 : 0);
      if (scaffoldOf(trial) === "planner_actor_rater") {
        assert.ok(
          tools.some((t) => t.note?.tool === "submit_verdict" && typeof t.note?.verdict === "object"),
          'expected tools.some((t) => t.note?.tool === "submit_verdict" && typeof t.note?.verdict === "obje...',
        );
      }
      // The export's agent columns are aggregates of exactly these calls.
      const row = rows.get(trial.id)!;
      const actions = tools.filter((t) => !["submit_answer", "submit_verdict"].includes(String(t.note?.tool)));
      const errors = tools.filter((t) => t.note?.error !== null);
      assert.equal(row.tool_calls, actions.length);
      assert.equal(row.tool_errors, errors.length);
      assert.equal(row.tool_error_mid_trajectory, errors.length > 0);
      assert.equal(row.recovered_after_tool_error, errors.length > 0 ? trial.outcome?.score === 1 : null);
      assert.equal(row.working_seconds, (trial.outcome?.latencyMs ?? 0) / 1000);
      const cacheRead = own.reduce((s, c) => s + (c.usage.cacheReadTokens ?? 0), 0);
      assert.equal(row.cache_read_tokens, cacheRead);
      assert.ok(cacheRead > 0, "agent calls report the conversation prefix as a cache read");
      assert.equal(row.agent_flags, null, "no flags is a null, not an empty string");
    }
    // A failing command really failed in the sandbox, and the trajectory went on after it.
    const failed = [...calls.values()].flat().filter((c) => c.role === "tool" && c.note?.error !== null);
    assert.ok(failed.length > 0, "expected failed.length > 0");
    assert.ok(
      failed.every((c) => /No such file|exit status/.test(String(c.responseText))),
      "expected failed.every((c) => /No such file|exit status/.test(String(c.responseText)))",
    );
  });

  test("planted model x scaffold effects move accuracy in their direction", { timeout: 300_000 }, async () => {
    const { trials } = await run({
      attempts: 2,
      scaffolds: ["agent_react", "planner_executor"],
      agent: "{ effects: { agent: -6, executor: 6 }, tool_error_rate: 0, tool_calls: { agent: 1, executor: 1 } }",
    });
    const accuracy = (name: string) => {
      const cell = trials.filter((t) => scaffoldOf(t) === name);
      return cell.filter((t) => t.outcome?.score === 1).length / cell.length;
    };
    assert.ok(
      accuracy("planner_executor") - accuracy("agent_react") >= 0.8,
      `${accuracy("planner_executor")} vs ${accuracy("agent_react")}`,
    );
  });
});

describeNeeding(needsBubblewrap(), "outcomes, buckets and flags (App. D/E)", () => {
  test("a PDF page limit and the serialisation bug land in their own buckets and flags; a rerun retries only them", {
    timeout: 300_000,
  }, async () => {
    const { trials, rows } = await run(
      { scaffolds: ["planner_executor"], agent: "{ pdf_page_limit_rate: 1, serialisation_bug_rate: 1 }" },
      1,
    );
    for (const trial of trials) {
      const expected = trial.itemId === "t-pdf" ? "pdf_page_limit" : "provider_serialisation_bug";
      assert.equal(trial.status, "errored");
      assert.equal(trial.outcome?.failureBucket, expected);
      assert.equal(trial.outcome?.score, null);
      assert.equal(trial.executions, 2, "the second run retried the errored trial");
      assert.equal(rows.get(trial.id)?.agent_flags, expected);
    }
  });

  test("zero-token rejections (credit exhaustion) are their own bucket, never scored, with no tokens", {
    timeout: 120_000,
  }, async () => {
    const { trials, rows } = await run({ scaffolds: ["agent_react"], agent: "{ zero_token_rate: 1 }" });
    for (const trial of trials) {
      assert.equal(trial.outcome?.failureBucket, "zero_token_rejection");
      assert.equal(trial.outcome?.score, null);
      assert.equal(trial.outcome?.usage.inputTokens, 0);
      assert.equal(rows.get(trial.id)?.agent_flags, "zero_token_rejection");
    }
  });
});

describeNeeding(needsBubblewrap(), "per-trial limits and truncation", () => {
  test("the message limit ends a trajectory unanswered (wrong), flagged", { timeout: 120_000 }, async () => {
    const { trials, calls, rows } = await run({
      scaffolds: ["agent_react"],
      agent: "{ tool_calls: { agent: 20 }, tool_error_rate: 0 }",
      limits: "{ messages: 4 }",
    });
    for (const trial of trials) {
      assert.equal(trial.status, "finished");
      assert.equal(trial.outcome?.score, 0);
      assert.equal(trial.outcome?.parseStatus, "failed");
      assert.equal((calls.get(trial.id) ?? []).length, 4, "no call beyond the limit");
      assert.equal(rows.get(trial.id)?.agent_flags, "limit_messages");
    }
  });

  test("above the context limit the oldest tool traces are dropped, and the trial says so", {
    timeout: 180_000,
  }, async () => {
    const { trials, calls, rows } = await run({
      scaffolds: ["agent_react"],
      agent: "{ tool_calls: { agent: 4 }, tool_error_rate: 0 }",
      limits: "{ context_tokens: 320 }",
      temperature: 0,
    });
    let truncatedCalls = 0;
    for (const trial of trials) {
      for (const call of calls.get(trial.id) ?? []) {
        const note = call.note?.truncated as { dropped: number; tokensAfter: number; tokensBefore: number } | undefined;
        if (!note) continue;
        truncatedCalls++;
        assert.ok(
          note.dropped > 0 && note.tokensAfter < note.tokensBefore,
          "expected note.dropped > 0 && note.tokensAfter < note.tokensBefore",
        );
        // Whole traces go: every tool result left answers a call the model still sees.
        const ids = new Set(call.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)));
        assert.ok(
          call.messages.filter((m) => m.role === "tool").every((m) => ids.has(m.toolCallId ?? "")),
          'expected call.messages.filter((m) => m.role === "tool").every((m) => ids.has(m.toolCallId ?? ""))',
        );
        assert.match(String(rows.get(trial.id)?.agent_flags), /truncated/);
      }
    }
    assert.ok(truncatedCalls > 0, "some call exceeded the context limit");
  });
});
