/**
 * The store behaviours every dialect must show, as one suite parameterised by a target factory.
 * sqlite.test.ts and postgres.test.ts run it; a target is a fresh, empty store location
 * (a temp directory, a fresh PG schema) that can be opened several times.
 */
import assert from "node:assert/strict";
import type { Item } from "../../src/contracts/item.js";
import type { GenerateResult } from "../../src/contracts/provider.js";
import type { CallRecord, PlannedTrial, TrialOutcome } from "../../src/contracts/trial.js";
import type { RunRecord, TrialStore } from "../../src/run/store/index.js";
import { describeNeeding, test } from "../helpers/prerequisites.js";

export interface StoreTarget {
  /** Opens (and migrates) a store on this location; may be called several times. */
  open(): Promise<TrialStore>;
  /** Removes the location; called after every store opened on it is closed. */
  cleanup(): Promise<void>;
}

export function makeRun(id: string, createdAt = "2025-01-01T00:00:00.000Z"): RunRecord {
  return {
    id,
    study: `study-${id}`,
    specHash: `spec-${id}`,
    manifestHash: `manifest-${id}`,
    // biome-ignore lint/suspicious/noExplicitAny: a minimal stand-in; the store only round-trips it
    spec: { study: `study-${id}`, models: [{ id: "m" }] } as any,
    createdAt,
    parallaxVersion: "0.1.0",
  };
}

export function makeTrials(runId: string, count: number, from = 0): PlannedTrial[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      id: `${runId}-t${String(i).padStart(6, "0")}`,
      runId,
      modelId: i % 2 === 0 ? "model-a" : "model-b",
      benchmarkId: "bench",
      itemId: `item-${i}`,
      conditionHash: `cond-${i % 3}`,
      condition: { scaffold: i % 3 === 0 ? "direct" : "cot", format: "mc", temperature: 0.7 },
      attempt: 1 + (i % 2),
    };
  });
}

export function makeOutcome(status: "finished" | "errored", finalAnswer = "B"): TrialOutcome {
  const errored = status === "errored";
  return {
    status,
    finalAnswer: errored ? null : finalAnswer,
    parsedAnswer: errored ? null : finalAnswer,
    parseStatus: errored ? "not_applicable" : "ok",
    score: errored ? null : 1,
    scorer: errored ? null : "mc-last-answer",
    failureBucket: errored ? "rate_limit" : null,
    errorMessage: errored ? "429 Too Many Requests" : null,
    // Above 2^31: PG stores int8 and returns it as a string; the store must parse it back.
    usage: { inputTokens: 3_000_000_000, outputTokens: 42 },
    costUsd: 0.0125,
    latencyMs: 812.5,
    droppedParams: [{ name: "temperature", value: 0.7, reason: "model rejects temperature" }],
    simulated: true,
  };
}

export function makeCall(trialId: string, seq: number, role = "answer", execution = 1): CallRecord {
  return {
    trialId,
    execution,
    seq,
    role,
    messages: [
      { role: "system", content: "You are careful." },
      { role: "user", content: `Question ${trialId} #${seq}: "quotes", ünïcode, \n newline` },
    ],
    paramsUsed: { temperature: 0, seed: 7, stop: ["\n\n"] },
    droppedParams: [],
    responseText: `Answer: B (${role})`,
    toolCalls: [{ id: "call_1", name: "search", arguments: '{"q":"x"}' }],
    finishReason: "stop",
    usage: { inputTokens: 120 + seq, outputTokens: 9 },
    costUsd: 0.001,
    latencyMs: 40.25,
    cached: seq % 2 === 1,
    error: null,
    startedAt: `2025-01-01T00:00:0${seq % 10}.000Z`,
  };
}

/** Calls as the store returns them: numbered with the execution the store assigned. */
function asStored(calls: CallRecord[], execution: number): CallRecord[] {
  return calls.map((c) => ({ ...c, execution }));
}

