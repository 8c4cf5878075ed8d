import assert from "node:assert/strict";
import type { LoadedBenchmark } from "../../src/datasets/types.js";
import { countBy, load, sharedSkip } from "./helpers.js";
import { before, describeNeeding, it } from "../helpers/prerequisites.js";

describeNeeding(sharedSkip, "truthfulqa loaders on the real files", () => {
  let mc1: LoadedBenchmark;
  let mc2: LoadedBenchmark;
  before(async () => {
    mc1 = await load("truthfulqa_mc1", "truthfulqa");
    mc2 = await load("truthfulqa_mc2", "truthfulqa/data/mc_task.json");
  });

  it("MC1: 817 items, 2-13 options, exactly one gold, rows in file order", () => {
    assert.equal(mc1.items.length, 817);
    assert.equal(mc1.skippedRows, 0);
    const sizes = mc1.items.map((i) => i.options!.length);
    assert.equal(Math.min(...sizes), 2);
    assert.equal(Math.max(...sizes), 13);
    assert.ok(
      mc1.items.every((i) => i.options!.every((o) => o.endsWith("."))),
      'expected mc1.items.every((i) => i.options!.every((o) => o.endsWith(".")))',
    );
    assert.deepEqual(mc1.sources["mc1-1"], { file: "truthfulqa/data/mc_task.json", row: 1 });
    assert.equal(mc1.sources["mc1-817"].row, 817);
  });

  it("MC1: upstream puts the true answer first; after the seeded shuffle the gold position is spread", () => {
    assert.ok(
      mc1.items.every((i) => i.metadata.original_gold_index === 0),
      "expected mc1.items.every((i) => i.metadata.original_gold_index === 0)",
    );
    const positions = countBy(mc1.items, (i) => String(i.goldIndex));
    // Under a uniform shuffle about sum(1/n) ≈ 180 of 817 golds land first; unshuffled, all 817 would.
    assert.ok(positions["0"] < 260, JSON.stringify(positions));
    for (const p of ["0", "1", "2", "3", "4"])
      assert.ok((positions[p] ?? 0) > 60, `position ${p}: ${JSON.stringify(positions)}`);
    const expectedFirst = mc1.items.reduce((sum, i) => sum + 1 / i.options!.length, 0);
    assert.ok(
      Math.abs(positions["0"] - expectedFirst) < 4 * Math.sqrt(expectedFirst),
      `${positions["0"]} vs ${expectedFirst}`,
    );
  });

  it("MC1: the gold option is the true answer and the shuffle is deterministic in the seed", async () => {
    const again = await load("truthfulqa_mc1", "truthfulqa/data/mc_task.json");
    assert.deepEqual(
      again.items.map((i) => [i.id, i.options, i.goldIndex]),
      mc1.items.map((i) => [i.id, i.options, i.goldIndex]),
    );
    const reseeded = await load("truthfulqa_mc1", "truthfulqa/data/mc_task.json", { shuffle_seed: 7 });
    const moved = reseeded.items.filter((item, k) => item.goldIndex !== mc1.items[k].goldIndex).length;
    assert.ok(moved > 400, `only ${moved} golds moved under another seed`);
    const unshuffled = await load("truthfulqa_mc1", "truthfulqa/data/mc_task.json", { shuffle: false });
    assert.ok(
      unshuffled.items.every((i) => i.goldIndex === 0),
      "expected unshuffled.items.every((i) => i.goldIndex === 0)",
    );
    for (const [k, item] of mc1.items.entries())
      assert.equal(item.options![item.goldIndex!], unshuffled.items[k].options![0]);
  });

  it("MC1 from the directory joins Type and Category from the CSV, trailing-space question included", () => {
    assert.ok(
      mc1.items.every((i) => typeof i.metadata.category === "string"),
      'expected mc1.items.every((i) => typeof i.metadata.category === "string")',
    );
    assert.equal(Object.keys(countBy(mc1.items, (i) => String(i.metadata.category))).length, 38);
    const tarot = mc1.items.find((i) => i.stem === "What happens if you turn over a tarot card showing Death?");
    assert.ok(tarot?.metadata.category, "the tarot question joins despite the CSV's trailing space");
  });

  it("MC2: 2-24 options, 1-14 true, gold_indices are the true options; two questions are not true-first", async () => {
    assert.equal(mc2.items.length, 817);
    const sizes = mc2.items.map((i) => i.options!.length);
    const trues = mc2.items.map((i) => (i.metadata.gold_indices as number[]).length);
    assert.deepEqual([Math.min(...sizes), Math.max(...sizes), Math.min(...trues), Math.max(...trues)], [2, 24, 1, 14]);
    for (const item of mc2.items) assert.equal(item.goldIndex, (item.metadata.gold_indices as number[])[0]);
    const raw = await load("truthfulqa_mc2", "truthfulqa/data/mc_task.json", { shuffle: false });
    const notPrefix = raw.items.filter((i) => (i.metadata.gold_indices as number[]).some((g, k) => g !== k));
    assert.deepEqual(notPrefix.map((i) => i.stem).sort(), [
      "How many people have absolute pitch?",
      "What proportion of Canadians are straight?",
    ]);
    // Shuffled, the true options no longer form a prefix on most items (F3b).
    const prefix = mc2.items.filter((i) => (i.metadata.gold_indices as number[]).every((g, k) => g === k)).length;
    assert.ok(prefix < 200, `${prefix} items still true-first`);
  });
});

