/**
 * S1-S3 on each official SDK against its local mock server, with native tool calls: the mock
 * replies with tool calls in the provider's own wire format (OpenAI tool_calls, Anthropic
 * tool_use blocks, Google functionCall parts), the tools run for real in the sandbox, and the
 * next request must carry the tools and the tool results in that same native format.
 */
import assert from "node:assert/strict";
import type { Provider } from "../../src/contracts/provider.js";
import { ModelSpecSchema } from "../../src/contracts/spec.js";
import { createAnthropicProvider } from "../../src/models/anthropic.js";
import { createGoogleProvider } from "../../src/models/google.js";
import { createOpenAIProvider } from "../../src/models/openai.js";
import { agentTask, runAgentScaffold } from "../helpers/agent-harness.js";
import { startAnthropicMock } from "../helpers/mock-anthropic.js";
import { startGoogleMock } from "../helpers/mock-google.js";
import { startOpenAIMock } from "../helpers/mock-openai.js";
import type { MockServer, Scripted } from "../helpers/mock-server.js";
import { after, before, describeNeeding, it, needsBubblewrap } from "../helpers/prerequisites.js";

const KEY = "sk-test-agents-000000000001";
const ENV = { AGENT_KEY: KEY };

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** One provider: its mock, its SDK provider, and its wire format for replies and for reading requests. */
interface Wire {
  name: string;
  model: string;
  start(): Promise<MockServer>;
  provider(url: string): Provider;
  text(text: string): Scripted;
  tools(calls: Call[], cached: number): Scripted;
  /** The tool names a request offered. */
  offered(body: Record<string, unknown>): string[];
  /** The tool results a request carries: call id (Google: the function name) -> content. */
  results(body: Record<string, unknown>): Map<string, string>;
}

const ok = (body: unknown): Scripted => ({ kind: "json", status: 200, body });
// biome-ignore lint/suspicious/noExplicitAny: request bodies are read field by field
type Any = any;

const WIRES: Wire[] = [
  {
    name: "openai",
    model: "gpt-4o-mini",
    start: () => startOpenAIMock([KEY]),
    provider: (url) =>
      createOpenAIProvider(
        ModelSpecSchema.parse({
          id: "o",
          provider: "openai",
          model: "gpt-4o-mini",
          base_url: `${url}/v1`,
          api_key_env: "AGENT_KEY",
        }),
        ENV,
      ),
    text: (text) => ok(openaiBody({ role: "assistant", content: text }, "stop", 0)),
    tools: (calls, cached) =>
      ok(
        openaiBody(
          {
            role: "assistant",
            content: null,
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          },
          "tool_calls",
          cached,
        ),
      ),
    offered: (body: Any) => (body.tools ?? []).map((t: Any) => t.function.name),
    results: (body: Any) =>
      new Map(body.messages.filter((m: Any) => m.role === "tool").map((m: Any) => [m.tool_call_id, m.content])),
  },
  {
    name: "anthropic",
    model: "claude-haiku-4-5",
    start: () => startAnthropicMock([KEY]),
    provider: (url) =>
      createAnthropicProvider(
        ModelSpecSchema.parse({
          id: "a",
          provider: "anthropic",
          model: "claude-haiku-4-5",
          base_url: url,
          api_key_env: "AGENT_KEY",
        }),
        ENV,
      ),
    text: (text) => ok(anthropicBody([{ type: "text", text }], "end_turn", 0)),
    tools: (calls, cached) =>
      ok(
        anthropicBody(
          calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
          "tool_use",
          cached,
        ),
      ),
    offered: (body: Any) => (body.tools ?? []).map((t: Any) => t.name),
    results: (body: Any) =>
      new Map(
        body.messages
          .flatMap((m: Any) => (Array.isArray(m.content) ? m.content : []))
          .filter((b: Any) => b.type === "tool_result")
          .map((b: Any) => [b.tool_use_id, typeof b.content === "string" ? b.content : b.content[0].text]),
      ),
  },
  {
    name: "google",
    model: "gemini-2.5-flash",
    start: () => startGoogleMock([KEY]),
    provider: (url) =>
      createGoogleProvider(
        ModelSpecSchema.parse({
          id: "g",
          provider: "google",
          model: "gemini-2.5-flash",
          base_url: url,
          api_key_env: "AGENT_KEY",
        }),
        ENV,
      ),
    text: (text) => ok(googleBody([{ text }], 0)),
    tools: (calls, cached) =>
      ok(
        googleBody(
          calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args } })),
          cached,
        ),
      ),
    offered: (body: Any) =>
      (body.tools ?? []).flatMap((t: Any) => (t.functionDeclarations ?? []).map((f: Any) => f.name)),
    results: (body: Any) =>
      new Map(
        body.contents
          .flatMap((c: Any) => c.parts)
          .filter((p: Any) => p.functionResponse)
          .map((p: Any) => [p.functionResponse.id ?? p.functionResponse.name, p.functionResponse.response.result]),
      ),
  },
];

