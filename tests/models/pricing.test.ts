import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { builtinPrice, costUsd, resolvePrice } from "../../src/models/pricing.js";

describe("pricing", () => {
  it("finds built-in prices by exact name, router prefix or dated snapshot", () => {
    assert.deepEqual(builtinPrice("gpt-4o"), { input_per_mtok: 2.5, output_per_mtok: 10 });
    assert.deepEqual(builtinPrice("gpt-4o-2024-08-06"), builtinPrice("gpt-4o"));
    assert.deepEqual(builtinPrice("openai/gpt-4o-mini"), { input_per_mtok: 0.15, output_per_mtok: 0.6 });
    assert.deepEqual(builtinPrice("claude-sonnet-4-5-20250929"), builtinPrice("claude-sonnet-4-5"));
    assert.equal(builtinPrice("gpt-4o-mini-tts"), undefined, "no prefix matching");
    assert.equal(builtinPrice("my-finetune"), undefined);
  });

  it("prefers the model's price, then the study map, then the built-in table", () => {
    const own = { input_per_mtok: 1, output_per_mtok: 2 };
    const study = { "gpt-4o": { input_per_mtok: 3, output_per_mtok: 4 } };
    assert.deepEqual(resolvePrice({ id: "a", model: "gpt-4o", price: own }, study), { price: own, source: "spec" });
    assert.deepEqual(resolvePrice({ id: "a", model: "gpt-4o" }, study), { price: study["gpt-4o"], source: "study" });
    assert.equal(resolvePrice({ id: "a", model: "gpt-4o" }).source, "builtin");
    assert.deepEqual(resolvePrice({ id: "a", model: "local.gguf" }), { source: "unknown" });
  });

  it("computes cost per million tokens; unknown price is 0 and flagged", () => {
    const cost = costUsd(
      { inputTokens: 2_000_000, outputTokens: 500_000 },
      { input_per_mtok: 2.5, output_per_mtok: 10 },
    );
    assert.deepEqual(cost, { usd: 10, priceKnown: true });
    assert.deepEqual(costUsd({ inputTokens: 5, outputTokens: 5 }, undefined), { usd: 0, priceKnown: false });
  });
});
