import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  applyParamPolicy,
  fromSpecParamNames,
  fromSpecParams,
  isOpenAIReasoningModel,
} from "../../src/models/policy.js";

describe("fromSpecParams", () => {
  it("maps snake_case spec params to GenerationParams", () => {
    assert.deepEqual(fromSpecParams({ temperature: 0, top_p: 0.9, top_k: 5, max_tokens: 10, seed: 42, stop: ["x"] }), {
      temperature: 0,
      topP: 0.9,
      topK: 5,
      maxTokens: 10,
      seed: 42,
      stop: ["x"],
    });
    assert.deepEqual(fromSpecParams({}), {});
    assert.deepEqual(fromSpecParamNames(["top_p", "max_tokens"]), ["topP", "maxTokens"]);
  });
});

describe("isOpenAIReasoningModel", () => {
  it("recognises o-series and gpt-5 but not chat variants or older models", () => {
    for (const m of ["o1", "o1-mini", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5.2", "gpt-5-mini", "openai/gpt-5"]) {
      assert.ok(isOpenAIReasoningModel(m), m);
    }
    for (const m of ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "omni-moderation-latest", "llama3"]) {
      assert.ok(!isOpenAIReasoningModel(m), m);
    }
  });
});

describe("applyParamPolicy", () => {
  it("anthropic: drops seed always and top_p next to temperature (App. J)", () => {
    const out = applyParamPolicy("anthropic", "claude-opus-4-6", { temperature: 0, topP: 0.9, seed: 42, maxTokens: 5 });
    assert.deepEqual(out.params, { temperature: 0, maxTokens: 5 });
    assert.deepEqual(
      out.dropped.map((d) => [d.name, d.value]),
      [
        ["seed", 42],
        ["topP", 0.9],
      ],
    );
    assert.deepEqual(applyParamPolicy("anthropic", "c", { topP: 0.9 }).dropped, []);
  });

  it("openai reasoning models lose temperature, top_p and stop; others keep them", () => {
    const params = { temperature: 0, topP: 1, stop: ["\n"], seed: 42 };
    const reasoning = applyParamPolicy("openai", "gpt-5.2", params);
    assert.deepEqual(reasoning.params, { seed: 42 });
    assert.deepEqual(
      reasoning.dropped.map((d) => d.name),
      ["temperature", "topP", "stop"],
    );
    assert.ok(
      reasoning.dropped.every((d) => /reasoning/.test(d.reason)),
      "expected reasoning.dropped.every((d) => /reasoning/.test(d.reason))",
    );
    assert.deepEqual(applyParamPolicy("openai", "gpt-4o", params).dropped, []);
    assert.deepEqual(applyParamPolicy("openai", "my-alias", params, { traits: { reasoning: true } }).params, {
      seed: 42,
    });
    assert.deepEqual(applyParamPolicy("openai", "gpt-5", params, { traits: { reasoning: false } }).dropped, []);
  });

  it("openai drops top_k unless the server is declared to take it", () => {
    assert.deepEqual(applyParamPolicy("openai", "gpt-4o", { topK: 3 }).params, {});
    assert.deepEqual(applyParamPolicy("openai", "llama", { topK: 3 }, { traits: { topK: true } }).params, { topK: 3 });
  });

  it("applies extra drops after the rules, once each, only for parameters that are set", () => {
    const out = applyParamPolicy(
      "google",
      "gemini-2.5-pro",
      { seed: 1, temperature: 0 },
      { extraDrops: ["seed", "topK", "seed"] },
    );
    assert.deepEqual(out.params, { temperature: 0 });
    assert.deepEqual(out.dropped, [{ name: "seed", value: 1, reason: "listed in the model's drop_params" }]);
  });

  it("does not mutate its input", () => {
    const params = { seed: 1 };
    applyParamPolicy("anthropic", "c", params);
    assert.deepEqual(params, { seed: 1 });
  });
});
