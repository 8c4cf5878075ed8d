import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cacheKey, type ModelRuntime } from "../../src/run/execute/index.js";
import { exportTable } from "../../src/run/export/export.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { writeDemoSpec } from "../helpers/study.js";

async function trialsOf(outDir: string) {
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    return { run, trials: await store.listTrials(run.id), calls: await store.listCalls(run.id) };
  } finally {
    await store.close();
  }
}

describe("runner", () => {
  test("runs every planned trial once, and a second run resumes with nothing to do", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 8, attempts: 2 });
    const first = await runStudy({ specPath, outDir, env: {} });
    // 1 model x 2 formats x 8 items x 2 attempts
    assert.equal(first.summary.attempted, 32);
    assert.deepEqual(first.counts, { pending: 0, finished: 32, errored: 0 });
    const second = await runStudy({ specPath, outDir, env: {} });
    assert.equal(second.summary.attempted, 0);
    const { trials, calls } = await trialsOf(outDir);
    assert.equal(trials.length, 32);
    assert.equal(calls.length, 32, "one call per direct trial");
    assert.ok(
      trials.every((t) => t.executions === 1 && t.outcome?.simulated === true),
      "expected trials.every((t) => t.executions === 1 && t.outcome?.simulated === true)",
    );
  });

  test("retries errored trials on the next run and never re-runs finished ones", async () => {
    const { specPath, outDir } = writeDemoSpec({
      items: 12,
      models: `  - id: flaky
    provider: sim
    model: medium
    options: { failure_rate: 0.4, failure_bucket: content_filter }`,
      execution: "  concurrency: 1\n  max_retries: 0",
    });
    const first = await runStudy({ specPath, outDir, env: {} });
    assert.ok(first.counts.errored > 0 && first.counts.finished > 0, JSON.stringify(first.counts));
    const afterFirst = await trialsOf(outDir);
    const finishedFirst = new Map(afterFirst.trials.filter((t) => t.status === "finished").map((t) => [t.id, t]));
    const errored = afterFirst.trials.filter((t) => t.status === "errored");
    assert.ok(
      errored.every((t) => t.outcome?.failureBucket === "content_filter"),
      'expected errored.every((t) => t.outcome?.failureBucket === "content_filter")',
    );

    let counts = first.counts;
    for (let run = 0; run < 15 && counts.errored > 0; run++) {
      const result = await runStudy({ specPath, outDir, env: {} });
      assert.equal(result.summary.attempted, counts.errored, "only errored trials are attempted");
      counts = result.counts;
    }
    assert.equal(counts.errored, 0);
    const final = await trialsOf(outDir);
    for (const trial of final.trials) {
      const before = finishedFirst.get(trial.id);
      if (before) {
        // Finished trials, right or wrong, are never executed again.
        assert.equal(trial.executions, 1);
        assert.deepEqual(trial.outcome, before.outcome);
      }
    }
    const retried = final.trials.filter((t) => t.executions > 1);
    assert.ok(retried.length > 0, "expected retried.length > 0");
    // Errored executions keep their failed call next to the successful one.
    const callsOfRetried = final.calls.filter((c) => c.trialId === retried[0].id);
    assert.equal(callsOfRetried.length, retried[0].executions);
    assert.equal(callsOfRetried[0].error?.bucket, "content_filter");
    assert.equal(callsOfRetried.at(-1)!.error, null);
  });

  test("records dropped parameters on the trial and keeps them off the wire", async () => {
    const { specPath, outDir } = writeDemoSpec({
      items: 3,
      models: `  - id: sim-a
    provider: sim
    model: medium
    params: { temperature: 0, seed: 11 }
    drop_params: [seed]`,
    });
    await runStudy({ specPath, outDir, env: {} });
    const { trials, calls } = await trialsOf(outDir);
    for (const trial of trials) {
      assert.deepEqual(
        trial.outcome?.droppedParams.map((d) => [d.name, d.value]),
        [["seed", 11]],
      );
    }
    for (const call of calls) {
      assert.equal(call.paramsUsed.seed, undefined);
      assert.equal(call.paramsUsed.temperature, 0);
    }
  });

  test("stops at the call budget and reports it", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 10, execution: "  concurrency: 1", budget: "  max_calls: 5" });
    const result = await runStudy({ specPath, outDir, env: {} });
    assert.equal(result.summary.stoppedBy, "budget");
    assert.equal(result.summary.calls, 5);
    assert.equal(result.counts.finished, 5);
  });

  test("the budget holds across resumes: calls of earlier invocations count", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 10, execution: "  concurrency: 1", budget: "  max_calls: 5" });
    const first = await runStudy({ specPath, outDir, env: {} });
    assert.equal(first.summary.stoppedBy, "budget");
    const second = await runStudy({ specPath, outDir, env: {} });
    assert.equal(second.summary.stoppedBy, "budget");
    assert.equal(second.summary.attempted, 0, "the budget was already spent");
    assert.equal(second.counts.finished, 5);
  });

  test("refuses a directory that holds a run of a different spec", async () => {
    const a = writeDemoSpec({ items: 2 });
    await runStudy({ specPath: a.specPath, outDir: a.outDir, env: {} });
    const b = writeDemoSpec({ items: 3 });
    await assert.rejects(
      runStudy({ specPath: b.specPath, outDir: a.outDir, env: {} }),
      (error: Error & { exitCode?: number }) => {
        assert.match(error.message, /different spec or item set/);
        assert.equal(error.exitCode, 2);
        return true;
      },
    );
  });

  test("the simulated panel shows its planted format effect: MC beats open-ended", async () => {
    const { specPath, outDir } = writeDemoSpec({
      items: 120,
      models: `  - id: sim-a
    provider: sim
    model: medium`,
      execution: "  concurrency: 16",
    });
    await runStudy({ specPath, outDir, env: {} });
    const { trials } = await trialsOf(outDir);
    const accuracy = (format: string) => {
      const rows = trials.filter((t) => t.condition.format === format);
      return rows.reduce((sum, t) => sum + (t.outcome?.score ?? 0), 0) / rows.length;
    };
    // ability 0.5 with standard-normal difficulties; open-ended costs 0.6 logits.
    assert.ok(accuracy("mc") - accuracy("oe") > 0.05, `mc ${accuracy("mc")} vs oe ${accuracy("oe")}`);
  });

  test("exports one tidy row per trial with every facet as a column", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 4, facets: "    format: [mc, oe]\n    scaffold: [direct]" });
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    const run = (await store.getRun())!;
    let csv = "";
    const rows = await exportTable(
      store,
      { runId: run.id, facets: ["format", "scaffold"], table: "trials", format: "csv" },
      (chunk) => {
        csv += chunk;
      },
    );
    let jsonl = "";
    await exportTable(
      store,
      { runId: run.id, facets: ["format", "scaffold"], table: "calls", format: "jsonl" },
      (chunk) => {
        jsonl += chunk;
      },
    );
    await store.close();
    assert.equal(rows, 8);
    const [header, ...lines] = csv.trim().split("\n");
    assert.equal(
      header,
      "run_id,trial_id,model,benchmark,item_id,condition_hash,format,scaffold,attempt,status,outcome,parse_status,parsed_answer,failure_bucket,input_tokens,output_tokens,cost_usd,latency_ms,dropped_params,simulated,model_revision,parallax_version,spec_hash,imported_from,tool_calls,tool_errors,tool_error_mid_trajectory,recovered_after_tool_error,working_seconds,cache_read_tokens,cache_write_tokens,agent_flags,calls,options_reached_share,system_prompt_retained_mean,safety_reached_share,persona_leak_calls",
    );
    assert.equal(lines.length, 8);
    assert.ok(
      lines.every((line) => /,(mc|oe),direct,1,finished,[01],/.test(line)),
      lines[0],
    );
    const calls = jsonl
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(calls.length, 8);
    assert.ok(
      calls.every((c) => c.role === "answer" && c.messages[0].content.includes("Question:")),
      'expected calls.every((c) => c.role === "answer" && c.messages[0].content.includes("Question:"))',
    );
  });
});