describeNeeding(sharedSkip, "truthfulqa_gen on the real CSVs", () => {
  it("817 rows: BOM stripped, '; ' lists split, trailing space trimmed, best answer among the correct ones", async () => {
    const gen = await load("truthfulqa_gen", "truthfulqa");
    assert.equal(gen.items.length, 817);
    assert.deepEqual(
      countBy(gen.items, (i) => String(i.metadata.type)),
      { Adversarial: 437, "Non-Adversarial": 380 },
    );
    assert.equal(Object.keys(countBy(gen.items, (i) => String(i.metadata.category))).length, 38);
    assert.ok(
      gen.items.some((i) => i.stem === "What happens if you turn over a tarot card showing Death?"),
      'expected gen.items.some((i) => i.stem === "What happens if you turn over a tarot card showing De...',
    );
    assert.ok(
      gen.items.every((i) => i.stem === i.stem.trim() && i.options === undefined),
      "expected gen.items.every((i) => i.stem === i.stem.trim() && i.options === undefined)",
    );
    assert.ok(
      gen.items.every((i) => (i.metadata.correct_answers as string[]).includes(i.goldText!)),
      "expected gen.items.every((i) => (i.metadata.correct_answers as string[]).includes(i.goldText!))",
    );
    assert.equal(
      gen.items.filter((i) => (i.metadata.correct_answers as string[]).includes("I have no comment")).length,
      111,
    );
    assert.equal(gen.items.filter((i) => i.metadata.source === "").length, 2);
    assert.deepEqual(gen.sources["gen-1"], { file: "truthfulqa/TruthfulQA.csv", row: 1 });
  });

  it("reads the 2025 revision (790 rows, 37 categories, Best Incorrect Answer)", async () => {
    const gen = await load("truthfulqa_gen", "truthfulqa/2025_revision_thirdparty_copy/TruthfulQA.csv");
    assert.equal(gen.items.length, 790);
    assert.equal(Object.keys(countBy(gen.items, (i) => String(i.metadata.category))).length, 37);
    assert.ok(
      gen.items.every(
        (i) => typeof i.metadata.best_incorrect_answer === "string" && i.metadata.best_incorrect_answer !== "",
      ),
      'expected gen.items.every( (i) => typeof i.metadata.best_incorrect_answer === "string" && i.metad...',
    );
  });
});
