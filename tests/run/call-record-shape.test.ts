/**
 * A run makes hundreds of thousands of call records (src/run/execute/recording-call.ts). Records
 * of one kind must share one hidden class: built by spreading the request side, nearly each got a
 * class of its own, made anew in V8's old generation, which then filled with them. The check runs
 * in a child Node started with --allow-natives-syntax, where %HaveSameMap tells.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const recordingCallUrl = new URL("../../src/run/execute/recording-call.ts", import.meta.url).href;
const renderUrl = new URL("../../src/facets/render.ts", import.meta.url).href;

const childScript = `
import { recordingCall } from ${JSON.stringify(recordingCallUrl)};
import { renderTrialTask } from ${JSON.stringify(renderUrl)};
const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)");
let failNext = false;
let revision = 0;
const model = {
  spec: { id: "demo", provider: "demo", model: "demo-model" },
  params: { temperature: 0 },
  price: undefined,
  provider: {
    simulated: true,
    async generate() {
      if (failNext) throw new Error("demo failure");
      revision = (revision + 1) % 3;
      return {
        text: "Answer: B", paramsUsed: { temperature: 0 }, droppedParams: [], usage: { inputTokens: 3, outputTokens: 2 },
        finishReason: "stop", ...(revision === 0 ? { modelRevision: "demo-2026" } : {}),
      };
    },
  },
};
const calls = [];
const item = { id: "q1", benchmark: "demo", stem: "Which demo option is right?", options: ["north", "south"], goldIndex: 1, metadata: {} };
const task = renderTrialTask(item, { format: "mc" });
const attempts = Array.from({ length: 40 }, (_, k) => ({
  trial: { id: "t" + k, attempt: 0 }, execution: 1, model, calls, task,
  options: { store: undefined, cache: false, abortSignal: undefined, budget: undefined },
}));
// As in a run: the subject's calls audited, a judge's not, some replies naming a model revision.
for (const [k, attempt] of attempts.entries()) {
  const call = recordingCall(attempt, { audit: k % 2 === 0 });
  await call("answer", [{ role: "user", content: "Which demo option? " + attempt.trial.id }]);
  await call("critique", [{ role: "user", content: "Check the answer of " + attempt.trial.id }]);
}
failNext = true;
for (const attempt of attempts) {
  await recordingCall(attempt, { audit: false })("answer", [{ role: "user", content: "again" }]).catch(() => undefined);
}
// Records of one kind: the same keys in the same order.
const kinds = new Map();
for (const record of calls) {
  const kind = Object.keys(record).join(",");
  if (!kinds.has(kind)) kinds.set(kind, []);
  kinds.get(kind).push(record);
}
console.log(JSON.stringify({
  records: calls.length,
  kinds: kinds.size,
  shared: [...kinds.values()].every((records) => records.every((r) => sameMap(r, records[0]))),
}));
`;

describe("call records", () => {
  it("of one kind share one hidden class", () => {
    const child = spawnSync(
      process.execPath,
      ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", childScript],
      { encoding: "utf8", cwd: fileURLToPath(new URL("../..", import.meta.url)) },
    );
    assert.equal(child.status, 0, `the child ran: ${child.stderr}`);
    const result = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}");
    assert.equal(result.records, 120, "80 answered calls and 40 failed ones");
    assert.ok(result.kinds >= 4, `audited or not, with a note or not, failed: ${result.kinds} kinds`);
    assert.equal(result.shared, true, "every record shares its kind's hidden class");
  });
});
