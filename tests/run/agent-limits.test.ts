/** The per-trial limits and the oldest-tool-trace-first truncation (GAIA section 3.6), on constructed conversations. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ChatMessage } from "../../src/contracts/provider.js";
import type { CallRecord } from "../../src/contracts/trial.js";
import { estimateTokens } from "../../src/core/tokens.js";
import { AgentLimitReached, checkAgentLimits, truncateToolTraces } from "../../src/run/execute/agent-limits.js";

function trace(n: number, size: number): ChatMessage[] {
  return [
    { role: "assistant", content: `step ${n}`, toolCalls: [{ id: `c${n}`, name: "bash", arguments: "{}" }] },
    { role: "tool", toolCallId: `c${n}`, content: "x".repeat(size) },
  ];
}

const head: ChatMessage[] = [
  { role: "system", content: "You are an agent." },
  { role: "user", content: "The task." },
];

function tokens(messages: ChatMessage[]): number {
  return messages.reduce(
    (s, m) => s + estimateTokens(m.content) + estimateTokens(JSON.stringify(m.toolCalls ?? [])),
    0,
  );
}

describe("truncateToolTraces", () => {
  const messages = [
    ...head,
    ...trace(1, 400),
    ...trace(2, 400),
    { role: "user" as const, content: "go on" },
    ...trace(3, 400),
  ];

  test("under the limit nothing is dropped", () => {
    const kept = truncateToolTraces(messages, tokens(messages));
    assert.equal(kept.dropped, 0);
    assert.deepEqual(kept.messages, messages);
  });

  test("the oldest traces go first, whole, until the input fits; the task and plain turns stay", () => {
    const limit = tokens(messages) - 50;
    const kept = truncateToolTraces(messages, limit);
    assert.equal(kept.dropped, 2);
    assert.deepEqual(kept.messages, [...head, ...trace(2, 400), { role: "user", content: "go on" }, ...trace(3, 400)]);
    assert.ok(
      kept.tokensAfter <= limit && kept.tokensBefore === tokens(messages),
      "expected kept.tokensAfter <= limit && kept.tokensBefore === tokens(messages)",
    );
    const tighter = truncateToolTraces(messages, tokens([...head, { role: "user", content: "go on" }]));
    assert.deepEqual(tighter.messages, [...head, { role: "user", content: "go on" }]);
  });

  test("with no trace left it sends what remains (the provider then reports the overflow)", () => {
    const kept = truncateToolTraces(head, 1);
    assert.deepEqual(kept.messages, head);
    assert.equal(kept.dropped, 0);
  });
});

describe("checkAgentLimits", () => {
  const call = (input: number, output: number, cost: number): CallRecord =>
    ({ usage: { inputTokens: input, outputTokens: output }, costUsd: cost }) as CallRecord;
  const calls = [call(100, 20, 0.01), call(300, 30, 0.02)];
  const limit = (l: Parameters<typeof checkAgentLimits>[0], startedMs = Date.now()) => {
    try {
      checkAgentLimits(l, calls, startedMs);
      return undefined;
    } catch (error) {
      assert.ok(error instanceof AgentLimitReached, "expected error instanceof AgentLimitReached");
      return error.limit;
    }
  };

  test("each limit stops the trial once used up, and not before", () => {
    assert.equal(limit({ tokens: 450 }), "tokens");
    assert.equal(limit({ tokens: 451 }), undefined);
    assert.equal(limit({ costUsd: 0.03 }), "cost");
    assert.equal(limit({ costUsd: 0.031 }), undefined);
    assert.equal(limit({ messages: 2 }), "messages");
    assert.equal(limit({ messages: 3 }), undefined);
    assert.equal(limit({ wallSeconds: 5 }, Date.now() - 6000), "wall_time");
    assert.equal(limit({ wallSeconds: 5 }), undefined);
    assert.equal(limit(undefined), undefined);
  });
});
