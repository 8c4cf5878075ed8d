/**
 * The store's batch submissions (migration 0013), checked on any store: a submission recorded
 * (token, requests) before the provider is called, then its batch id; a submission the provider
 * never received marked absent and its requests uncounted; a found batch recorded twice kept once.
 */
import assert from "node:assert/strict";
import type { TrialStore } from "../../src/run/store/types.js";
import { makeRun } from "../store/store-suite.js";

const AT = "2026-01-01T00:00:00.000Z";
const submission = (token: string) => ({
  token,
  provider: "openai",
  modelId: "m",
  model: "gpt-4o-mini",
  createdAt: AT,
});
const batch = (batchId: string) => ({ batchId, provider: "openai", modelId: "m", submittedAt: AT });

export async function checkSubmissions(store: TrialStore): Promise<void> {
  await store.saveRun(makeRun("r1"));
  await store.recordSubmission("r1", submission("t1"), ["c1", "c2"]);
  const waiting = await store.batchRequests("r1", ["c1", "c2"]);
  assert.deepEqual(waiting.get("c1"), {
    customId: "c1",
    batchId: "",
    state: "submitting",
    submissions: 1,
    raw: null,
    token: "t1",
  });
  assert.deepEqual(await store.batchSubmission("r1", "t1"), {
    ...submission("t1"),
    state: "submitting",
    batchId: null,
    requests: 2,
  });
  assert.deepEqual(await store.listBatches("r1"), [], "no batch before the provider answered");

  // Two workers that both found the batch record it once.
  await store.recordSubmitted("r1", "t1", batch("b1"));
  await store.recordSubmitted("r1", "t1", batch("b1"));
  assert.deepEqual(
    (await store.listBatches("r1")).map((b) => [b.batchId, b.status, b.requests]),
    [["b1", "submitted", 2]],
  );
  const sent = await store.batchRequests("r1", ["c1", "c2"]);
  assert.ok(
    [...sent.values()].every((r) => r.state === "submitted" && r.batchId === "b1" && r.submissions === 1),
    'expected [...sent.values()].every((r) => r.state === "submitted" && r.batchId === "b1" && r.subm...',
  );
  await store.abandonSubmission("r1", "t1");
  assert.equal((await store.batchSubmission("r1", "t1"))?.state, "submitted", "a found submission stays found");

  const failure = { kind: "error" as const, status: 500, body: { error: { message: "server" } } };
  await store.settleBatch("r1", "b1", "completed", [
    { customId: "c1", state: "done", raw: { kind: "response", body: {} } },
    { customId: "c2", state: "failed", raw: failure },
  ]);
  // c2 is resubmitted with a new request c3; that submission never reaches the provider.
  await store.recordSubmission("r1", submission("t2"), ["c2", "c3"]);
  const resent = await store.batchRequests("r1", ["c2", "c3"]);
  assert.deepEqual([...resent.values()].map((r) => [r.customId, r.state, r.submissions, r.raw, r.token]).sort(), [
    ["c2", "submitting", 2, null, "t2"],
    ["c3", "submitting", 1, null, "t2"],
  ]);
  await store.settleBatch("r1", "b1", "completed", [{ customId: "c2", state: "failed", raw: failure }]);
  assert.equal((await store.batchRequests("r1", ["c2"])).get("c2")?.state, "submitting", "a late settle leaves it");
  await store.abandonSubmission("r1", "t2");
  const uncounted = await store.batchRequests("r1", ["c2", "c3"]);
  assert.deepEqual([...uncounted.values()].map((r) => [r.customId, r.state, r.submissions]).sort(), [
    ["c2", "unfinished", 1],
    ["c3", "unfinished", 0],
  ]);
  assert.deepEqual(
    (await store.listSubmissions("r1")).map((s) => [s.token, s.state, s.batchId]),
    [
      ["t1", "submitted", "b1"],
      ["t2", "absent", null],
    ],
  );
  assert.deepEqual(await store.recordedBatchIds(["b1", "b9"]), new Set(["b1"]));
  assert.deepEqual(await store.listSubmissions("other"), []);
}
