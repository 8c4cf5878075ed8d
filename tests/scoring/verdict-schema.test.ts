/**
 * A rubric's verdict schema is made once per label list and shared by every verdict read with it:
 * the same list (another array of the same labels) gets the same schema, another list its own, so
 * verdicts read in turn under two rubrics are each held to their own labels.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Rubric } from "../../src/scoring/judge/rubrics.js";
import { parseVerdict, verdictSchema } from "../../src/scoring/judge/verdict.js";

const rubricOf = (...labels: string[]) => ({ labels }) as unknown as Rubric;
const reply = (label: string) => JSON.stringify({ label, confidence: 4, justification: "because" });

describe("verdict schemas", () => {
  test("one schema per label list", () => {
    assert.equal(verdictSchema(["refusal", "compliance"]), verdictSchema(["refusal", "compliance"]));
    assert.notEqual(verdictSchema(["refusal", "compliance"]), verdictSchema(["compliance", "refusal"]));
    assert.notEqual(verdictSchema(["a,b"]), verdictSchema(["a", "b"]), "labels are not run together");
  });

  test("verdicts read in turn under two rubrics keep to each rubric's labels", () => {
    const first = rubricOf("safe", "unsafe");
    const second = rubricOf("unsafe", "unclear");
    for (let round = 0; round < 3; round++) {
      assert.deepEqual(parseVerdict(reply("safe"), first), {
        ok: true,
        verdict: { label: "safe", confidence: 4, justification: "because" },
      });
      assert.equal(parseVerdict(reply("safe"), second).ok, false, "'safe' is not the second rubric's");
      assert.equal(parseVerdict(reply("unclear"), second).ok, true);
      assert.equal(parseVerdict(reply("unclear"), first).ok, false, "'unclear' is not the first rubric's");
    }
  });
});
