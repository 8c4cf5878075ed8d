/**
 * The simulated panel answers a scaffold's sub-call by what the scaffold declares it does
 * (`GenerateRequest.subCall`), not by the call's wording: the same messages are a plain question
 * without a declaration and a decomposition, a critique or a chain step with one.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import type { ChatMessage } from "../../src/contracts/provider.js";
import type { ModelSpec } from "../../src/contracts/spec.js";
import type { SubCall } from "../../src/contracts/sub-call.js";
import type { TaskInput } from "../../src/contracts/task.js";
import { simProvider } from "../../src/models/sim/provider.js";
import { decompositionRequest } from "../../src/scaffolds/map-reduce.js";
import { renderTask } from "../../src/scaffolds/prompt.js";

const ITEM: Item = {
  id: "q1",
  benchmark: "b",
  stem: "Which gate of the old city faces the river?",
  options: ["North gate", "South gate", "East gate"],
  goldIndex: 1,
  metadata: {},
};
const TASK: TaskInput = {
  itemId: "q1",
  benchmark: "b",
  format: "mc",
  question: ITEM.stem,
  options: ITEM.options,
  validLetters: ["A", "B", "C"],
  answerInstruction: 'Answer with "Answer: X".',
  condition: { scaffold: "map_reduce" },
};
const SPEC: ModelSpec = { id: "sim-oracle", provider: "sim", model: "oracle" } as ModelSpec;

async function reply(content: string, subCall?: SubCall, system?: string): Promise<string> {
  const provider = simProvider(SPEC, {});
  provider.observeItems?.([ITEM]);
  const messages: ChatMessage[] = [
    ...(system ? [{ role: "system" as const, content: system }] : []),
    { role: "user", content },
  ];
  const result = await provider.generate({
    model: "oracle",
    messages,
    params: { temperature: 0 },
    ...(subCall ? { subCall } : {}),
  });
  return result.text;
}

describe("the sim answers sub-calls by their declaration", () => {
  test("a decomposition request is planned as sub-tasks only when declared, with the declared number of parts", async () => {
    const request = decompositionRequest(TASK, 3);
    assert.match(await reply(request), /^Answer: B$/);
    const planned = await reply(request, { kind: "decompose", maxParts: 2 });
    assert.match(planned, /^Here is how the work can be split:\n1\. .*\n2\. Answer the question: "Which gate/);
    assert.doesNotMatch(planned, /\n3\. /);
  });

  test("the same question is critiqued when declared a critique: a wrong draft is sent back, a right one approved", async () => {
    const prompt = renderTask(TASK);
    assert.match(await reply(prompt, { kind: "critique", draft: "Answer: A" }), /Verdict: REVISE$/);
    assert.match(await reply(prompt, { kind: "critique", draft: "I think so.\nAnswer: B" }), /Verdict: APPROVE$/);
    assert.match(
      await reply(prompt, { kind: "critique", draft: "no answer here" }),
      /does not state a clear final answer/,
    );
  });

  test("a chain step reads the declared previous answer; the last step keeps it, the first is a plain question", async () => {
    const prompt = renderTask(TASK);
    const step = (n: number, previous?: string): SubCall => ({
      kind: "chain",
      step: n,
      ...(previous !== undefined ? { previous } : {}),
      invokes: "neutral",
      insistently: false,
      keepIfCorrect: false,
    });
    assert.equal(await reply(prompt, step(4, "Answer: C")), "Answer: C");
    assert.equal(await reply(prompt, step(1)), await reply(prompt));
  });

  test("the reduce adopts the last answer among the declared workers' results", async () => {
    const prompt = renderTask(TASK);
    const results = ["Working.\nAnswer: B", "Working.\nAnswer: South gate"];
    assert.match(await reply(prompt, { kind: "reduce", results }), /^Combining the sub-task results\.\nAnswer: B$/);
  });
});
