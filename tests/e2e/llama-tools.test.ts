/**
 * Tool calling on the llama provider through node-llama-cpp's function calling (llama/tools.ts).
 * stories260K cannot use tools meaningfully, so these tests check the mechanics: the tools reach
 * node-llama-cpp as functions, a forced call (tool_choice "required") comes back as the same
 * ToolCall structure the other providers return, runs in the real sandbox, and its result goes
 * back into the conversation the model continues; a model that calls nothing just answers; an
 * S1 agent trial on llama completes with its sub-calls stored. The model-free parts run always;
 * the rest skip with a message when the shared model is absent.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import type { ChatMessage, ToolSpec } from "../../src/contracts/provider.js";
import type { CallRecord } from "../../src/contracts/trial.js";
import type { ModelSpec } from "../../src/contracts/spec.js";
import type { Toolbox } from "../../src/contracts/tool.js";
import { type LlamaProvider, llamaProvider } from "../../src/models/llama/provider.js";
import { chatHistoryOf, functionsOf, grammarSchema, plainToolChatWrapper } from "../../src/models/llama/tools.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { createToolbox, toolSpec, tools as registeredTools } from "../../src/tools/index.js";
import { sharedModel, skipReason } from "../helpers/llama-model.js";
import { after, before, describeNeeding, needsBubblewrap, test } from "../helpers/prerequisites.js";

const MODEL_NAME = "stories260K.gguf";
const modelPath = sharedModel(MODEL_NAME) ?? "";
const skip = skipReason(MODEL_NAME);

function spec(options: Record<string, unknown>): ModelSpec {
  return { id: "stories", provider: "llama", model: modelPath, params: {}, options: { threads: 1, ...options } };
}

const question: ChatMessage[] = [
  { role: "system", content: "You help with small tasks." },
  { role: "user", content: "What is in the file?" },
];

describe("llama tools: schemas and history (no model)", () => {
  test("every registered tool's JSON Schema becomes a grammar schema node-llama-cpp accepts", async () => {
    const lib = await import("node-llama-cpp");
    const llama = await lib.getLlama({
      gpu: false,
      build: "never",
      skipDownload: true,
      logLevel: lib.LlamaLogLevel.error,
    });
    try {
      for (const name of registeredTools.names()) {
        const schema = toolSpec(registeredTools.get(name)).parameters;
        const converted = grammarSchema(schema) as {
          type?: string;
          properties?: Record<string, unknown>;
          required?: string[];
        };
        assert.equal(converted.type, "object", name);
        assert.deepEqual(
          Object.keys(converted.properties ?? {}),
          Object.keys((schema.properties ?? {}) as object),
          name,
        );
        assert.deepEqual(converted.required ?? [], (schema.required as string[] | undefined) ?? [], name);
        // node-llama-cpp builds its GBNF grammar from it (throws on a schema it cannot use).
        await llama.createGrammarForJsonSchema(converted as never);
      }
    } finally {
      await llama.dispose();
    }
  });

  test("keywords the grammar cannot enforce are dropped, the rest kept", () => {
    const converted = grammarSchema({
      type: "object",
      properties: {
        n: { type: "integer", minimum: 1, maximum: 9, description: "a count" },
        mode: { enum: ["a", "b"] },
        words: { type: "array", items: { type: "string", maxLength: 4 }, maxItems: 2 },
        either: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["n"],
      additionalProperties: false,
    });
    assert.deepEqual(converted, {
      type: "object",
      properties: {
        n: { type: "integer", description: "a count" },
        mode: { enum: ["a", "b"] },
        words: { type: "array", items: { type: "string", maxLength: 4 }, maxItems: 2 },
        either: { oneOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["n"],
      additionalProperties: false,
    });
  });

  test("tool calls become functionCall items carrying their results; the history ends with a model turn", () => {
    const calls = [
      { id: "c1", name: "bash", arguments: '{"cmd":"ls"}' },
      { id: "c2", name: "python", arguments: '{"code":"print(1)"}' },
    ];
    const history = chatHistoryOf([
      ...question,
      { role: "assistant", content: "Let me look.", toolCalls: calls },
      { role: "tool", toolCallId: "c2", content: "1" },
      { role: "tool", toolCallId: "c1", content: "notes.txt" },
      { role: "user", content: "Go on." },
    ]);
    assert.deepEqual(history, [
      { type: "system", text: "You help with small tasks." },
      { type: "user", text: "What is in the file?" },
      {
        type: "model",
        response: [
          "Let me look.",
          { type: "functionCall", name: "bash", params: { cmd: "ls" }, result: "notes.txt" },
          { type: "functionCall", name: "python", params: { code: "print(1)" }, result: "1" },
        ],
      },
      { type: "user", text: "Go on." },
      { type: "model", response: [] },
    ]);
    // A conversation ending in a tool result continues the model turn that made the call.
    const open = chatHistoryOf([
      ...question,
      { role: "assistant", content: "", toolCalls: [calls[0]] },
      { role: "tool", toolCallId: "c1", content: "x" },
    ]);
    assert.equal(open.length, 3);
    assert.equal(open[2].type, "model");
  });

  test("the plain wrapper renders the plain template and documents the functions", async () => {
    const lib = await import("node-llama-cpp");
    const tools = [toolSpec(registeredTools.get("bash"))];
    const render = (choice: "auto" | "required") =>
      plainToolChatWrapper(lib, choice).generateContextState({
        chatHistory: chatHistoryOf(question),
        availableFunctions: functionsOf(tools),
      });
    const auto = render("auto");
    // The BOS token (a special token, shown as "BOS" by toString) and then the plain chat.
    assert.deepEqual(auto.contextText.values[0], new lib.SpecialToken("BOS"));
    const text = auto.contextText.toString().replace(/^BOS/, "");
    assert.ok(text.startsWith("System: You help with small tasks.\n\nSystem: "), text.slice(0, 80));
    assert.ok(text.includes("bash"), "the function is documented");
    assert.ok(text.endsWith("\n\nUser: What is in the file?\n\nAssistant:"), text.slice(-60));
    assert.equal((auto as { noPrefixTrigger?: unknown }).noPrefixTrigger, undefined);
    assert.equal((render("required") as { noPrefixTrigger?: { type: string } }).noPrefixTrigger?.type, "functionCall");
  });
});

describeNeeding(skip, "llama tools on stories260K", () => {
  let provider: LlamaProvider;
  let forcing: LlamaProvider;
  let box: Toolbox;
  before(async () => {
    provider = llamaProvider(spec({ context_size: 2048 }), {}) as LlamaProvider;
    forcing = llamaProvider(spec({ context_size: 2048, tool_choice: "required" }), {}) as LlamaProvider;
    box = await createToolbox({ tools: ["bash", "submit_answer"] });
  });
  after(async () => {
    await provider?.close();
    await forcing?.close();
    await box?.dispose();
  });

  test("declares the tools capability", () => {
    assert.ok(provider.capabilities(modelPath).has("tools"), 'expected provider.capabilities(modelPath).has("tools")');
  });

  test("a model that calls no tool just answers", async () => {
    const tools = box.specs();
    const withTools = await provider.generate({
      model: modelPath,
      messages: question,
      params: { maxTokens: 16 },
      tools,
    });
    assert.equal(withTools.toolCalls, undefined);
    assert.ok(withTools.text.length > 0, "it wrote text");
    assert.equal(withTools.finishReason, "length");
    assert.equal(withTools.usage.outputTokens, 16);
    const again = await provider.generate({ model: modelPath, messages: question, params: { maxTokens: 16 }, tools });
    assert.equal(again.text, withTools.text, "greedy: the same reply twice");
  });

  test("a forced call runs in the sandbox and its result goes back into the conversation", {
    skip: needsBubblewrap(),
  }, async () => {
    // The call's argument is pinned by the schema, so the greedy model writes exactly this command.
    const [a, b] = [6, 7];
    const command = `echo $((${a}*${b}))`;
    const bash = box.specs(["bash"])[0];
    const pinned: ToolSpec = {
      ...bash,
      parameters: { ...bash.parameters, properties: { cmd: { type: "string", enum: [command] } } },
    };
    const first = await forcing.generate({
      model: modelPath,
      messages: question,
      params: { maxTokens: 64 },
      tools: [pinned],
    });
    assert.equal(first.finishReason, "tool_calls");
    assert.deepEqual(first.toolCalls, [
      { id: "llama_call_1", name: "bash", arguments: JSON.stringify({ cmd: command }) },
    ]);

    const call = first.toolCalls![0];
    const result = await box.invoke(call);
    assert.equal(result.error, undefined, result.output);
    assert.equal(result.output.trim(), String(a * b), "the command ran in the sandbox");

    const conversation: ChatMessage[] = [
      ...question,
      { role: "assistant", content: first.text, toolCalls: first.toolCalls },
      { role: "tool", toolCallId: call.id, content: result.output },
    ];
    const lib = await import("node-llama-cpp");
    const rendered = plainToolChatWrapper(lib, "required")
      .generateContextState({ chatHistory: chatHistoryOf(conversation), availableFunctions: functionsOf([pinned]) })
      .contextText.toString();
    assert.ok(
      rendered.includes(`||call: bash(${lib.jsonDumps({ cmd: command })})`),
      "the call is in the model's context",
    );
    assert.ok(rendered.includes(`||result: ${JSON.stringify(result.output)}`), "and so is the sandbox's output");

    const second = await forcing.generate({
      model: modelPath,
      messages: conversation,
      params: { maxTokens: 64 },
      tools: [pinned],
    });
    assert.ok(second.usage.inputTokens > first.usage.inputTokens, "the result lengthened the prompt");
    assert.equal(second.toolCalls?.[0]?.id, "llama_call_2", "call ids continue the conversation's numbering");
  });
});

describeNeeding(skip || needsBubblewrap(), "an S1 agent trial on llama (stories260K)", () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** One S1 trial on a GAIA-format task written here; returns its trial and stored sub-calls. */
  async function s1Trial(options: string, maxTokens: number, maxSteps: number) {
    const dir = mkdtempSync(join(tmpdir(), "parallax-llama-agent-"));
    dirs.push(dir);
    const data = join(dir, "tasks", "validation");
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "crates.csv"), "crate,jars\nA,4\nB,9\n");
    writeFileSync(
      join(data, "metadata.jsonl"),
      `${JSON.stringify({ task_id: "t1", Question: "How many jars are in crates.csv?", Level: 1, "Final answer": "13", file_name: "crates.csv" })}\n`,
    );
    const specPath = join(dir, "study.yaml");
    // S1's four tool descriptions take ~2,000 tokens of stories260K's 512-token vocabulary.
    writeFileSync(
      specPath,
      `study: llama-agent
seed: 3
models:
  - id: stories
    provider: llama
    model: ${modelPath}
    params: { max_tokens: ${maxTokens} }
    options: { context_size: 4096, threads: 1${options} }
benchmarks:
  - { id: tasks, loader: gaia, source: tasks }
conditions:
  facets:
    scaffold: [{name: agent_react, max_steps: ${maxSteps}}]
    format: [oe]
execution:
  concurrency: 1
  max_retries: 0
`,
    );
    const outDir = join(dir, "out");
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      const [trial] = await store.listTrials(run.id);
      return { trial, calls: await store.listCalls(run.id) };
    } finally {
      await store.close();
    }
  }

  /** Every tool call a model call made is stored as a tool sub-call, and its output reaches the next model call. */
  function assertToolCallsStored(calls: CallRecord[]): number {
    let made = 0;
    for (const [i, call] of calls.entries()) {
      if (call.role !== "agent") continue;
      for (const [k, toolCall] of (call.toolCalls ?? []).entries()) {
        made += 1;
        const record = calls[i + 1 + k];
        const note = record?.note as { tool?: string; arguments?: string; output?: string } | undefined;
        assert.equal(record?.role, "tool");
        assert.deepEqual([note?.tool, note?.arguments], [toolCall.name, toolCall.arguments]);
        const next = calls.slice(i + 1).find((c) => c.role === "agent");
        if (next === undefined) continue;
        const answer = next.messages.find((m) => m.role === "tool" && m.toolCallId === toolCall.id);
        assert.ok(answer?.content.includes(note?.output ?? "\u0000"), "the tool's output is in the next prompt");
      }
    }
    return made;
  }

  test("completes with its sub-calls stored (tool_choice auto: the model just answers)", {
    timeout: 600_000,
  }, async () => {
    const { trial, calls } = await s1Trial("", 12, 2);
    assert.equal(trial.status, "finished", trial.outcome?.errorMessage ?? "");
    assert.equal(trial.outcome?.score, 0, "stories260K does not answer");
    const agentCalls = calls.filter((c) => c.role === "agent");
    assert.equal(agentCalls.length, 2, "one model call per step, up to max_steps");
    for (const call of agentCalls) {
      assert.equal(call.error, null);
      assert.ok(
        call.usage.inputTokens > 0 && call.usage.outputTokens > 0,
        "expected call.usage.inputTokens > 0 && call.usage.outputTokens > 0",
      );
    }
    assertToolCallsStored(calls);
    // The second step's conversation carries the first step's reply.
    const second = agentCalls[1].messages;
    assert.ok(
      second.some((m) => m.role === "assistant" && m.content === (agentCalls[0].responseText ?? "")),
      'expected second.some((m) => m.role === "assistant" && m.content === (agentCalls[0].responseText ...',
    );
  });

  test("with tool_choice required its calls run in the sandbox, stored as tool sub-calls", {
    timeout: 600_000,
  }, async () => {
    const { trial, calls } = await s1Trial(", tool_choice: required", 48, 3);
    assert.equal(trial.status, "finished", trial.outcome?.errorMessage ?? "");
    const made = assertToolCallsStored(calls);
    assert.ok(made >= 1, "a forced reply that fits in max_tokens is a call");
    const ran = calls.filter((c) => c.role === "tool").map((c) => c.note as { durationMs?: number; output?: string });
    assert.ok(
      ran.every((note) => typeof note.durationMs === "number" && typeof note.output === "string"),
      'expected ran.every((note) => typeof note.durationMs === "number" && typeof note.output === "stri...',
    );
  });
});
