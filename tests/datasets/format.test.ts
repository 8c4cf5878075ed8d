import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import { InputError } from "../../src/core/errors.js";
import { annotateFormatPair, GENERIC_FORCED_INSTRUCTION, toTaskInput } from "../../src/datasets/format.js";
import { seededPermutation } from "../../src/datasets/shuffle.js";

const item = (over: Partial<Item> = {}): Item => ({
  id: "q1",
  benchmark: "demo",
  stem: "Which of the following is the largest ocean?",
  options: ["Atlantic", "Pacific", "Indian"],
  goldIndex: 1,
  metadata: {},
  ...over,
});

describe("toTaskInput format pairs", () => {
  it("mc keeps the stem and shows options with valid letters (unchanged behaviour)", () => {
    const task = toTaskInput(item(), { format: "mc" });
    assert.equal(task.question, "Which of the following is the largest ocean?");
    assert.deepEqual(task.options, ["Atlantic", "Pacific", "Indian"]);
    assert.deepEqual(task.validLetters, ["A", "B", "C"]);
  });

  it("oe removes options and MC artefacts; forced adds the definite-answer instruction", () => {
    const oe = toTaskInput(item(), { format: "oe" });
    assert.equal(oe.question, "What is the largest ocean?");
    assert.equal(oe.options, undefined);
    assert.equal(oe.validLetters, undefined);
    const forced = toTaskInput(item(), { format: { name: "forced" } });
    assert.equal(forced.question, oe.question);
    assert.ok(
      forced.answerInstruction.startsWith(GENERIC_FORCED_INSTRUCTION),
      "expected forced.answerInstruction.startsWith(GENERIC_FORCED_INSTRUCTION)",
    );
    assert.equal(forced.options, undefined);
    const custom = toTaskInput(item({ metadata: { forced_answer_instruction: "Pick one person." } }), {
      format: "forced",
    });
    assert.ok(
      custom.answerInstruction.startsWith("Pick one person. "),
      'expected custom.answerInstruction.startsWith("Pick one person. ")',
    );
  });

  it("items without options keep their stem verbatim in oe and default to oe", () => {
    const prompt = item({
      stem: "Which of the following should I do first? Choose one.",
      options: undefined,
      goldIndex: undefined,
    });
    assert.equal(toTaskInput(prompt, {}).format, "oe");
    assert.equal(toTaskInput(prompt, {}).question, prompt.stem);
    assert.throws(() => toTaskInput(prompt, { format: "mc" }), InputError);
    assert.throws(() => toTaskInput(item(), { format: "cloze" }), /unknown format 'cloze'; known: mc, oe, forced/);
  });

  it("annotateFormatPair records option dependence on the item", () => {
    const dependent = annotateFormatPair(item({ options: ["Atlantic", "Pacific", "All of the above"] }));
    assert.equal(dependent.metadata.option_dependent, true);
    assert.ok(
      Array.isArray(dependent.metadata.option_dependent_reasons),
      "expected Array.isArray(dependent.metadata.option_dependent_reasons)",
    );
    assert.equal(annotateFormatPair(item()).metadata.option_dependent, false);
  });
});

describe("seededPermutation", () => {
  it("is a deterministic permutation that depends on the key", () => {
    const p = seededPermutation(10, "0|mc1-5");
    assert.deepEqual(
      [...p].sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    assert.deepEqual(p, seededPermutation(10, "0|mc1-5"));
    assert.notDeepEqual(p, seededPermutation(10, "1|mc1-5"));
  });

  it("spreads each element evenly over positions", () => {
    const counts = [0, 0, 0, 0];
    for (let k = 0; k < 4000; k++) counts[seededPermutation(4, `s|${k}`).indexOf(0)]++;
    for (const c of counts) assert.ok(Math.abs(c - 1000) < 120, counts.join(","));
  });
});