function openaiBody(message: Record<string, unknown>, finish: string, cached: number) {
  return {
    id: "chatcmpl-agent",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4o-mini",
    choices: [
      { index: 0, message: { refusal: null, annotations: [], ...message }, logprobs: null, finish_reason: finish },
    ],
    usage: {
      prompt_tokens: 120,
      completion_tokens: 12,
      total_tokens: 132,
      prompt_tokens_details: { cached_tokens: cached },
    },
  };
}

function anthropicBody(content: unknown[], stop: string, cached: number) {
  return {
    id: "msg_agent",
    type: "message",
    role: "assistant",
    model: "claude-haiku-4-5",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 12, cache_read_input_tokens: cached, cache_creation_input_tokens: 7 },
  };
}

function googleBody(parts: unknown[], cached: number) {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: {
      promptTokenCount: 110,
      candidatesTokenCount: 9,
      totalTokenCount: 119,
      cachedContentTokenCount: cached,
    },
    modelVersion: "gemini-2.5-flash",
    responseId: "agent-response",
  };
}

const TASK = agentTask("What is six times seven, computed with a tool? Give the number only.");

for (const wire of WIRES) {
  describeNeeding(needsBubblewrap(), `agent scaffolds on ${wire.name} (native tool calls)`, () => {
    let mock: MockServer;
    before(async () => {
      mock = await wire.start();
    });
    after(() => mock.close());

    it("S1 ReAct: a bash call runs in the sandbox, its output goes back natively, submit_answer ends the trial", async () => {
      mock.reset();
      mock.enqueue(
        wire.tools([{ id: "c1", name: "bash", args: { cmd: "echo $((6*7))" } }], 40),
        wire.tools([{ id: "c2", name: "submit_answer", args: { answer: "42" } }], 80),
      );
      const run = await runAgentScaffold({
        scaffold: "agent_react",
        provider: wire.provider(mock.url),
        model: wire.model,
        task: TASK,
      });
      assert.equal(run.finalText, "Answer: 42");
      assert.equal(mock.requests.length, 2);
      assert.deepEqual(wire.offered(mock.requests[0].body).sort(), ["bash", "python", "submit_answer", "web_browser"]);
      const tool = run.steps.find((s) => s.kind === "tool" && s.call.name === "bash");
      assert.ok(tool?.kind === "tool" && tool.result.output.trim() === "42", "the sandbox computed it");
      const sent = wire.results(mock.requests[1].body);
      const key = wire.name === "google" ? [...sent.keys()][0] : "c1";
      assert.equal(sent.get(key)?.trim(), "42");
    });

    it("S3 Planner-then-Executor: the planner is offered no tools, the executor starts fresh with the plan", async () => {
      mock.reset();
      mock.enqueue(
        wire.text("- compute 6*7 with python\n- submit the bare number"),
        wire.tools([{ id: "p1", name: "python", args: { code: "print(6*7)" } }], 0),
        wire.tools([{ id: "p2", name: "submit_answer", args: { answer: "42" } }], 0),
      );
      const run = await runAgentScaffold({
        scaffold: "planner_executor",
        provider: wire.provider(mock.url),
        model: wire.model,
        task: TASK,
      });
      assert.equal(run.finalText, "Answer: 42");
      assert.deepEqual(wire.offered(mock.requests[0].body), []);
      assert.ok(
        wire.offered(mock.requests[1].body).includes("text_editor"),
        'expected wire.offered(mock.requests[1].body).includes("text_editor")',
      );
      assert.match(JSON.stringify(mock.requests[1].body), /compute 6\*7 with python/);
      assert.equal([...wire.results(mock.requests[2].body).values()][0]?.trim(), "42");
    });

    it("S2 Planner-Actor-Rater: the rater's submit_verdict(done) ends the trial with the actor's answer", async () => {
      mock.reset();
      mock.enqueue(
        wire.text("- compute the product\n- submit it"),
        wire.tools([{ id: "a1", name: "submit_answer", args: { answer: "42" } }], 0),
        wire.tools([{ id: "r1", name: "submit_verdict", args: { done: true, reason: "correct" } }], 0),
      );
      const run = await runAgentScaffold({
        scaffold: "planner_actor_rater",
        provider: wire.provider(mock.url),
        model: wire.model,
        task: TASK,
      });
      assert.equal(run.finalText, "Answer: 42");
      assert.deepEqual(wire.offered(mock.requests[2].body), ["submit_verdict"]);
      assert.match(JSON.stringify(mock.requests[2].body), /submitted answer: 42/);
      assert.deepEqual(
        run.steps.filter((s) => s.kind === "model").map((s) => s.role),
        ["planner", "actor", "rater"],
      );
    });

    it("reports prompt-cache tokens where the wire format has them", async () => {
      mock.reset();
      mock.enqueue(wire.tools([{ id: "u1", name: "submit_answer", args: { answer: "1" } }], 33));
      const result = await wire.provider(mock.url).generate({
        model: wire.model,
        messages: [{ role: "user", content: "hi" }],
        params: {},
      });
      assert.equal(result.usage.cacheReadTokens, 33);
      if (wire.name === "anthropic") assert.equal(result.usage.cacheWriteTokens, 7);
      else assert.equal(result.usage.cacheWriteTokens, undefined);
    });
  });
}
