/**
 * The `perturbation` facet: validated when the spec loads (file:line:col, the known values, exit 2),
 * applied to the item BEFORE formatting by renderTrialTask, and recorded on the rendered task.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import { parseSpec, SpecError } from "../../src/core/spec-loader.js";
import { openEndedQuestion } from "../../src/datasets/format.js";
import { perturbationRecord } from "../../src/facets/perturbation.js";
import { renderTrialTask, trialItem } from "../../src/facets/render.js";
import { STRICT_SYSTEM_PROMPT } from "../../src/facets/system-prompt.js";
import { validateStudy } from "../../src/facets/validate.js";
import { applyPerturbation } from "../../src/perturb/registry.js";
import { renderTask } from "../../src/scaffolds/prompt.js";
import { mcLastAnswerScorer } from "../../src/scoring/mc-last-answer.js";
import { demoSpecYaml } from "../helpers/study.js";

const FILE = "study.yaml";

function problemsOf(text: string): string[] {
  const spec = parseSpec(text, FILE);
  try {
    validateStudy(spec, { text, path: FILE });
  } catch (error) {
    assert.ok(error instanceof SpecError, String(error));
    assert.equal(error.exitCode, 2);
    return error.message.split("\n").slice(1);
  }
  return [];
}

function lineOf(text: string, needle: string): number {
  const index = text.split("\n").findIndex((line) => line.includes(needle));
  assert.ok(index >= 0, `'${needle}' is in the spec`);
  return index + 1;
}

describe("perturbation facet values are checked when the spec loads", () => {
  test("none, the families, named perturbations and their settings pass", () => {
    const text = demoSpecYaml({
      facets: [
        "    format: [mc]",
        "    perturbation: [none, format, { name: semantic, slot: 2, seed: 123 }, { name: attribute, slot: 0, per_item: 1 }, placebo, { name: case_change, variant: 1, mode: lower }, { name: synonym_substitution, max_substitutions: 3 }, label_format]",
      ].join("\n"),
    });
    assert.deepEqual(problemsOf(text), []);
  });

  test("an unknown value is an error at its file:line:col with the known values (exit 2)", () => {
    const text = demoSpecYaml({ facets: "    format: [mc]\n    perturbation: [none, formatt]" });
    const problems = problemsOf(text);
    assert.equal(problems.length, 1);
    const line = lineOf(text, "formatt");
    assert.match(
      problems[0],
      new RegExp(`^study\\.yaml:${line}:\\d+: at YAML path conditions\\.facets\\.perturbation\\[1\\]: `),
    );
    assert.match(
      problems[0],
      /unknown perturbation 'formatt' \(did you mean 'format'\?\); known: none, format, semantic, attribute, placebo, case_change,/,
    );
  });

  test("bad settings: a slot beyond per_item, an unknown setting, a bad mode, settings on none", () => {
    const text = demoSpecYaml({
      facets: [
        "    format: [mc]",
        "    perturbation:",
        "      - { name: format, slot: 3 }",
        "      - { name: case_change, shout: true }",
        "      - { name: case_change, mode: sideways }",
        "      - { name: none, seed: 1 }",
      ].join("\n"),
    });
    const problems = problemsOf(text);
    assert.equal(problems.length, 4, problems.join("\n"));
    assert.match(
      problems[0],
      new RegExp(
        `^study\\.yaml:${lineOf(text, "slot: 3")}:\\d+: .*perturbation\\[0\\]\\.slot: .*slot must be below per_item`,
      ),
    );
    assert.match(problems[1], /perturbation\[1\]: Unrecognized key: "shout"/);
    assert.match(problems[2], /perturbation\[2\]\.mode/);
    assert.match(problems[3], /facet 'perturbation' value 'none' takes no settings, found 'seed'/);
  });
});

const ITEM: Item = {
  id: "demo-1",
  benchmark: "demo",
  stem: "Which of the following is the common colour of a ripe lemon?",
  options: ["Blue", "Yellow", "Purple", "Black"],
  goldIndex: 1,
  metadata: {},
};

describe("renderTrialTask applies the perturbation to the item before formatting", () => {
  test("the open-ended rendering is the formatter's cleaning of the PERTURBED stem", () => {
    const condition = { format: "oe", perturbation: { name: "synonym_substitution", max_substitutions: 1 } };
    const record = applyPerturbation(ITEM, "synonym_substitution", { settings: { max_substitutions: 1 } });
    assert.equal(record.status, "applied");
    if (record.status !== "applied") return;
    const task = renderTrialTask(ITEM, condition);
    // Formatting after the perturbation: exactly the format's rendering of the perturbed item.
    assert.equal(task.question, openEndedQuestion(record.item));
    assert.notEqual(task.question, openEndedQuestion(ITEM));
    assert.deepEqual(task.perturbation, {
      value: "synonym_substitution(max_substitutions=1)",
      perturbation: "synonym_substitution",
      family: "semantic",
      seed: 42,
      variant: 0,
      status: "applied",
      changed: ["stem"],
      note: record.note,
    });
  });

  test("order matters and is item first: upper case then the open-ended cleaning, not the reverse", () => {
    const task = renderTrialTask(ITEM, { format: "oe", perturbation: { name: "case_change", mode: "upper" } });
    const record = applyPerturbation(ITEM, "case_change", { settings: { mode: "upper" } });
    assert.ok(record.status === "applied", "case change applies");
    const itemFirst = openEndedQuestion(record.item);
    const taskFirst = openEndedQuestion(ITEM).toUpperCase();
    assert.notEqual(itemFirst, taskFirst, "the two orders give different prompts for this item");
    assert.equal(task.question, itemFirst);
  });

  test("choice reordering reaches the options shown and the scored item; the gold answer is still right", () => {
    const condition = { format: "mc", perturbation: "choice_reorder", system_prompt: "strict" };
    const task = renderTrialTask(ITEM, condition);
    const scored = trialItem(ITEM, condition);
    assert.notDeepEqual(task.options, ITEM.options);
    assert.deepEqual(task.options, scored.options);
    assert.equal(task.systemPrompt, STRICT_SYSTEM_PROMPT, "the system-prompt stage still runs after");
    const goldLetter = task.validLetters![scored.goldIndex!];
    assert.equal(task.options![scored.goldIndex!], "Yellow");
    assert.equal(mcLastAnswerScorer.score(scored, task, `Answer: ${goldLetter}`).score, 1);
  });

  test("the label format changes the letters the prompt shows, the instruction names and the scorer reads", () => {
    const task = renderTrialTask(ITEM, { format: "mc", perturbation: { name: "label_format", variant: 1 } });
    assert.deepEqual(task.validLetters, ["K", "L", "M", "N"]);
    const body = renderTask(task);
    assert.ok(body.includes("L. Yellow"), body);
    assert.ok(task.answerInstruction.includes("K, L, M, N"), task.answerInstruction);
    assert.equal(mcLastAnswerScorer.score(ITEM, task, "Answer: L").score, 1);
    assert.equal(
      mcLastAnswerScorer.score(ITEM, task, "Answer: B").parseStatus,
      "failed",
      "the old letters no longer count",
    );
    // Open-ended: the letters are never shown, so the label format does not apply, and says so.
    const oe = renderTrialTask(ITEM, { format: "oe", perturbation: "label_format" });
    assert.equal(oe.perturbation?.status, "not_applicable");
    assert.match(oe.perturbation?.reason ?? "", /label format needs the options shown/);
  });

  test("not applicable: the unperturbed item is rendered and the task records why", () => {
    const condition = { format: "mc", perturbation: "demographic_swap" };
    const task = renderTrialTask(ITEM, condition);
    const plain = renderTrialTask(ITEM, { format: "mc" });
    assert.equal(task.question, plain.question);
    assert.equal(task.perturbation?.status, "not_applicable");
    assert.match(task.perturbation?.reason ?? "", /construct is correctness/);
    assert.equal(perturbationRecord(ITEM, "demographic_swap")?.status, "not_applicable");
  });

  test("none renders exactly the unperturbed task; a family value records its slot", () => {
    const { condition: _c, ...plain } = renderTrialTask(ITEM, { format: "mc" });
    const { condition: _d, ...none } = renderTrialTask(ITEM, { format: "mc", perturbation: "none" });
    assert.deepEqual(none, plain);
    const slot = renderTrialTask(ITEM, { format: "mc", perturbation: { name: "placebo", slot: 2 } });
    assert.equal(slot.perturbation?.family, "placebo");
    assert.equal(slot.perturbation?.slot, 2);
    assert.equal(slot.perturbation?.status, "applied");
  });
});
