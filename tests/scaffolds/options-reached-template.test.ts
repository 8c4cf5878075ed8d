/**
 * The options_reached check follows the prompt template: SafetyRepro's T1 and T2 ask the bare
 * question on purpose, so options absent from their calls are not a propagation failure; a
 * template that shows the options (T3, T4) is still checked.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TaskInput } from "../../src/contracts/task.js";
import { PROMPT_TEMPLATES } from "../../src/facets/template.js";
import { auditCall } from "../../src/scaffolds/propagation.js";
import { renderTask } from "../../src/scaffolds/prompt.js";

function task(template?: string): TaskInput {
  return {
    itemId: "q1",
    benchmark: "demo",
    format: "mc",
    question: "Which colour is the demo box?",
    options: ["crimson red", "forest green"],
    validLetters: ["A", "B"],
    answerInstruction: "End with a line 'Answer: X'.",
    condition: {},
    ...(template ? { template: { name: template, text: PROMPT_TEMPLATES[template] } } : {}),
  };
}

function optionsReached(t: TaskInput, text = renderTask(t)): unknown {
  return auditCall(t, "main", [{ role: "user", content: text }]).options_reached;
}

test("templates without {options} are not checked for options; those with them are", () => {
  for (const name of ["T1", "T2"]) {
    assert.ok(!renderTask(task(name)).includes("crimson red"), `${name} shows no options`);
    assert.equal(optionsReached(task(name)), null, name);
  }
  for (const name of ["T3", "T4"]) {
    assert.equal(optionsReached(task(name)), true, name);
    assert.equal(
      optionsReached(task(name), "Question: Which colour is the demo box?"),
      false,
      `${name} lost its options`,
    );
  }
  assert.equal(optionsReached(task()), true, "no template: the default rendering shows them");
  assert.equal(optionsReached(task(), "Which colour?"), false);
});
