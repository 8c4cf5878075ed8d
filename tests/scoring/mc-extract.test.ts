/**
 * The last-answer MC extractor on a table of real-looking responses (tests/fixtures/scoring/
 * mc-responses.json), including the App. K failure ("I can determine that..." must not give "I"),
 * chain-of-thought with intermediate letters and several markers; then the scorer's gold sets.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import type { TaskInput } from "../../src/contracts/task.js";
import { toTaskInput } from "../../src/datasets/format.js";
import { exactAnswerScorer } from "../../src/scoring/exact-answer.js";
import { extractMcAnswer } from "../../src/scoring/mc-extract.js";
import { mcLastAnswerScorer } from "../../src/scoring/mc-last-answer.js";

interface Case {
  text: string;
  letters: string;
  options?: string[];
  expected: string | null;
  note?: string;
}

const cases: Case[] = JSON.parse(
  readFileSync(new URL("../fixtures/scoring/mc-responses.json", import.meta.url), "utf8"),
);

describe("MC extraction: last valid answer marker", () => {
  test("the table has at least 60 responses", () => assert.ok(cases.length >= 60, String(cases.length)));

  for (const [i, c] of cases.entries()) {
    test(`#${i + 1} ${c.note ?? JSON.stringify(c.text).slice(0, 60)}`, () => {
      const got = extractMcAnswer(c.text, [...c.letters], c.options ?? []);
      assert.equal(got.letter, c.expected, `${JSON.stringify(c.text)} -> ${JSON.stringify(got)}`);
    });
  }

  test("the pronoun I is rejected even where I is a valid letter, and reported as no candidate", () => {
    const got = extractMcAnswer("I can determine that the answer is unclear.", [..."ABCDEFGHIJ"]);
    assert.equal(got.letter, null);
    assert.ok(
      got.candidates.every((c) => c.letter !== "I"),
      'expected got.candidates.every((c) => c.letter !== "I")',
    );
  });

  test("an invalid letter is recorded as a candidate but never chosen", () => {
    const got = extractMcAnswer("Answer: E", [..."ABCD"]);
    assert.equal(got.letter, null);
    assert.deepEqual(
      got.candidates.map((c) => [c.letter, c.valid]),
      [["E", false]],
    );
  });
});

function item(extra: Partial<Item> = {}): Item {
  return {
    id: "q1",
    benchmark: "b",
    stem: "Which one?",
    options: ["red", "green", "blue", "black"],
    goldIndex: 1,
    metadata: {},
    ...extra,
  };
}

const mcTask = (it: Item): TaskInput => toTaskInput(it, { format: "mc" });

describe("mc_last_answer scorer", () => {
  test("correct, wrong and parse failure (ITT: 0, never a default letter)", () => {
    const it = item();
    assert.deepEqual(
      { ...mcLastAnswerScorer.score(it, mcTask(it), "Answer: B"), details: undefined },
      { parsedAnswer: "B", parseStatus: "ok", score: 1, details: undefined },
    );
    assert.equal(mcLastAnswerScorer.score(it, mcTask(it), "Answer: C").score, 0);
    const failed = mcLastAnswerScorer.score(it, mcTask(it), "I can determine that it is green.");
    assert.equal(failed.parseStatus, "failed");
    assert.equal(failed.parsedAnswer, null);
    assert.equal(failed.score, 0);
  });

  test("MC2 / sycophancy gold sets in metadata.gold_indices: any member is correct", () => {
    const it = item({ goldIndex: 0, metadata: { gold_indices: [0, 2] } });
    assert.equal(mcLastAnswerScorer.score(it, mcTask(it), "Answer: C").score, 1);
    assert.equal(mcLastAnswerScorer.score(it, mcTask(it), "Answer: A").score, 1);
    assert.equal(mcLastAnswerScorer.score(it, mcTask(it), "Answer: B").score, 0);
  });

  test("CrowS-Pairs style items (no gold): outcome 1 when sent_more is chosen", () => {
    const it = item({ options: ["s1", "s2"], goldIndex: undefined, metadata: { sent_more_index: 1 } });
    assert.equal(mcLastAnswerScorer.score(it, mcTask(it), "Answer: B").score, 1);
    assert.equal(mcLastAnswerScorer.score(it, mcTask(it), "Answer: A").score, 0);
  });

  test("open-ended tasks are not applicable; exact_answer delegates MC tasks to it", () => {
    const it = item();
    const oe = toTaskInput(it, { format: "oe" });
    assert.equal(mcLastAnswerScorer.score(it, oe, "Answer: B").parseStatus, "not_applicable");
    assert.equal(exactAnswerScorer.score(it, oe, "Answer: Green.").score, 1);
    assert.equal(exactAnswerScorer.score(it, mcTask(it), "I can determine it").parseStatus, "failed");
  });
});