export function storeBehaviours(label: string, newTarget: () => Promise<StoreTarget>, skip?: string): void {
  describeNeeding(skip, label, () => {
    /** Runs `body` on a fresh target; closes every store it opened and removes the target. */
    async function withStore(
      body: (store: TrialStore, reopen: () => Promise<TrialStore>) => Promise<void>,
    ): Promise<void> {
      const target = await newTarget();
      const opened: TrialStore[] = [];
      const reopen = async () => {
        const s = await target.open();
        opened.push(s);
        return s;
      };
      try {
        await body(await reopen(), reopen);
      } finally {
        for (const s of opened) await s.close().catch(() => {});
        await target.cleanup();
      }
    }

    test("migrate is idempotent", () =>
      withStore(async (store) => {
        await store.migrate();
        await store.migrate();
        await store.saveRun(makeRun("r1"));
        assert.equal((await store.getRun("r1"))?.id, "r1");
      }));

    test("saveRun keeps the first record; getRun finds by id or the newest", () =>
      withStore(async (store) => {
        const older = makeRun("r-old", "2025-01-01T00:00:00.000Z");
        const newer = makeRun("r-new", "2025-03-01T00:00:00.000Z");
        await store.saveRun(older);
        await store.saveRun(newer);
        await store.saveRun({ ...older, study: "changed" });
        assert.deepEqual(await store.getRun("r-old"), older);
        assert.deepEqual(await store.getRun(), newer);
        assert.equal(await store.getRun("missing"), undefined);
      }));

    test("run items and pools come back in the order they were saved; plugins with their hash and content", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        // A few-shot draw shuffles a pool in its loaded order: neither id nor benchmark order will do.
        const items = ["z9", "a1", "m5", "b2"].map((id, k) => ({
          id,
          benchmark: k % 2 === 0 ? "exemplars:bench" : "bench",
          stem: `question ${id}`,
        })) as unknown as Item[];
        await store.saveRunItems("r1", items);
        await store.saveRunItems("r1", [...items].reverse());
        assert.deepEqual(
          (await store.listRunItems("r1")).map((item) => item.id),
          ["z9", "a1", "m5", "b2"],
          "the first save's order, kept by a repeated save",
        );
        const plugins = [
          {
            specifier: "./b.mjs",
            file: "/x/b.mjs",
            sha256: "b".repeat(64),
            content: "export function register() {}\n",
          },
          { specifier: "pkg-a", file: "/x/node_modules/pkg-a/index.js", sha256: "a".repeat(64), content: "// a\n" },
        ];
        await store.saveRunPlugins("r1", plugins);
        await store.saveRunPlugins("r1", plugins);
        assert.deepEqual(await store.listRunPlugins("r1"), plugins);
        assert.deepEqual(await store.listRunPlugins("other"), []);
      }));

    test("sequential looks come back in look order; a look already recorded is kept, and survives a reopen", () =>
      withStore(async (store, reopen) => {
        await store.saveRun(makeRun("r1"));
        await store.saveRun(makeRun("r2"));
        await store.saveSequentialLook("r1", 2, '{"look":2}');
        await store.saveSequentialLook("r1", 1, '{"look":1}');
        await store.saveSequentialLook("r1", 1, '{"look":1,"again":true}');
        await store.saveSequentialLook("r2", 1, '{"other":true}');
        const again = await reopen();
        assert.deepEqual(await again.listSequentialLooks("r1"), [
          { look: 1, record: '{"look":1}' },
          { look: 2, record: '{"look":2}' },
        ]);
        assert.deepEqual(await again.listSequentialLooks("missing"), []);
      }));

    test("getRun without id on an empty store is undefined", () =>
      withStore(async (store) => {
        assert.equal(await store.getRun(), undefined);
      }));

    test("addPlannedTrials is idempotent; listTrials returns id order", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const first = makeTrials("r1", 10);
        // Inserted out of id order: listing must sort by id, not by insertion.
        assert.equal(await store.addPlannedTrials([...first].reverse()), 10);
        const more = makeTrials("r1", 5, 10);
        // Re-adding the first batch alongside new trials inserts only the new ones.
        assert.equal(await store.addPlannedTrials([...more, ...first]), 5);
        assert.equal(await store.addPlannedTrials([]), 0);
        const rows = await store.listTrials("r1");
        assert.deepEqual(
          rows.map((r) => r.id),
          [...first, ...more].map((t) => t.id),
        );
        assert.deepEqual(rows[3], {
          ...first[3],
          status: "pending",
          executions: 0,
          outcome: null,
          updatedAt: null,
          taskHash: null,
        });
      }));

    test("addPlannedTrials refuses trials of an unsaved run and writes none of the batch", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const mixed = [...makeTrials("r1", 3), ...makeTrials("ghost", 1)];
        await assert.rejects(store.addPlannedTrials(mixed), /unknown run "ghost"/);
        assert.equal((await store.listTrials("r1")).length, 0);
      }));

    test("trialsAmong and unfinishedTrialsAmong read the trials with the given ids, in id order", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        await store.saveRun(makeRun("r2"));
        const trials = makeTrials("r1", 6);
        await store.addPlannedTrials([...trials, ...makeTrials("r2", 2)]);
        await store.completeTrial(trials[1].id, makeOutcome("finished", "C"), []);
        await store.completeTrial(trials[4].id, makeOutcome("errored"), []);
        // Asked out of order, with an id of another run and one never stored.
        const asked = [trials[4].id, trials[1].id, "r2-t000000", "missing", trials[0].id];
        const among = await store.trialsAmong("r1", asked);
        assert.deepEqual(
          among.map((t) => [t.id, t.status]),
          [
            [trials[0].id, "pending"],
            [trials[1].id, "finished"],
            [trials[4].id, "errored"],
          ],
        );
        assert.equal(among[1].outcome?.finalAnswer, "C");
        assert.deepEqual(
          (await store.unfinishedTrialsAmong("r1", asked)).map((t) => t.id),
          [trials[0].id, trials[4].id],
        );
        // More ids than one statement takes.
        const many = makeTrials("r1", 1_200, 6);
        await store.addPlannedTrials(many);
        assert.equal(
          (
            await store.trialsAmong(
              "r1",
              many.map((t) => t.id),
            )
          ).length,
          1_200,
        );
        assert.deepEqual(await store.trialsAmong("r1", []), []);
      }));

    test("listTrials filters by status and limits", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 6);
        await store.addPlannedTrials(trials);
        await store.completeTrial(trials[1].id, makeOutcome("finished"), []);
        await store.completeTrial(trials[4].id, makeOutcome("errored"), []);
        const ids = async (filter?: Parameters<TrialStore["listTrials"]>[1]) =>
          (await store.listTrials("r1", filter)).map((r) => r.id);
        assert.deepEqual(
          await ids({ status: ["pending"] }),
          [0, 2, 3, 5].map((i) => trials[i].id),
        );
        assert.deepEqual(await ids({ status: ["errored", "finished"] }), [trials[1].id, trials[4].id]);
        assert.deepEqual(await ids({ status: ["pending"], limit: 2 }), [trials[0].id, trials[2].id]);
        assert.deepEqual(await ids({ status: [] }), []);
        assert.deepEqual(await ids({ limit: 1 }), [trials[0].id]);
        assert.deepEqual(await store.listTrials("other-run"), []);
      }));

    test("listTrials pages with afterId and limit, combined with a status filter", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        await store.saveRun(makeRun("r0"));
        const trials = makeTrials("r1", 23);
        await store.addPlannedTrials([...makeTrials("r0", 4), ...trials]);
        const done = new Set([2, 3, 10, 22].map((i) => trials[i].id));
        for (const id of done) await store.completeTrial(id, makeOutcome("finished"), []);
        const seen: string[] = [];
        let afterId: string | undefined;
        for (;;) {
          const page = await store.listTrials("r1", { status: ["pending", "errored"], limit: 5, afterId });
          if (page.length === 0) break;
          assert.ok(page.length <= 5, "expected page.length <= 5");
          seen.push(...page.map((r) => r.id));
          afterId = page.at(-1)?.id;
        }
        assert.deepEqual(
          seen,
          trials.map((t) => t.id).filter((id) => !done.has(id)),
        );
        assert.deepEqual(
          (await store.listTrials("r1", { afterId: trials[20].id })).map((r) => r.id),
          [trials[21].id, trials[22].id],
        );
      }));

    test("countByStatus counts every status, zero included", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        await store.saveRun(makeRun("r2"));
        const trials = makeTrials("r1", 5);
        await store.addPlannedTrials([...trials, ...makeTrials("r2", 2)]);
        assert.deepEqual(await store.countByStatus("r1"), { pending: 5, finished: 0, errored: 0 });
        await store.completeTrial(trials[0].id, makeOutcome("finished"), []);
        await store.completeTrial(trials[1].id, makeOutcome("finished"), []);
        await store.completeTrial(trials[2].id, makeOutcome("errored"), []);
        assert.deepEqual(await store.countByStatus("r1"), { pending: 2, finished: 2, errored: 1 });
        assert.deepEqual(await store.countByStatus("r2"), { pending: 2, finished: 0, errored: 0 });
        assert.deepEqual(await store.countByStatus("none"), { pending: 0, finished: 0, errored: 0 });
      }));

    test("completeTrial stores outcome and calls together", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const [trial] = makeTrials("r1", 1);
        await store.addPlannedTrials([trial]);
        const outcome = makeOutcome("finished");
        const calls = [makeCall(trial.id, 0, "decompose"), makeCall(trial.id, 1, "map"), makeCall(trial.id, 2)];
        assert.equal(await store.completeTrial(trial.id, outcome, calls), true);
        const [row] = await store.listTrials("r1");
        assert.equal(row.status, "finished");
        assert.equal(row.executions, 1);
        assert.deepEqual(row.outcome, outcome);
        assert.ok(
          row.updatedAt && !Number.isNaN(Date.parse(row.updatedAt)),
          "expected row.updatedAt && !Number.isNaN(Date.parse(row.updatedAt))",
        );
        assert.deepEqual(await store.listCalls("r1"), asStored(calls, 1));
      }));

    test("completeTrial is atomic: a failing call insert leaves the trial pending", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const [trial] = makeTrials("r1", 1);
        await store.addPlannedTrials([trial]);
        // Two calls with the same seq violate the primary key after the outcome was written.
        const clash = [makeCall(trial.id, 0), makeCall(trial.id, 0)];
        await assert.rejects(store.completeTrial(trial.id, makeOutcome("finished"), clash));
        const [row] = await store.listTrials("r1");
        assert.deepEqual([row.status, row.executions, row.outcome], ["pending", 0, null]);
        assert.deepEqual(await store.listCalls("r1"), []);
        assert.equal(await store.completeTrial(trial.id, makeOutcome("finished"), [makeCall(trial.id, 0)]), true);
      }));

    test("completeTrial rejects bad input: unknown trial, calls of another trial", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const [trial] = makeTrials("r1", 1);
        await store.addPlannedTrials([trial]);
        await assert.rejects(store.completeTrial("nope", makeOutcome("finished"), []), /no trial with id "nope"/);
        await assert.rejects(
          store.completeTrial(trial.id, makeOutcome("finished"), [makeCall("other", 0)]),
          /belongs to trial other/,
        );
        assert.equal((await store.listTrials("r1"))[0].status, "pending");
      }));

    test("completeTrials writes a group in one transaction; a finished member is skipped", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 3);
        await store.addPlannedTrials(trials);
        await store.completeTrial(trials[0].id, makeOutcome("finished", "A"), [makeCall(trials[0].id, 0)]);
        const written = await store.completeTrials(
          trials.map((t) => ({ trialId: t.id, outcome: makeOutcome("finished", "D"), calls: [makeCall(t.id, 0)] })),
        );
        assert.deepEqual(written, [false, true, true]);
        const byId = new Map((await store.listTrials("r1")).map((r) => [r.id, r]));
        assert.deepEqual(
          trials.map((t) => [byId.get(t.id)?.status, byId.get(t.id)?.executions, byId.get(t.id)?.outcome?.finalAnswer]),
          [
            ["finished", 1, "A"],
            ["finished", 1, "D"],
            ["finished", 1, "D"],
          ],
        );
        assert.equal((await store.listCalls("r1")).length, 3);
      }));

    test("completeTrials is atomic: one failing member leaves the whole group unwritten", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 2);
        await store.addPlannedTrials(trials);
        const group = [
          { trialId: trials[0].id, outcome: makeOutcome("finished"), calls: [makeCall(trials[0].id, 0)] },
          // Two calls with the same seq fail on insert, after the first member was written.
          {
            trialId: trials[1].id,
            outcome: makeOutcome("finished"),
            calls: [makeCall(trials[1].id, 0), makeCall(trials[1].id, 0)],
          },
        ];
        await assert.rejects(store.completeTrials(group));
        assert.deepEqual(
          (await store.listTrials("r1")).map((r) => r.status),
          ["pending", "pending"],
        );
        assert.deepEqual(await store.listCalls("r1"), []);
      }));

    test("spent counts every stored call of every execution, and only this run's", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        await store.saveRun(makeRun("r2", "2025-01-02T00:00:00.000Z"));
        const [a, b] = makeTrials("r1", 2);
        const [other] = makeTrials("r2", 1, 10);
        await store.addPlannedTrials([a, b, other]);
        assert.deepEqual(await store.spent("r1"), { calls: 0, costUsd: 0 });
        // a errors once (one call), then finishes (two calls); b finishes with one call.
        await store.completeTrial(a.id, makeOutcome("errored"), [makeCall(a.id, 0)]);
        await store.completeTrial(a.id, makeOutcome("finished"), [makeCall(a.id, 0), makeCall(a.id, 1)]);
        await store.completeTrial(b.id, makeOutcome("finished"), [makeCall(b.id, 0)]);
        await store.completeTrial(other.id, makeOutcome("finished"), [makeCall(other.id, 0)]);
        const spent = await store.spent("r1");
        assert.equal(spent.calls, 4);
        assert.ok(Math.abs(spent.costUsd - 0.004) < 1e-12, String(spent.costUsd));
      }));

    test("listCallsOf groups a page's calls by trial, in order, and only this run's", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const [a, b, c] = makeTrials("r1", 3);
        await store.addPlannedTrials([a, b, c]);
        await store.completeTrial(a.id, makeOutcome("errored"), [makeCall(a.id, 0)]);
        await store.completeTrial(a.id, makeOutcome("finished"), [makeCall(a.id, 1), makeCall(a.id, 0)]);
        await store.completeTrial(b.id, makeOutcome("finished"), [makeCall(b.id, 0)]);
        const grouped = await store.listCallsOf("r1", [a.id, b.id, c.id, "not-a-trial"]);
        assert.deepEqual(
          grouped.get(a.id)?.map((x) => [x.execution, x.seq]),
          [
            [1, 0],
            [2, 0],
            [2, 1],
          ],
        );
        assert.deepEqual(grouped.get(a.id), await store.listCalls("r1", a.id));
        assert.equal(grouped.get(b.id)?.length, 1);
        assert.deepEqual(grouped.get(c.id), []);
        assert.deepEqual(grouped.get("not-a-trial"), []);
        assert.equal((await store.listCallsOf("r2", [a.id])).get(a.id)?.length, 0);
      }));

    test("a finished trial is never overwritten", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const [trial] = makeTrials("r1", 1);
        await store.addPlannedTrials([trial]);
        const outcome = makeOutcome("finished", "A");
        const calls = [makeCall(trial.id, 0)];
        assert.equal(await store.completeTrial(trial.id, outcome, calls), true);
        const again = [makeCall(trial.id, 0, "late"), makeCall(trial.id, 1, "late")];
        assert.equal(await store.completeTrial(trial.id, makeOutcome("finished", "C"), again), false);
        assert.equal(await store.completeTrial(trial.id, makeOutcome("errored"), again), false);
        const [row] = await store.listTrials("r1");
        assert.deepEqual([row.status, row.executions, row.outcome], ["finished", 1, outcome]);
        assert.deepEqual(await store.listCalls("r1"), asStored(calls, 1));
      }));

    test("an errored trial is retried to finished; both executions' calls are kept", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const [trial] = makeTrials("r1", 1);
        await store.addPlannedTrials([trial]);
        // The caller's execution numbers are ignored: the store numbers executions itself.
        const firstCalls = [makeCall(trial.id, 0, "answer", 99), makeCall(trial.id, 1, "answer", 99)];
        assert.equal(await store.completeTrial(trial.id, makeOutcome("errored"), firstCalls), true);
        let [row] = await store.listTrials("r1", { status: ["errored"] });
        assert.deepEqual([row.executions, row.outcome], [1, makeOutcome("errored")]);

        const retryCalls = [makeCall(trial.id, 0, "retry")];
        const finished = makeOutcome("finished", "D");
        assert.equal(await store.completeTrial(trial.id, finished, retryCalls), true);
        [row] = await store.listTrials("r1");
        assert.deepEqual([row.status, row.executions, row.outcome], ["finished", 2, finished]);
        const stored = await store.listCalls("r1", trial.id);
        assert.deepEqual(stored, [...asStored(firstCalls, 1), ...asStored(retryCalls, 2)]);
        assert.equal(await store.completeTrial(trial.id, makeOutcome("errored"), []), false);
      }));

    test("listCalls orders by trial id, execution, seq and filters by run and trial", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        await store.saveRun(makeRun("r2"));
        const [t0, t1, t2] = makeTrials("r1", 3);
        const [other] = makeTrials("r2", 1);
        await store.addPlannedTrials([t0, t1, t2, other]);
        // Completed out of id order, calls handed over in reverse seq order.
        await store.completeTrial(t2.id, makeOutcome("errored"), [makeCall(t2.id, 1), makeCall(t2.id, 0)]);
        await store.completeTrial(other.id, makeOutcome("finished"), [makeCall(other.id, 0)]);
        await store.completeTrial(t0.id, makeOutcome("finished"), [makeCall(t0.id, 2), makeCall(t0.id, 0)]);
        await store.completeTrial(t2.id, makeOutcome("finished"), [makeCall(t2.id, 0)]);
        const keys = (calls: CallRecord[]) => calls.map((c) => `${c.trialId}/${c.execution}/${c.seq}`);
        assert.deepEqual(keys(await store.listCalls("r1")), [
          `${t0.id}/1/0`,
          `${t0.id}/1/2`,
          `${t2.id}/1/0`,
          `${t2.id}/1/1`,
          `${t2.id}/2/0`,
        ]);
        assert.deepEqual(keys(await store.listCalls("r1", t2.id)), [`${t2.id}/1/0`, `${t2.id}/1/1`, `${t2.id}/2/0`]);
        assert.deepEqual(await store.listCalls("r1", t1.id), []);
        assert.deepEqual(keys(await store.listCalls("r2")), [`${other.id}/1/0`]);
      }));

    test("a call without tool calls or with an error round-trips", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const [trial] = makeTrials("r1", 1);
        await store.addPlannedTrials([trial]);
        const { toolCalls: _omit, ...plain } = makeCall(trial.id, 0);
        const failed: CallRecord = {
          ...plain,
          seq: 1,
          responseText: null,
          finishReason: null,
          error: { bucket: "timeout", message: "no response in 60 s" },
        };
        await store.completeTrial(trial.id, makeOutcome("errored"), [plain, failed]);
        const stored = await store.listCalls("r1");
        assert.deepEqual(stored, [plain, failed]);
        assert.equal("toolCalls" in stored[0], false);
      }));

    test("cache round-trips and put is idempotent", () =>
      withStore(async (store) => {
        const value: GenerateResult = {
          text: "Answer: C",
          toolCalls: [{ id: "t", name: "calc", arguments: "{}" }],
          usage: { inputTokens: 10, outputTokens: 3 },
          finishReason: "stop",
          paramsUsed: { temperature: 0, maxTokens: 64 },
          droppedParams: [{ name: "seed", value: 1, reason: "unsupported" }],
          keySlot: 1,
        };
        assert.equal(await store.cacheGet("k1"), undefined);
        await store.cachePut("k1", value);
        await store.cachePut("k1", { ...value, text: "different" });
        assert.deepEqual(await store.cacheGet("k1"), value);
        assert.equal(await store.cacheGet("k2"), undefined);
      }));

    test("reopening the store keeps runs, trials, calls and cache", () =>
      withStore(async (store, reopen) => {
        const run = makeRun("r1");
        await store.saveRun(run);
        const trials = makeTrials("r1", 3);
        await store.addPlannedTrials(trials);
        const calls = [makeCall(trials[0].id, 0)];
        await store.completeTrial(trials[0].id, makeOutcome("finished"), calls);
        await store.completeTrial(trials[1].id, makeOutcome("errored"), []);
        await store.cachePut("k", {
          text: "x",
          usage: { inputTokens: 1, outputTokens: 1 },
          paramsUsed: {},
          droppedParams: [],
        });
        const before = await store.listTrials("r1");
        await store.close();

        const again = await reopen();
        assert.deepEqual(await again.getRun(), run);
        assert.deepEqual(await again.listTrials("r1"), before);
        assert.deepEqual(await again.listCalls("r1"), asStored(calls, 1));
        assert.equal((await again.cacheGet("k"))?.text, "x");
        assert.equal(await again.addPlannedTrials(trials), 0);
        assert.equal(await again.completeTrial(trials[0].id, makeOutcome("errored"), []), false);
        assert.equal(await again.completeTrial(trials[1].id, makeOutcome("finished"), []), true);
      }));

    test("concurrent completeTrial on the same trial: exactly one wins", () =>
      withStore(async (store, reopen) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 8);
        await store.addPlannedTrials(trials);
        // Separate store instances: separate connections (pools on PG), like separate workers.
        const workers = [store, await reopen(), await reopen(), await reopen()];
        const wins = await Promise.all(
          trials.map(async (t) => {
            const results = await Promise.all(
              workers.map((w, k) =>
                w.completeTrial(t.id, makeOutcome("finished", `w${k}`), [
                  makeCall(t.id, 0, `w${k}`),
                  makeCall(t.id, 1, `w${k}`),
                ]),
              ),
            );
            return results;
          }),
        );
        const rows = await store.listTrials("r1");
        for (const [i, results] of wins.entries()) {
          assert.equal(results.filter(Boolean).length, 1, `trial ${i}: ${results}`);
          const winner = `w${results.indexOf(true)}`;
          const row = rows[i];
          assert.deepEqual([row.status, row.executions, row.outcome?.finalAnswer], ["finished", 1, winner]);
          const calls = await store.listCalls("r1", row.id);
          assert.deepEqual(
            calls.map((c) => `${c.execution}/${c.seq}/${c.role}`),
            [`1/0/${winner}`, `1/1/${winner}`],
          );
        }
        // Concurrent retries of an errored trial on one store: both land, as executions 2 and 3.
        const more = makeTrials("r1", 1, 100)[0];
        await store.addPlannedTrials([more]);
        await store.completeTrial(more.id, makeOutcome("errored"), [makeCall(more.id, 0)]);
        const retry = await Promise.all(
          workers.slice(0, 2).map((w) => w.completeTrial(more.id, makeOutcome("errored"), [makeCall(more.id, 0)])),
        );
        assert.deepEqual(retry, [true, true]);
        const executions = (await store.listCalls("r1", more.id)).map((c) => c.execution);
        assert.deepEqual(executions, [1, 2, 3]);
      }));

    test("workers completing groups that share tasks, in opposite orders, while renewing their leases: nothing fails", () =>
      withStore(async (store, reopen) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 160);
        await store.addPlannedTrials(trials);
        const workers = [store, await reopen(), await reopen(), await reopen()];
        const lease = { leaseMs: 60_000, erroredBefore: new Date().toISOString() };
        const claimed = await Promise.all(workers.map((w, k) => w.claimTrials("r1", `w${k}`, 40, lease)));
        const hashes = Array.from({ length: 40 }, (_, h) => `h-${String(h).padStart(2, "0")}`);
        const taskOf = (h: string) => ({ hash: h, json: JSON.stringify({ question: h }) });
        const results = await Promise.all(
          workers.map(async (w, k) => {
            const mine = claimed[k];
            const ids = mine.map((t) => t.id);
            let renewing = true;
            const renewals = (async () => {
              while (renewing) await w.renewLeases(`w${k}`, ids, 60_000);
            })();
            const written: boolean[] = [];
            try {
              // Groups of 8 in reverse id order; odd workers name the shared tasks in reverse order.
              for (let g = 0; g < mine.length; g += 8) {
                const group = mine.slice(g, g + 8).reverse();
                const order = k % 2 === 0 ? hashes : [...hashes].reverse();
                written.push(
                  ...(await w.completeTrials(
                    group.map((t, i) => ({
                      trialId: t.id,
                      outcome: makeOutcome("finished"),
                      calls: [makeCall(t.id, 0)],
                      task: taskOf(order[(g + i) % order.length]),
                      leaseOwner: `w${k}`,
                    })),
                  )),
                );
              }
            } finally {
              renewing = false;
              await renewals;
            }
            return written;
          }),
        );
        assert.deepEqual(
          results.map((written) => written.filter(Boolean).length),
          [40, 40, 40, 40],
        );
        assert.deepEqual(await store.countByStatus("r1"), { pending: 0, finished: 160, errored: 0 });
        assert.equal((await store.getTasks(hashes)).size, hashes.length);
      }));

    test("the task a trial was sent is stored with its completion, once per distinct task", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 3);
        await store.addPlannedTrials(trials);
        const task = {
          itemId: "item-0",
          benchmark: "bench",
          format: "mc",
          question: "Q?",
          answerInstruction: "A",
          condition: {},
        };
        const sent = { hash: "h-shared", json: JSON.stringify(task) };
        const written = await store.completeTrials([
          { trialId: trials[0].id, outcome: makeOutcome("finished"), calls: [makeCall(trials[0].id, 0)], task: sent },
          { trialId: trials[1].id, outcome: makeOutcome("finished"), calls: [makeCall(trials[1].id, 0)], task: sent },
        ]);
        assert.deepEqual(written, [true, true]);
        // A refused completion (already finished) writes no task either.
        const other = { hash: "h-other", json: JSON.stringify({ ...task, question: "other" }) };
        assert.equal(
          (
            await store.completeTrials([
              { trialId: trials[0].id, outcome: makeOutcome("finished"), calls: [], task: other },
            ])
          )[0],
          false,
        );
        const rows = await store.listTrials("r1");
        assert.deepEqual(
          rows.map((r) => r.taskHash),
          ["h-shared", "h-shared", null],
        );
        const tasks = await store.getTasks(["h-shared", "h-other", "h-missing"]);
        assert.deepEqual([...tasks.keys()], ["h-shared"]);
        assert.deepEqual(tasks.get("h-shared"), task);
      }));

    test("listTrialFacts is listTrials without free text; getTaskFacts decodes a task's wanted fields", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 5);
        await store.addPlannedTrials(trials);
        const long = (k: number) => `option ${k}: ${"a long option text that is shared between tasks ".repeat(2)}`;
        const tasks = [0, 1].map((k) => ({
          itemId: `item-${k}`,
          benchmark: "bench",
          format: "mc",
          question: `${"a long question, stored once in the texts table ".repeat(3)}${k}`,
          options: [long(1), long(2), "@ a short option starting with the reference mark", `short ${k}`],
          answerInstruction: "A",
          condition: { scaffold: "direct", format: "mc", perturbation: { name: "choice_reorder", seed: k } },
          perturbation: { status: "applied", changed: ["options"], family: "order" },
        }));
        const sent = tasks.map((task, k) => ({ hash: `h-${k}`, json: JSON.stringify(task) }));
        await store.completeTrials(
          [0, 1, 2].map((i) => ({
            trialId: trials[i].id,
            outcome: makeOutcome(i === 2 ? "errored" : "finished"),
            calls: [makeCall(trials[i].id, 0)],
            task: sent[i % 2],
          })),
        );
        const full = await store.listTrials("r1");
        const narrow = [
          ...(await store.listTrialFacts("r1", { limit: 2 })),
          ...(await store.listTrialFacts("r1", { afterId: full[1].id })),
        ];
        assert.deepEqual(
          narrow,
          full.map((t) =>
            t.outcome
              ? { ...t, outcome: { ...t.outcome, finalAnswer: null, errorMessage: null, droppedParams: [] } }
              : t,
          ),
        );
        const facts = await store.getTaskFacts(["h-1", "h-0", "h-missing"]);
        assert.deepEqual([...facts.keys()].sort(), ["h-0", "h-1"]);
        for (const [k, task] of tasks.entries()) {
          const { question, answerInstruction, condition, ...wanted } = task;
          assert.deepEqual(facts.get(`h-${k}`), wanted);
        }
      }));

    test("listCallFactsOf is listCallsOf without the calls' text, trial by trial, executions and errors included", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 4);
        await store.addPlannedTrials(trials);
        // An errored first execution, then calls with cache tokens, a note, checks and an error.
        await store.completeTrial(trials[0].id, makeOutcome("errored"), [
          { ...makeCall(trials[0].id, 0), error: { bucket: "rate_limit", message: "slow down" } },
        ]);
        await store.completeTrial(trials[0].id, makeOutcome("finished"), [
          { ...makeCall(trials[0].id, 0), usage: { inputTokens: 3_000_000_000, outputTokens: 7, cacheReadTokens: 40 } },
          { ...makeCall(trials[0].id, 1, "tool"), note: { tool: "search", error: "no such page" } },
          {
            ...makeCall(trials[0].id, 2),
            audit: { options_reached: true, safety_reached: null },
            error: { bucket: "context_too_long", message: "" },
            usage: { inputTokens: 5, outputTokens: 1, cacheWriteTokens: 9 },
          },
        ]);
        await store.completeTrial(trials[2].id, makeOutcome("finished"), [makeCall(trials[2].id, 0)]);
        const ids = [...trials.map((t) => t.id), "no-such-trial"];
        const full = await store.listCallsOf("r1", ids);
        const narrow = await store.listCallFactsOf("r1", ids);
        assert.deepEqual([...narrow.keys()], ids, "every asked trial, in the order asked");
        const fields = ["trialId", "execution", "seq", "role", "usage", "error", "audit", "note"] as const;
        for (const id of ids) {
          const facts = full
            .get(id)!
            .map((c) => Object.fromEntries(fields.flatMap((f) => (c[f] === undefined ? [] : [[f, c[f]]]))));
          assert.deepEqual(narrow.get(id), facts, `the facts of ${id}'s calls`);
        }
        assert.equal(narrow.get(trials[0].id)?.length, 4, "both executions' calls");
      }));

    test("judgements: a sealed round, its calls and verdicts, linking at unblinding, the log; a new round replaces the old", () =>
      withStore(async (store, reopen) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 2);
        await store.addPlannedTrials(trials);
        assert.equal(await store.getBlindingRound("r1"), undefined);
        const seal = {
          mapping: "[mapping]",
          sealedSha256: "s".repeat(64),
          sealedAt: "2025-01-01T00:00:00.000Z",
          entries: 2,
        };
        await store.sealBlindingRound("r1", seal);
        await store.appendBlindingLog("r1", { event: "sealed", at: seal.sealedAt, entries: 2 });
        await store.recordJudgeCall("r1", 1, { uuid: "u1", purpose: "verdict", response: "{}" });
        await store.recordJudgeCall("r1", 2, { uuid: "u2", purpose: "verdict", response: null });
        const verdict = {
          uuid: "u1",
          benchmark: "bench",
          rubric: "compliance",
          judge: "j1",
          role: "primary" as const,
          ok: true,
          label: "full_refusal",
          confidence: 4,
          justification: 'it "refused", ünïcode',
          outcome: 0,
          error: null,
        };
        const failed = {
          ...verdict,
          uuid: "u2",
          ok: false,
          label: null,
          confidence: null,
          justification: null,
          outcome: null,
          error: "bad JSON",
        };
        await store.saveVerdicts("r1", [verdict, failed]);
        const judged = {
          judge: "j1",
          verdictsSha256: "v".repeat(64),
          responses: 2,
          guessingCheck: null,
          agreement: { per_benchmark: [], skipped: [] },
        };
        await store.finishBlindingRound("r1", judged);
        await store.unblindRound(
          "r1",
          "2025-01-02T00:00:00.000Z",
          new Map([
            ["u1", trials[0].id],
            ["u2", trials[1].id],
          ]),
        );
        await store.appendBlindingLog("r1", { event: "unblinded", at: "2025-01-02T00:00:00.000Z" });

        const again = await reopen();
        assert.deepEqual(await again.getBlindingRound("r1"), {
          ...seal,
          judged,
          unblindedAt: "2025-01-02T00:00:00.000Z",
        });
        assert.deepEqual(await again.listVerdicts("r1"), [
          { ...verdict, trialId: trials[0].id },
          { ...failed, trialId: trials[1].id },
        ]);
        assert.deepEqual(
          (await again.listJudgeCalls("r1")).map((c) => c.uuid),
          ["u1", "u2"],
        );
        assert.deepEqual(
          (await again.listBlindingLog("r1")).map((e) => e.event),
          ["sealed", "unblinded"],
        );

        await again.sealBlindingRound("r1", { ...seal, mapping: "[new]" });
        assert.deepEqual(await again.getBlindingRound("r1"), {
          ...seal,
          mapping: "[new]",
          judged: null,
          unblindedAt: null,
        });
        assert.deepEqual(await again.listVerdicts("r1"), []);
        assert.deepEqual(await again.listJudgeCalls("r1"), []);
        assert.equal((await again.listBlindingLog("r1")).length, 2, "the blinding log keeps every round's events");
      }));

    test("unblinding links every verdict of a UUID (primary and validation), and no verdict of a UUID it is not given", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 3);
        await store.addPlannedTrials(trials);
        await store.sealBlindingRound("r1", {
          mapping: "[mapping]",
          sealedSha256: "s".repeat(64),
          sealedAt: "2025-01-01T00:00:00.000Z",
          entries: 3,
        });
        const verdict = (uuid: string, role: "primary" | "validation") => ({
          uuid,
          benchmark: "bench",
          rubric: "compliance",
          judge: role === "primary" ? "j1" : "j2",
          role,
          ok: true,
          label: "full_refusal",
          confidence: 4,
          justification: null,
          outcome: 0,
          error: null,
        });
        await store.saveVerdicts("r1", [
          verdict("u2", "primary"),
          verdict("u1", "primary"),
          verdict("u1", "validation"),
          verdict("u3", "primary"),
          verdict("u2", "validation"),
        ]);
        await store.unblindRound(
          "r1",
          "2025-01-02T00:00:00.000Z",
          new Map([
            ["u1", trials[0].id],
            ["u2", trials[1].id],
          ]),
        );
        assert.deepEqual(
          (await store.listVerdicts("r1")).map((v) => [v.uuid, v.role, v.trialId]),
          [
            ["u2", "primary", trials[1].id],
            ["u1", "primary", trials[0].id],
            ["u1", "validation", trials[0].id],
            ["u3", "primary", null],
            ["u2", "validation", trials[1].id],
          ],
        );
      }));

    test("a large batch of planned trials (20,000) inserts in one call", () =>
      withStore(async (store) => {
        await store.saveRun(makeRun("big"));
        const trials = makeTrials("big", 20_000);
        assert.equal(await store.addPlannedTrials(trials), 20_000);
        assert.deepEqual(await store.countByStatus("big"), { pending: 20_000, finished: 0, errored: 0 });
        assert.equal(await store.addPlannedTrials(trials.slice(5_000, 15_000)), 0);
        const head = await store.listTrials("big", { limit: 3 });
        assert.deepEqual(
          head.map((r) => r.id),
          trials.slice(0, 3).map((t) => t.id),
        );
        const tail = await store.listTrials("big", { status: ["pending"] });
        assert.equal(tail.at(-1)?.id, trials.at(-1)?.id);
      }));

    test("provider batches: recorded before polling, outcomes settled once, resubmissions counted", () =>
      withStore(async (store, reopen) => {
        await store.saveRun(makeRun("r1"));
        const at = "2026-01-01T00:00:00.000Z";
        await store.recordBatch("r1", { batchId: "b1", provider: "openai", modelId: "m", submittedAt: at }, [
          "c1",
          "c2",
          "c3",
        ]);
        const submitted = await store.batchRequests("r1", ["c1", "c2", "c3", "unknown"]);
        assert.deepEqual([...submitted.keys()].sort(), ["c1", "c2", "c3"]);
        assert.ok(
          [...submitted.values()].every((r) => r.state === "submitted" && r.submissions === 1 && r.raw === null),
          'expected [...submitted.values()].every((r) => r.state === "submitted" && r.submissions === 1 && ...',
        );
        const response = { kind: "response" as const, body: { choices: [{ message: { content: "Answer: B" } }] } };
        const failure = { kind: "error" as const, status: 500, body: { error: { message: "server" } } };
        await store.settleBatch("r1", "b1", "completed", [
          { customId: "c1", state: "done", raw: response },
          { customId: "c2", state: "failed", raw: failure },
        ]);
        const settled = await store.batchRequests("r1", ["c2", "c3"]);
        assert.equal(settled.get("c2")?.state, "failed");
        assert.deepEqual(settled.get("c2")?.raw, failure);
        assert.equal(settled.get("c3")?.state, "unfinished", "a request the batch did not report was not run");
        // c2 and c3 go into a second batch; settling the first again must not touch them.
        await store.recordBatch("r1", { batchId: "b2", provider: "openai", modelId: "m", submittedAt: at }, [
          "c2",
          "c3",
        ]);
        await store.settleBatch("r1", "b1", "completed", [{ customId: "c2", state: "failed", raw: failure }]);
        const again = await (await reopen()).batchRequests("r1", ["c1", "c2", "c3"]);
        assert.deepEqual(again.get("c1"), {
          customId: "c1",
          batchId: "b1",
          state: "done",
          submissions: 1,
          raw: response,
        });
        assert.deepEqual(again.get("c2"), {
          customId: "c2",
          batchId: "b2",
          state: "submitted",
          submissions: 2,
          raw: null,
        });
        assert.equal(again.get("c3")?.submissions, 2);
        const batches = await store.listBatches("r1");
        assert.deepEqual(
          batches.map((b) => [b.batchId, b.status, b.providerStatus, b.requests]),
          [
            ["b1", "ended", "completed", 3],
            ["b2", "submitted", null, 2],
          ],
        );
        assert.deepEqual(await store.listBatches("other"), []);
      }));
  });
}
