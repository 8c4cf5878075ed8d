/**
 * Per-call audits as registered auditors (issue #8 item 5): checks stored as JSON per call
 * (migration 0006_call_checks), calls stored before it read from the old audit_* columns, the
 * export columns of the four existing checks unchanged, and a new auditor adding its own columns.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import Database from "better-sqlite3";
import { type ExportTable, exportTable } from "../../src/run/export/export.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { registerAuditor } from "../../src/scaffolds/audits/registry.js";
import { writeDemoSpec } from "../helpers/study.js";

const FACETS = "    scaffold: [direct, map_reduce]\n    system_prompt: [strict]\n    format: [mc]";

/** The calls export's columns: the four checks' columns in the places they had before the auditor registry. */
const LEGACY_CALL_HEADER =
  "trial_id,execution,seq,role,messages,params_used,dropped_params,response_text,finish_reason,input_tokens," +
  "output_tokens,cost_usd,latency_ms,cached,error_bucket,error_message,started_at," +
  "simulated,parallax_version,spec_hash,imported_from,options_reached," +
  "system_prompt_retained,safety_reached,persona_leak_adversarial,persona_leak_contextual,note";

async function exported(outDir: string, table: ExportTable): Promise<string> {
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    let text = "";
    await exportTable(
      store,
      { runId: run.id, facets: Object.keys(run.spec.conditions.facets), table, format: "csv" },
      (c) => {
        text += c;
      },
    );
    return text;
  } finally {
    await store.close();
  }
}

/** A call's checks JSON: the column, or the shared text it refers to (src/run/store/texts.ts). */
const CHECKS =
  "coalesce((select text from texts where key = substr(checks, 2) and checks like '@%'), checks) as checks";

/** Rewrites every call as a store from before 0004 held it: checks in the four audit_* columns. */
function downgradeToLegacyColumns(outDir: string): number {
  const db = new Database(join(outDir, "parallax.db"));
  try {
    const rows = db.prepare(`select trial_id, execution, seq, ${CHECKS} from calls`).all() as {
      trial_id: string;
      execution: number;
      seq: number;
      checks: string | null;
    }[];
    const update = db.prepare(
      "update calls set checks = null, audit_options_reached = ?, audit_system_prompt_retained = ?, " +
        "audit_safety_reached = ?, audit_persona_leak = ? where trial_id = ? and execution = ? and seq = ?",
    );
    const flag = (v: unknown) => (v === null || v === undefined ? null : v ? 1 : 0);
    for (const row of rows) {
      const c = JSON.parse(row.checks ?? "{}");
      const leak = c.persona_leak ? JSON.stringify(c.persona_leak) : null;
      update.run(
        flag(c.options_reached),
        c.system_prompt_retained ?? null,
        flag(c.safety_reached),
        leak,
        row.trial_id,
        row.execution,
        row.seq,
      );
    }
    return rows.length;
  } finally {
    db.close();
  }
}

describe("stored per-call checks", () => {
  let outDir: string;
  before(async () => {
    const spec = writeDemoSpec({ items: 3, facets: FACETS });
    outDir = spec.outDir;
    await runStudy({ specPath: spec.specPath, outDir, env: {} });
  });

  test("each call stores its checks as one JSON object keyed by auditor name", () => {
    const db = new Database(join(outDir, "parallax.db"), { readonly: true });
    try {
      const rows = db.prepare(`select role, ${CHECKS}, audit_options_reached from calls`).all() as {
        role: string;
        checks: string;
        audit_options_reached: number | null;
      }[];
      assert.ok(rows.length > 0, "expected rows.length > 0");
      for (const row of rows) {
        const checks = JSON.parse(row.checks);
        assert.deepEqual(Object.keys(checks), [
          "options_reached",
          "system_prompt_retained",
          "safety_reached",
          "persona_leak",
        ]);
        assert.equal(row.audit_options_reached, null, "the old columns are no longer written");
        // Standard map calls lose the options; every other call of these scaffolds carries them.
        assert.equal(checks.options_reached, !/^map-\d+$/.test(row.role), row.role);
      }
    } finally {
      db.close();
    }
  });

  test("the export's audit columns are unchanged, and calls stored in the old columns export identically", async () => {
    const calls = await exported(outDir, "calls");
    const trials = await exported(outDir, "trials");
    assert.equal(calls.split("\n")[0].replace(/\r$/, ""), LEGACY_CALL_HEADER);
    assert.match(
      trials.split("\n")[0],
      /,calls,options_reached_share,system_prompt_retained_mean,safety_reached_share,persona_leak_calls\r?$/,
    );
    assert.ok(downgradeToLegacyColumns(outDir) > 0, "expected downgradeToLegacyColumns(outDir) > 0");
    assert.equal(await exported(outDir, "calls"), calls);
    assert.equal(await exported(outDir, "trials"), trials);
  });
});

test("a registered auditor is stored and exported as new columns without touching the exports", async () => {
  registerAuditor<number>({
    name: "message_count",
    check: ({ messages }) => messages.length,
    callColumns: [{ name: "message_count", type: "integer", what: "messages of the call" }],
    callValues: (value) => ({ message_count: value }),
    trialColumns: [{ name: "message_count_max", type: "integer", what: "most messages of a call of the trial" }],
    trialValues: (values) => ({ message_count_max: Math.max(...values.map((v) => v ?? 0)) }),
  });
  const spec = writeDemoSpec({ items: 2, facets: FACETS });
  await runStudy({ specPath: spec.specPath, outDir: spec.outDir, env: {} });
  const store = await openStore(spec.outDir);
  let maxMessages = 0;
  try {
    const run = (await store.getRun())!;
    const calls = await store.listCalls(run.id);
    assert.ok(calls.length > 0, "expected calls.length > 0");
    for (const call of calls) {
      assert.equal(call.audit?.message_count, call.messages.length);
      maxMessages = Math.max(maxMessages, call.messages.length);
    }
  } finally {
    await store.close();
  }
  const [callHeader, ...callRows] = (await exported(spec.outDir, "calls")).trim().split(/\r?\n/);
  assert.match(callHeader, /,persona_leak_contextual,message_count,note$/);
  assert.ok(callRows.length > 0, "expected callRows.length > 0");
  const [trialHeader] = (await exported(spec.outDir, "trials")).split(/\r?\n/);
  assert.match(trialHeader, /,persona_leak_calls,message_count_max$/);
  assert.ok(maxMessages >= 2, "the strict system prompt adds a system message");
});
