import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ModelSpec } from "../../src/contracts/spec.js";
import { modelPrice } from "../../src/models/pricing.js";
import { providers } from "../../src/models/registry.js";

const spec = (provider: string, over: Partial<ModelSpec> = {}): ModelSpec => ({
  id: `${provider}-model`,
  provider,
  model: provider === "sim" ? "medium" : "some-model",
  params: {},
  ...over,
});

describe("provider descriptors", () => {
  it("registers the five providers, and only sim and llama are local", () => {
    assert.deepEqual(providers.names(), ["anthropic", "google", "llama", "openai", "sim"]);
    const local = providers.names().filter((name) => providers.get(name).local);
    assert.deepEqual(local, ["llama", "sim"]);
    assert.equal(providers.get("sim").simulated, true);
  });

  it("accepts the options each provider reads and rejects a misspelt one", () => {
    const valid: Record<string, Record<string, unknown>> = {
      sim: { ability: 1.2, latency_ms: 15, failure_rate: 0.4, failure_bucket: "content_filter", seed: 3 },
      llama: {
        base_dir: "models",
        context_size: 256,
        batch_size: 64,
        threads: 1,
        chat_template: "model",
        tool_choice: "required",
      },
      openai: { completions_logprobs: true, top_k: true, reasoning: false, rpm_per_key: 60 },
      anthropic: { rpm_per_key: 50 },
      google: { api_version: "v1", rpm_per_key: 25 },
    };
    for (const [name, options] of Object.entries(valid)) {
      const schema = providers.get(name).optionsSchema;
      assert.ok(schema, `${name} declares its options`);
      assert.ok(schema.safeParse(options).success, `${name} accepts ${JSON.stringify(options)}`);
      assert.ok(schema.safeParse({}).success, `${name} needs no options`);
      assert.equal(schema.safeParse({ ...options, rpm_per_keys: 5 }).success, false, `${name} rejects a typo`);
    }
    assert.equal(providers.get("sim").optionsSchema?.safeParse({ failure_bucket: "nope" }).success, false);
    assert.equal(providers.get("openai").optionsSchema?.safeParse({ top_k: "yes" }).success, false);
    assert.equal(providers.get("llama").optionsSchema?.safeParse({ context_sise: 256 }).success, false);
    assert.equal(providers.get("llama").optionsSchema?.safeParse({ tool_choice: "always" }).success, false);
  });

  it("creates a provider through its module, and still refuses bad options there", async () => {
    const sim = await providers.get("sim").create(spec("sim"), {});
    assert.equal(sim.name, "sim");
    assert.equal(sim.simulated, true);
    const openai = await providers.get("openai").create(spec("openai", { base_url: "http://localhost:9/v1" }), {});
    assert.equal(openai.name, "openai");
    await assert.rejects(providers.get("openai").create(spec("openai", { options: { top_k: "yes" } }), {}), /top_k/);
    assert.throws(() => providers.get("nope"), /unknown provider 'nope'; known: anthropic, google, llama, openai, sim/);
  });

  it("says which providers read a call's signal: the network ones, and the sim panel only with latency", async () => {
    const sim = await providers.get("sim").create(spec("sim"), {});
    assert.equal(sim.readsSignal, false, "the sim panel answers at once");
    const slow = await providers.get("sim").create(spec("sim", { options: { latency_ms: 5 } }), {});
    assert.equal(slow.readsSignal, true, "its simulated latency waits on the signal");
    const openai = await providers.get("openai").create(spec("openai", { base_url: "http://localhost:9/v1" }), {});
    assert.notEqual(openai.readsSignal, false, "an HTTP provider's calls are aborted through it");
  });

  it("prices a local provider's calls at zero unless the spec gives a price", () => {
    assert.deepEqual(modelPrice(spec("sim")), { input_per_mtok: 0, output_per_mtok: 0 });
    assert.deepEqual(modelPrice(spec("llama")), { input_per_mtok: 0, output_per_mtok: 0 });
    const price = { input_per_mtok: 1, output_per_mtok: 2 };
    assert.deepEqual(modelPrice(spec("sim", { price })), price);
    assert.deepEqual(modelPrice(spec("openai", { model: "gpt-4o" })), { input_per_mtok: 2.5, output_per_mtok: 10 });
    assert.equal(modelPrice(spec("openai", { model: "unknown-model" })), undefined);
    assert.equal(modelPrice(spec("not-registered", { model: "unknown-model" })), undefined);
  });
});
