/**
 * The llama provider against the real llama.cpp engine and the shared stories260K GGUF (a
 * 260K-parameter TinyStories llama: nonsense answers, real tokenizer and logits). Skipped
 * with a message when the shared model is absent.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe } from "node:test";
import type { Token } from "node-llama-cpp";
import type { ChatMessage, ContinuationLogprob } from "../../src/contracts/provider.js";
import type { ModelSpec } from "../../src/contracts/spec.js";
import { InputError, ProviderError } from "../../src/core/errors.js";
import { renderPlainChat } from "../../src/models/llama/generation.js";
import { type LlamaProvider, llamaProvider } from "../../src/models/llama/provider.js";
import { chunkSizes } from "../../src/models/llama/scoring.js";
import { type LlamaReference, openLlamaReference, sharedModel, skipReason } from "../helpers/llama-model.js";
import { after, before, describeNeeding, test } from "../helpers/prerequisites.js";

const MODEL_NAME = "stories260K.gguf";
const modelPath = sharedModel(MODEL_NAME) ?? "";
const VOCAB = 512;

function spec(options: Record<string, unknown> = {}, extra: Partial<ModelSpec> = {}): ModelSpec {
  return { id: "stories", provider: "llama", model: modelPath, params: {}, options, ...extra };
}

const chat: ChatMessage[] = [
  { role: "system", content: "You tell short stories." },
  { role: "user", content: "Tell me about a little girl and her dog." },
];

const openReference = (): Promise<LlamaReference> => openLlamaReference(modelPath, 256);

function logSoftmaxAt(distribution: Map<Token, number> | undefined, token: Token): number {
  assert.ok(distribution, "no distribution");
  assert.equal(distribution.size, VOCAB, "the distribution covers the whole vocabulary");
  let sum = 0;
  for (const p of distribution.values()) sum += p;
  return Math.log(distribution.get(token)!) - Math.log(sum);
}

/**
 * Scores `continuation` from scratch: prompt + continuation decoded in one pass (or token by
 * token), each scored token's log-softmax summed. `boundary` = where the scored tokens start
 * (the common token prefix of tokens(prompt) and tokens(prompt + continuation)).
 */
async function referenceScore(
  ref: LlamaReference,
  prompt: string,
  continuation: string,
  mode: "one-pass" | "token-by-token",
): Promise<{ logprobs: number[]; total: number; boundary: number; promptLength: number }> {
  const bos = ref.model.tokens.bos!;
  const promptTokens = [bos, ...ref.model.tokenize(prompt)];
  const full = [bos, ...ref.model.tokenize(prompt + continuation)];
  let boundary = 0;
  while (boundary < promptTokens.length && promptTokens[boundary] === full[boundary]) boundary++;
  await ref.sequence.clearHistory();
  const want = { generateNext: { probabilities: true } } as const;
  const outputs: (Map<Token, number> | undefined)[] = [];
  if (mode === "one-pass") {
    const results = await ref.sequence.controlledEvaluate(full.map((t) => [t, want] as [Token, typeof want]));
    for (let i = 0; i < full.length; i++) outputs.push(results[i]?.next.probabilities);
  } else {
    for (const t of full) outputs.push((await ref.sequence.controlledEvaluate([[t, want]]))[0]?.next.probabilities);
  }
  const logprobs: number[] = [];
  for (let j = boundary; j < full.length; j++) logprobs.push(logSoftmaxAt(outputs[j - 1], full[j]));
  return { logprobs, total: logprobs.reduce((a, b) => a + b, 0), boundary, promptLength: promptTokens.length };
}

function assertWellFormed(result: ContinuationLogprob): void {
  assert.ok(result.tokens.length > 0, `no scored tokens for ${JSON.stringify(result.continuation)}`);
  let sum = 0;
  for (const { logprob } of result.tokens) {
    assert.ok(Number.isFinite(logprob), `finite logprob, got ${logprob}`);
    assert.ok(logprob <= 0, `logprob <= 0, got ${logprob}`);
    sum += logprob;
  }
  assert.ok(Math.abs(result.total - sum) < 1e-12, "total is the sum of the token logprobs");
}

