/**
 * The held-out table of answer forms (tests/scoring/answer-forms.ts): every form gives its
 * expected letter, or null for no single answer, through the last-answer extractor.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractMcAnswer } from "../../src/scoring/mc-extract.js";
import { FORMS, lettersOf } from "./answer-forms.js";

describe("held-out answer forms of current chat models", () => {
  test("the table has at least 60 forms, with negatives, interop and option-text forms", () => {
    assert.ok(FORMS.length >= 60, String(FORMS.length));
    assert.ok(
      FORMS.filter((f) => f.expected === null).length >= 10,
      "expected FORMS.filter((f) => f.expected === null).length >= 10",
    );
    assert.ok(
      FORMS.filter((f) => f.source === "interop").length >= 5,
      'expected FORMS.filter((f) => f.source === "interop").length >= 5',
    );
    assert.ok(
      FORMS.filter((f) => f.source === "text").length >= 5,
      'expected FORMS.filter((f) => f.source === "text").length >= 5',
    );
  });

  for (const [i, form] of FORMS.entries()) {
    test(`${form.source} #${i + 1} ${form.note ?? JSON.stringify(form.text).slice(0, 60)}`, () => {
      const got = extractMcAnswer(form.text, lettersOf(form.options), form.options);
      const read = got.candidates.map((c) => `${c.letter}:${c.marker}${c.hedged ? ":hedged" : ""}`).join(" ");
      assert.equal(got.letter, form.expected, `${JSON.stringify(form.text)} -> ${got.letter} (${got.marker}); ${read}`);
    });
  }

  test("a hedge is recorded as such, and an earlier answer does not stand in for it", () => {
    const got = extractMcAnswer("Answer: C\n\nFinal answer: A or B", ["A", "B", "C", "D"]);
    assert.equal(got.letter, null);
    assert.equal(got.marker, "hedged");
  });

  test("option text counts only when it is exactly one option's text", () => {
    const twice = ["Paris", "Paris", "Rome"];
    assert.equal(extractMcAnswer("Paris", lettersOf(twice), twice).letter, null);
    assert.equal(extractMcAnswer("Answer: Paris", lettersOf(twice), twice).letter, null);
    const city = ["Lyon", "Paris"];
    assert.equal(extractMcAnswer("Paris is lovely in spring.", lettersOf(city), city).letter, null);
    assert.equal(extractMcAnswer("Lyon\nParis", lettersOf(city), city).letter, null, "a listing of option texts");
  });

  test("long and degenerate responses are read in linear time", () => {
    const letters = ["A", "B", "C", "D"];
    const options = ["Lyon", "Paris", "Marseille", "Nice"];
    const inputs = [
      `answer${" ".repeat(20000)}:${" ".repeat(20000)}`,
      `answer: ${"*".repeat(20000)}x`,
      `\\boxed{A ${" ".repeat(20000)}`,
      `${"A or ".repeat(5000)}`,
      `${".".repeat(20000)}\nAnswer: Paris${".".repeat(20000)} `,
      "The answer is hard. Option A seems fine, but B is correct. ".repeat(1000),
    ];
    for (const text of inputs) {
      const start = performance.now();
      extractMcAnswer(text, letters, options);
      assert.ok(
        performance.now() - start < 2000,
        `${JSON.stringify(text.slice(0, 30))}: ${performance.now() - start} ms`,
      );
    }
  });
});
