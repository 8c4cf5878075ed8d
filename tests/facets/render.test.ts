/** renderTrialTask: format, then the perturbation stage, then the system-prompt variant, once. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import type { TaskInput } from "../../src/contracts/task.js";
import { facets } from "../../src/facets/registry.js";
import { renderTrialTask } from "../../src/facets/render.js";
import { SOFT_SYSTEM_PROMPT, STRICT_SYSTEM_PROMPT } from "../../src/facets/system-prompt.js";
import { scaffolds } from "../../src/scaffolds/registry.js";

const ITEM: Item = {
  id: "i1",
  benchmark: "b",
  stem: "Which of the following is the red gate?",
  options: ["North gate", "South gate"],
  goldIndex: 0,
  metadata: {},
};

test("the format renders the item and the system_prompt variant sets the system prompt", () => {
  const mc = renderTrialTask(ITEM, { format: "mc", system_prompt: "strict" });
  assert.deepEqual(mc.options, ITEM.options);
  assert.equal(mc.systemPrompt, STRICT_SYSTEM_PROMPT);
  const oe = renderTrialTask(ITEM, { format: "oe", system_prompt: "soft" });
  assert.equal(oe.options, undefined);
  assert.equal(oe.systemPrompt, SOFT_SYSTEM_PROMPT);
  assert.equal(renderTrialTask(ITEM, { format: "oe", system_prompt: "none" }).systemPrompt, undefined);
});

test("a scaffold sends the task it is given: the variant is applied by renderTrialTask, not again", async () => {
  const sent: { role: string; content: string }[][] = [];
  const unrendered = renderTrialTask(ITEM, { format: "mc" });
  const task: TaskInput = { ...unrendered, condition: { format: "mc", system_prompt: "strict" } };
  await scaffolds.get("direct").run(
    {
      task,
      params: {},
      call: async (_role, messages) => {
        sent.push(messages);
        return { text: "Answer: A", usage: { inputTokens: 1, outputTokens: 1 } } as never;
      },
    },
    {},
  );
  assert.equal(sent.length, 1);
  assert.ok(
    sent[0].every((m) => m.role !== "system"),
    "the scaffold does not add the condition's system prompt itself",
  );
});

test("a perturbation-stage facet acts after the format and before the system prompt", () => {
  const seen: TaskInput[] = [];
  facets.register("test_perturbation", {
    name: "test_perturbation",
    description: "upper-cases the question (test only)",
    stage: "perturbation",
    knownValues: () => ["upper"],
    applyToTask(task) {
      seen.push(task);
      return { ...task, question: task.question.toUpperCase(), systemPrompt: "overwritten later" };
    },
  });
  const task = renderTrialTask(ITEM, { format: "oe", test_perturbation: "upper", system_prompt: "soft" });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].options, undefined, "the perturbation sees the formatted (open-ended) task");
  assert.equal(seen[0].systemPrompt, undefined, "and no system prompt yet");
  assert.equal(task.question, seen[0].question.toUpperCase());
  assert.equal(task.systemPrompt, SOFT_SYSTEM_PROMPT);
});