describeNeeding(skipReason(MODEL_NAME), "llama provider (stories260K)", () => {
  let provider: LlamaProvider;
  let ref: LlamaReference;

  before(async () => {
    provider = llamaProvider(spec({ context_size: 256 }), {}) as LlamaProvider;
    ref = await openReference();
  });

  after(async () => {
    await provider?.close();
    await ref?.dispose();
  });

  test("declares its capabilities: tools (llama-tools.test.ts), no batch", () => {
    assert.deepEqual([...provider.capabilities(modelPath)].sort(), [
      "continuation_logprobs",
      "generate",
      "seed",
      "system_prompt",
      "temperature",
      "tools",
    ]);
  });

  test("greedy generation at temperature 0 is deterministic and counts usage", async () => {
    const request = { model: modelPath, messages: chat, params: { temperature: 0, maxTokens: 12 } };
    const first = await provider.generate(request);
    const second = await provider.generate(request);
    assert.ok(first.text.trim().length > 0, "non-empty text");
    assert.equal(second.text, first.text);
    const promptTokens = await provider.tokenize(modelPath, renderPlainChat(chat));
    assert.equal(promptTokens[0], 1, "BOS first");
    assert.deepEqual(first.usage, { inputTokens: promptTokens.length, outputTokens: 12 });
    assert.equal(first.finishReason, "length");
    assert.deepEqual(first.paramsUsed, { temperature: 0, maxTokens: 12 });
    assert.deepEqual(first.droppedParams, []);
    // Absent temperature means greedy too.
    const implicit = await provider.generate({ ...request, params: { maxTokens: 12 } });
    assert.equal(implicit.text, first.text);
  });

  test("the first greedy token is the argmax of the full next-token distribution", async () => {
    // A final assistant message is a prefill: the model continues "Assistant: <content>".
    const messages: ChatMessage[] = [{ role: "assistant", content: "Once upon a time, there was a little" }];
    const rendered = renderPlainChat(messages);
    assert.equal(rendered, "Assistant: Once upon a time, there was a little");
    const distribution = await provider.nextTokenDistribution({ model: modelPath, prompt: rendered });
    let best = 0;
    distribution.logprobs.forEach((lp, t) => {
      if (lp > distribution.logprobs[best]) best = t;
    });
    const greedy = await provider.generate({ model: modelPath, messages, params: { temperature: 0, maxTokens: 1 } });
    assert.equal(greedy.text, ref.model.detokenize([best as Token], false, distribution.contextTokens as Token[]));
  });

  test("stop strings cut the text before the earliest match with finish reason stop", async () => {
    const base = { model: modelPath, messages: chat };
    const long = await provider.generate({ ...base, params: { temperature: 0, maxTokens: 40 } });
    const stop = long.text.slice(6, 9);
    assert.equal(stop.length, 3);
    const cut = long.text.indexOf(stop);
    const stopped = await provider.generate({
      ...base,
      params: { temperature: 0, maxTokens: 40, stop: ["@@@", stop] },
    });
    assert.equal(stopped.text, long.text.slice(0, cut));
    assert.equal(stopped.finishReason, "stop");
    assert.ok(stopped.usage.outputTokens < 40, "stopped early");
  });

  test("seeded sampling is reproducible; top-k 1 reduces to greedy", async () => {
    const sample = (seed: number, extra = {}) =>
      provider.generate({
        model: modelPath,
        messages: chat,
        params: { temperature: 1, seed, maxTokens: 24, ...extra },
      });
    const a = await sample(7);
    const b = await sample(7);
    assert.equal(b.text, a.text);
    assert.deepEqual(a.paramsUsed, { temperature: 1, seed: 7, maxTokens: 24 });
    const texts = new Set([a.text]);
    for (const seed of [1, 2, 3]) texts.add((await sample(seed)).text);
    assert.ok(texts.size > 1, "different seeds give different samples here");
    const greedy = await provider.generate({
      model: modelPath,
      messages: chat,
      params: { temperature: 0, maxTokens: 24 },
    });
    assert.equal((await sample(11, { topK: 1 })).text, greedy.text, "top-k 1 keeps only the argmax");
    assert.equal((await sample(12, { topP: 1e-9 })).text, greedy.text, "a tiny top-p keeps only the argmax");
  });

  test("the next-token distribution covers the whole vocabulary and sums to 1", async () => {
    const d = await provider.nextTokenDistribution({ model: modelPath, prompt: "Once upon a time, there was a" });
    assert.equal(d.probabilities.length, VOCAB);
    assert.equal(d.logprobs.length, VOCAB);
    let raw = 0;
    let renormalised = 0;
    for (let t = 0; t < VOCAB; t++) {
      assert.ok(d.probabilities[t] > 0, `token ${t} has a probability`);
      assert.ok(Number.isFinite(d.logprobs[t]) && d.logprobs[t] < 0, `token ${t}: logprob ${d.logprobs[t]}`);
      raw += d.probabilities[t];
      renormalised += Math.exp(d.logprobs[t]);
    }
    assert.ok(Math.abs(renormalised - 1) < 1e-6, `float64 log-softmax sums to 1 (${renormalised})`);
    // llama.cpp normalises in float32 over 512 entries: its own sum is 1 to float32 accuracy.
    assert.ok(Math.abs(raw - 1) < 1e-5, `engine probabilities sum to 1 (${raw})`);
    // Same numbers as the engine used directly (outputs at every position, so the output
    // layer runs the same matrix-matrix kernel as the provider's).
    const tokens = [1, ...ref.model.tokenize("Once upon a time, there was a")] as Token[];
    assert.deepEqual(d.contextTokens, tokens);
    await ref.sequence.clearHistory();
    const want = { generateNext: { probabilities: true } } as const;
    const out = await ref.sequence.controlledEvaluate(tokens.map((t): [Token, typeof want] => [t, want]));
    const direct = out[tokens.length - 1]!.next.probabilities!;
    for (let t = 0; t < VOCAB; t++) assert.equal(d.probabilities[t], direct.get(t as Token));
  });

  test("continuation log-probabilities match an independent from-scratch computation", async () => {
    const prompt = "Once upon a time, there was a little";
    // " cat" and " sun" are two tokens: decoding their first token alone (a one-token batch)
    // would shift its log-probability slightly, which the comparison below catches.
    const continuations = [" girl", " dog named Max", " boy who liked to play", "!", " girl", " cat", " sun"];
    const result = await provider.continuationLogprobs({ model: modelPath, prompt, continuations });
    assert.equal(result.continuations.length, continuations.length);
    for (const [i, scored] of result.continuations.entries()) {
      assert.equal(scored.continuation, continuations[i]);
      assertWellFormed(scored);
      assert.equal(scored.tokens.map((t) => t.token).join(""), continuations[i], "tokens spell the continuation");
      const onePass = await referenceScore(ref, prompt, continuations[i], "one-pass");
      assert.equal(onePass.boundary, onePass.promptLength, "clean boundary for these continuations");
      assert.equal(scored.tokens.length, onePass.logprobs.length);
      // The provider never decodes a lone token or reads a lone output row, so its decodes take
      // the same kernels as the one-pass reference: equal to rounding, far inside 1e-6.
      scored.tokens.forEach((t, j) => {
        assert.ok(Math.abs(t.logprob - onePass.logprobs[j]) < 1e-9, `${continuations[i]} token ${j}`);
      });
      assert.ok(Math.abs(scored.total - onePass.total) < 1e-6, `${scored.total} vs ${onePass.total}`);
      // llama.cpp's one-token decodes use other kernels (~1e-3 nats apart), so token by
      // token only agrees loosely; a misaligned position would be off by whole nats.
      const stepwise = await referenceScore(ref, prompt, continuations[i], "token-by-token");
      assert.ok(Math.abs(scored.total - stepwise.total) < 0.05, `${scored.total} vs ${stepwise.total}`);
    }
    assert.equal(result.continuations[4].total, result.continuations[0].total, "same continuation, same score");
    // A one-token continuation is scored from the prefix's distribution.
    const bang = await provider.nextTokenDistribution({ model: modelPath, prompt });
    const bangToken = ref.model.tokenize(prompt + "!").at(-1)!;
    assert.ok(Math.abs(result.continuations[3].total - bang.logprobs[bangToken]) < 1e-12, "one-token continuation");
    // Shared-prefix reuse = scoring each continuation in its own call.
    for (const [i, continuation] of continuations.entries()) {
      const alone = await provider.continuationLogprobs({ model: modelPath, prompt, continuations: [continuation] });
      assert.ok(
        Math.abs(alone.continuations[0].total - result.continuations[i].total) < 1e-9,
        `alone: ${continuation}`,
      );
    }
    const promptTokens = (await provider.tokenize(modelPath, prompt)).length;
    const continuationTokens = result.continuations.reduce(
      (n, c) => n + (c.tokens.length > 1 ? c.tokens.length : 0),
      0,
    );
    assert.deepEqual(result.usage, { inputTokens: promptTokens + continuationTokens, outputTokens: 0 });
  });

  test("a tokenizer merge at the boundary is scored on the merged token, conditioned on the common prefix", async () => {
    // SentencePiece tokenizes "Once upon a " as ...|▁a|▁ but "Once upon a time" as ...|▁a|▁time.
    const prompt = "Once upon a ";
    const result = await provider.continuationLogprobs({ model: modelPath, prompt, continuations: ["time", "day"] });
    for (const [i, continuation] of ["time", "day"].entries()) {
      const scored = result.continuations[i];
      assertWellFormed(scored);
      assert.equal(scored.tokens.map((t) => t.token).join(""), ` ${continuation}`, "the merged token shows the space");
      const reference = await referenceScore(ref, prompt, continuation, "one-pass");
      assert.ok(reference.boundary < reference.promptLength, "the boundary really merges");
      assert.ok(Math.abs(scored.total - reference.total) < 1e-6, `${scored.total} vs ${reference.total}`);
    }
  });

  test("relative model paths resolve against options.baseDir", async () => {
    const relative = llamaProvider(
      spec({ baseDir: dirname(dirname(modelPath)), context_size: 256 }, { model: `models/${MODEL_NAME}` }),
      {},
    ) as LlamaProvider;
    try {
      assert.equal(relative.resolveModelPath(`models/${MODEL_NAME}`), modelPath);
      const out = await relative.generate({
        model: `models/${MODEL_NAME}`,
        messages: chat,
        params: { temperature: 0, maxTokens: 12 },
      });
      const direct = await provider.generate({
        model: modelPath,
        messages: chat,
        params: { temperature: 0, maxTokens: 12 },
      });
      assert.equal(out.text, direct.text);
    } finally {
      await relative.close();
    }
  });

  test("a missing model file is a clear error naming the resolved path", async () => {
    const base = resolve(dirname(modelPath), "nowhere");
    const missing = llamaProvider(spec({ baseDir: base }, { model: "absent.gguf" }), {});
    await assert.rejects(
      missing.generate({ model: "absent.gguf", messages: chat, params: {} }),
      (error: unknown) =>
        error instanceof ProviderError &&
        error.bucket === "provider_error" &&
        !error.retryable &&
        error.message.includes(resolve(base, "absent.gguf")) &&
        /not found/.test(error.message),
    );
    await missing.close?.();
  });

  test("prompts beyond the context size fail with bucket context_too_long", async () => {
    const small = llamaProvider(spec({ context_size: 64 }), {}) as LlamaProvider;
    try {
      const long = "Once upon a time there was a little girl. ".repeat(60);
      assert.ok((await small.tokenize(modelPath, long)).length > 300, "longer than any rounded-up context");
      const isContextTooLong = (error: unknown) =>
        error instanceof ProviderError && error.bucket === "context_too_long" && !error.retryable;
      await assert.rejects(
        small.generate({ model: modelPath, messages: [{ role: "user", content: long }], params: { maxTokens: 4 } }),
        isContextTooLong,
      );
      await assert.rejects(
        small.continuationLogprobs({ model: modelPath, prompt: long, continuations: [" girl"] }),
        isContextTooLong,
      );
      // The provider still works afterwards.
      const ok = await small.generate({ model: modelPath, messages: chat, params: { maxTokens: 3 } });
      assert.equal(ok.usage.outputTokens, 3);
    } finally {
      await small.close();
    }
  });

  test("drop_params removes parameters and records them", async () => {
    const dropping = llamaProvider(spec({ context_size: 256 }, { drop_params: ["seed"] }), {});
    try {
      const out = await dropping.generate({
        model: modelPath,
        messages: chat,
        params: { temperature: 0, seed: 3, maxTokens: 2 },
      });
      assert.deepEqual(out.paramsUsed, { temperature: 0, maxTokens: 2 });
      assert.deepEqual(out.droppedParams, [{ name: "seed", value: 3, reason: "listed in the model's drop_params" }]);
    } finally {
      await dropping.close?.();
    }
  });

  test("chat_template 'model' on a GGUF without a template is a clear error", async () => {
    const templated = llamaProvider(spec({ chat_template: "model", context_size: 256 }), {});
    try {
      await assert.rejects(
        templated.generate({ model: modelPath, messages: chat, params: { maxTokens: 2 } }),
        (error: unknown) => error instanceof InputError && /no chat template/.test(error.message),
      );
    } finally {
      await templated.close?.();
    }
  });
});

