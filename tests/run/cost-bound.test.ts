/**
 * The plan's cost estimate is an upper bound: each call is priced at the max_tokens it is sent
 * with (the scaffold setting, else the model's, else the scaffold kind's default), never at a
 * shorter guess; and a call sent without max_tokens reserves the model's maximum output in the budget.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANTHROPIC_DEFAULT_MAX_TOKENS } from "../../src/models/anthropic.js";
import { BUILTIN_MAX_OUTPUT_TOKENS, costUsd, maxOutputTokens } from "../../src/models/pricing.js";
import { estimatedCallCost } from "../../src/run/execute/budget.js";
import { summarisePlan } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { DEFAULT_MAX_TOKENS } from "../../src/scaffolds/settings.js";
import { writeDemoSpec } from "../helpers/study.js";

const PRICE = { input_per_mtok: 0, output_per_mtok: 1000 };

function modelYaml(maxTokens?: number) {
  const params = maxTokens === undefined ? "{ temperature: 0 }" : `{ temperature: 0, max_tokens: ${maxTokens} }`;
  return `  - id: m
    provider: openai
    model: house-model-7b
    params: ${params}
    price: { input_per_mtok: 0, output_per_mtok: 1000 }`;
}

async function planCost(options: { maxTokens?: number; facets?: string }) {
  const { specPath } = writeDemoSpec({ items: 4, models: modelYaml(options.maxTokens), facets: options.facets });
  return summarisePlan(await prepareStudy(specPath));
}

describe("plan: the cost upper bound", () => {
  it("prices a direct call without max_tokens at the direct scaffold's default max_tokens", async () => {
    const implicit = await planCost({ facets: "    scaffold: [direct]" });
    const explicit = await planCost({ facets: "    scaffold: [direct]", maxTokens: DEFAULT_MAX_TOKENS.direct });
    assert.ok(implicit.estimatedCostUsd > 0, "priced");
    assert.equal(implicit.estimatedCostUsd, explicit.estimatedCostUsd);
    // Output is priced at $1 per 1,000 tokens and input at 0: the cost is calls x max_tokens / 1,000.
    assert.equal(implicit.estimatedCostUsd, (implicit.estimatedCalls * DEFAULT_MAX_TOKENS.direct) / 1000);
  });

  it("prices a multi-call scaffold at the scaffolded default, and the spec's max_tokens when set", async () => {
    const cot = await planCost({ facets: "    scaffold: [cot]" });
    assert.equal(cot.estimatedCostUsd, (cot.estimatedCalls * DEFAULT_MAX_TOKENS.scaffolded) / 1000);
    const capped = await planCost({ facets: "    scaffold: [cot]", maxTokens: 100 });
    assert.equal(capped.estimatedCostUsd, (capped.estimatedCalls * 100) / 1000);
  });
});

describe("budget: a call's worst case", () => {
  it("reserves the model's maximum output for a call sent without max_tokens", () => {
    const spec = { provider: "openai", model: "gpt-4o-mini", params: {} } as const;
    const messages = [{ role: "user" as const, content: "" }];
    const worst = estimatedCallCost(messages, {}, PRICE, maxOutputTokens(spec));
    assert.equal(worst, costUsd({ inputTokens: 0, outputTokens: BUILTIN_MAX_OUTPUT_TOKENS["gpt-4o-mini"] }, PRICE).usd);
    assert.equal(estimatedCallCost(messages, { maxTokens: 50 }, PRICE, maxOutputTokens(spec)), 0.05);
    // Anthropic always sends max_tokens (1,024 unless set): that is its calls' bound.
    assert.equal(
      maxOutputTokens({ provider: "anthropic", model: "claude-haiku-4-5", params: {} }),
      ANTHROPIC_DEFAULT_MAX_TOKENS,
    );
    assert.equal(maxOutputTokens({ provider: "openai", model: "house-model-7b", params: {} }), undefined);
  });
});