describe("response cache key", () => {
  const model = {
    spec: { id: "m", provider: "sim", model: "medium", params: {} },
    provider: { name: "sim" },
  } as unknown as ModelRuntime;
  const messages = [{ role: "user" as const, content: "hi" }];

  test("is stable for the same request and attempt", () => {
    assert.equal(
      cacheKey(model, { messages, params: { temperature: 0 }, attempt: 1 }),
      cacheKey(model, { messages, params: { temperature: 0 }, attempt: 1 }),
    );
  });

  test("differs by attempt, parameters and messages", () => {
    const base = cacheKey(model, { messages, params: { temperature: 0 }, attempt: 1 });
    assert.notEqual(cacheKey(model, { messages, params: { temperature: 0 }, attempt: 2 }), base);
    assert.notEqual(cacheKey(model, { messages, params: { temperature: 0.5 }, attempt: 1 }), base);
    assert.notEqual(
      cacheKey(model, { messages: [{ role: "user", content: "hi!" }], params: { temperature: 0 }, attempt: 1 }),
      base,
    );
  });

  test("differs by model entry: its id, key variable, endpoint, options and dropped parameters", () => {
    const base = cacheKey(model, { messages, params: { temperature: 0 }, attempt: 1 });
    const variants = [
      { id: "m2" },
      { api_key_env: "OTHER_KEY" },
      { api_key_env: ["KEY_A", "KEY_B"] },
      { base_url: "http://127.0.0.1:9/v1" },
      { options: { reasoning: true } },
      { drop_params: ["seed"] },
    ];
    const keys = variants.map((change) =>
      cacheKey({ ...model, spec: { ...model.spec, ...change } } as ModelRuntime, {
        messages,
        params: { temperature: 0 },
        attempt: 1,
      }),
    );
    for (const [i, key] of keys.entries()) assert.notEqual(key, base, JSON.stringify(variants[i]));
    assert.equal(new Set(keys).size, keys.length, "every variant has its own key");
  });
});