describe("llama provider without a model", () => {
  test("invalid options are an input error at construction", () => {
    assert.throws(() => llamaProvider(spec({ context_sise: 256 }), {}), InputError);
    assert.throws(() => llamaProvider(spec({ chat_template: "chatml" }), {}), InputError);
  });

  test("the provider's modules load node-llama-cpp lazily (type-only static imports; the engine imports it)", () => {
    const folder = new URL("../../src/models/llama/", import.meta.url);
    const files = readdirSync(folder).filter((name) => name.endsWith(".ts"));
    assert.ok(files.includes("engine.ts") && files.includes("provider.ts"), files.join(", "));
    for (const file of files) {
      const source = readFileSync(new URL(file, folder), "utf8");
      const staticImports = source.match(/^import[^;]*from "node-llama-cpp";/gm) ?? [];
      for (const line of staticImports) assert.match(line, /^import type /, `${file}: ${line}`);
      assert.equal(
        /(?<!typeof )import\("node-llama-cpp"\)/.test(source),
        file === "engine.ts",
        `${file}: the dynamic import`,
      );
    }
  });

  test("decode chunks never leave a single token", () => {
    assert.deepEqual(chunkSizes(1, 512), [1]);
    assert.deepEqual(chunkSizes(513, 512), [511, 2]);
    assert.deepEqual(chunkSizes(1024, 512), [512, 512]);
    assert.deepEqual(chunkSizes(5, 4), [3, 2]);
    assert.deepEqual(chunkSizes(9, 4), [4, 3, 2]);
  });
});
