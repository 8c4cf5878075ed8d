import assert from "node:assert/strict";
import { toTaskInput } from "../../src/datasets/format.js";
import { sampleItems } from "../../src/datasets/sample.js";
import type { LoadedBenchmark } from "../../src/datasets/types.js";
import { countBy, load, sharedSkip } from "./helpers.js";
import { before, describeNeeding, it } from "../helpers/prerequisites.js";

describeNeeding(sharedSkip, "bbq on the real category files", () => {
  let bbq: LoadedBenchmark;
  before(async () => {
    bbq = await load("bbq", "bbq/data");
  });

  it("loads the 6 published categories with their row counts; ids are (category, example_id)", () => {
    assert.deepEqual(
      countBy(bbq.items, (i) => String(i.metadata.category)),
      {
        Age: 3680,
        Disability_status: 1556,
        Nationality: 3080,
        Physical_appearance: 1576,
        Religion: 1200,
        Sexual_orientation: 864,
      },
    );
    assert.equal(new Set(bbq.items.map((i) => i.id)).size, 11956);
    assert.ok(
      bbq.items.find((i) => i.id === "Age-0") && bbq.items.find((i) => i.id === "Religion-0"),
      'expected bbq.items.find((i) => i.id === "Age-0") && bbq.items.find((i) => i.id === "Religion-0")',
    );
    assert.deepEqual(bbq.sources["Religion-0"], { file: "bbq/data/Religion.jsonl", row: 1 });
  });

  it("finds the unknown option from answer_info: gold in every ambig row, never in a disambig row", () => {
    for (const item of bbq.items) {
      const isUnknown = item.goldIndex === item.metadata.unknown_index;
      assert.equal(isUnknown, item.metadata.context_condition === "ambig", item.id);
    }
    // Its text takes many surface forms, so matching on text would miss some.
    const forms = new Set(bbq.items.map((i) => i.options![i.metadata.unknown_index as number]));
    assert.equal(forms.size, 10);
    assert.ok(
      Object.values(countBy(bbq.items, (i) => String(i.metadata.unknown_index))).every((n) => n > 2000),
      "expected Object.values(countBy(bbq.items, (i) => String(i.metadata.unknown_index))).every((n) =>...",
    );
  });

  it("splits polarity and ambiguity 50/50 and derives the bias target (Nationality by name)", () => {
    assert.deepEqual(
      countBy(bbq.items, (i) => String(i.metadata.question_polarity)),
      { neg: 5978, nonneg: 5978 },
    );
    assert.deepEqual(
      countBy(bbq.items, (i) => String(i.metadata.context_condition)),
      { ambig: 5978, disambig: 5978 },
    );
    assert.ok(
      bbq.items.every((i) => i.metadata.target_index !== null && i.metadata.target_index !== i.metadata.unknown_index),
      "expected bbq.items.every((i) => i.metadata.target_index !== null && i.metadata.target_index !== ...",
    );
    const british = bbq.items.find((i) => i.id === "Nationality-0")!;
    assert.equal(british.options![british.metadata.target_index as number], "The British friend");
    const neg = bbq.items.filter((i) => i.metadata.question_polarity === "neg");
    assert.ok(
      neg.every((i) => i.metadata.biased_index === i.metadata.target_index),
      "expected neg.every((i) => i.metadata.biased_index === i.metadata.target_index)",
    );
  });

  it("renders the forced-answer variant with the BBQ instruction, the open variant without options", () => {
    const item = bbq.items[0];
    const forced = toTaskInput(item, { format: "forced" });
    assert.match(forced.answerInstruction, /^You must choose one of the people described\./);
    assert.equal(forced.options, undefined);
    assert.equal(toTaskInput(item, { format: "oe" }).question, item.stem);
  });

  it("stratified sampling on the stratum key balances categories x ambiguity and is reproducible", () => {
    const a = sampleItems(bbq.items, { n: 120, seed: 3, stratifyBy: "stratum", allocation: "equal" });
    const b = sampleItems([...bbq.items].reverse(), { n: 120, seed: 3, stratifyBy: "stratum", allocation: "equal" });
    assert.deepEqual(a.map((i) => i.id).sort(), b.map((i) => i.id).sort());
    assert.deepEqual(Object.values(countBy(a, (i) => String(i.metadata.stratum))), Array(12).fill(10));
    const other = sampleItems(bbq.items, { n: 120, seed: 4, stratifyBy: "stratum", allocation: "equal" });
    assert.notDeepEqual(
      a.map((i) => i.id),
      other.map((i) => i.id),
    );
    const proportional = countBy(sampleItems(bbq.items, { n: 1000, seed: 3, stratifyBy: "stratum" }), (i) =>
      String(i.metadata.category),
    );
    assert.equal(proportional.Age, Math.round((1000 * 3680) / 11956));
  });

  it("simple seeded sampling reproduces the same items and n", () => {
    const a = sampleItems(bbq.items, { n: 50, seed: 11 });
    assert.equal(a.length, 50);
    assert.deepEqual(a, sampleItems(bbq.items, { n: 50, seed: 11 }));
    assert.notDeepEqual(a, sampleItems(bbq.items, { n: 50, seed: 12 }));
  });
});
