/**
 * The simulated panel finds the item a prompt quotes through an index of the stems; it must give
 * the answer of the plain scan (the first key, in order, that the text contains) for keys of any
 * length, overlapping keys, keys inside words, and texts that contain none.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AnswerKey } from "../../src/models/sim/answer-key.js";
import { ContainedKeys } from "../../src/models/sim/contained-keys.js";

function scan(keys: readonly string[], text: string): number {
  return keys.findIndex((key) => text.includes(key));
}

/** A small alphabet makes shared prefixes, overlaps and repeated keys common. */
function randomText(next: () => number, length: number): string {
  const letters = "ab c";
  let out = "";
  for (let i = 0; i < length; i++) out += letters[Math.floor(next() * letters.length)];
  return out;
}

function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("ContainedKeys", () => {
  test("gives the plain scan's first contained key on random keys and texts", () => {
    const next = generator(7);
    let found = 0;
    for (let round = 0; round < 200; round++) {
      const keys = Array.from({ length: 1 + Math.floor(next() * 40) }, () => randomText(next, Math.floor(next() * 20)));
      const index = new ContainedKeys(keys);
      for (let t = 0; t < 20; t++) {
        const text = randomText(next, Math.floor(next() * 120));
        const expected = scan(keys, text);
        if (expected >= 0) found++;
        assert.equal(index.first(text), expected, `keys ${JSON.stringify(keys)} in ${JSON.stringify(text)}`);
      }
    }
    assert.ok(found > 1_000, `most random texts contain some key (${found} of 4,000)`);
  });

  test("finds a key inside a word, the earliest of overlapping keys, and none in a text without them", () => {
    const keys = ["a question that never appears", "what is the boiling point", "is the boiling point of water"];
    const index = new ContainedKeys(keys);
    assert.equal(index.first("so, what is the boiling point of water?"), 1);
    assert.equal(index.first("thwhat is the boiling pointed"), 1);
    assert.equal(index.first("this is the boiling point of water"), 2);
    assert.equal(index.first("nothing here"), -1);
    assert.equal(new ContainedKeys(["", "longer key than the probe"]).first("anything"), 0);
  });
});

describe("AnswerKey", () => {
  test("finds an item its prompt quotes without the Question label, and a persona item by its question", () => {
    const key = new AnswerKey();
    key.observe([
      {
        id: "a",
        benchmark: "demo",
        metadata: {},
        stem: "Which gas do plants take in to make sugar?",
        options: ["Oxygen", "Carbon dioxide"],
        goldIndex: 1,
      },
      {
        id: "b",
        benchmark: "demo",
        metadata: {},
        stem: "I am a keen gardener. Which colour are the leaves of most healthy plants in summer?",
        options: ["Green", "Blue"],
        goldIndex: 0,
      },
    ]);
    assert.equal(key.find("Please consider: which gas do plants   take in to make sugar? Reply.")?.item.id, "a");
    assert.equal(key.find("Sub-task: Which colour are the leaves of most healthy plants in summer?")?.item.id, "b");
    assert.equal(key.find("Something else entirely"), undefined);
  });
});
