/**
 * The simulated panel matches a perturbed question to its item by the share of the item's words
 * the prompt shows. Its words are kept as runs of word ids (WordSets); counts must equal the Set-of-words
 * count (countIn over wordsOf), and the answer key must pick the item the plain Set-based scan
 * picks, for random vocabularies, repeated words, case and punctuation.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import { AnswerKey } from "../../src/models/sim/answer-key.js";
import { foldedText } from "../../src/core/folded-text.js";
import { countIn, wordsOf } from "../../src/models/sim/text.js";
import { WordSets } from "../../src/models/sim/word-sets.js";

function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const VOCABULARY = ["Alpha", "beta", "GAMMA", "delta", "épée", "x1", "42", "sigma", "tau", "omega", "rho", "mu"];

function sentence(next: () => number, words: number): string {
  const separators = [" ", ", ", "? ", "\n", " - "];
  let out = "";
  for (let i = 0; i < words; i++) {
    out += VOCABULARY[Math.floor(next() * VOCABULARY.length)];
    out += separators[Math.floor(next() * separators.length)];
  }
  return out;
}

/** The Set-based scan the id arrays replace. */
function plainReworded(items: readonly Item[], prompt: string): Item | undefined {
  const shown = wordsOf(prompt);
  let best: { item: Item; score: number } | undefined;
  for (const item of items) {
    const stem = wordsOf(item.stem);
    const options = wordsOf((item.options ?? []).join(" "));
    if (stem.size === 0) continue;
    const stemShare = countIn(stem, shown) / stem.size;
    if (stemShare < 0.6) continue;
    const score = stemShare + (options.size > 0 ? countIn(options, shown) / options.size / 10 : 0);
    if (!best || score > best.score) best = { item, score };
  }
  return best?.item;
}

describe("WordSets", () => {
  test("counts a text's shown words as countIn over wordsOf does", () => {
    const next = generator(11);
    const sets = new WordSets();
    const texts = Array.from({ length: 300 }, () => sentence(next, Math.floor(next() * 12)));
    const ids = texts.map((text) => sets.add(text));
    for (const [i, text] of texts.entries())
      assert.equal(ids[i].length, wordsOf(text).size, `distinct words of ${JSON.stringify(text)}`);
    for (let round = 0; round < 200; round++) {
      const prompt = `${sentence(next, Math.floor(next() * 20))} unknownword`;
      const counts = sets.withShown(prompt, (shownIn) => ids.map((list) => shownIn(list)));
      const expected = texts.map((text) => countIn(wordsOf(text), wordsOf(prompt)));
      assert.deepEqual(counts, expected, `counts for ${JSON.stringify(prompt)}`);
    }
    // Marks are cleared between texts: a text showing nothing counts nothing.
    assert.deepEqual(
      sets.withShown("nothing known here", (shownIn) => ids.map((list) => shownIn(list))).filter((n) => n > 0),
      [],
    );
  });
});

describe("AnswerKey's perturbed-question match", () => {
  test("picks the item the Set-based scan picks", () => {
    const next = generator(5);
    let matched = 0;
    for (let round = 0; round < 30; round++) {
      const items = Array.from({ length: 40 }, (_, i) => ({
        id: `q${i}`,
        benchmark: "b",
        stem: sentence(next, 2 + Math.floor(next() * 8)),
        options: [sentence(next, 2), sentence(next, 1)],
        metadata: {},
      })) as Item[];
      const key = new AnswerKey();
      key.observe(items);
      for (let t = 0; t < 20; t++) {
        const prompt = `zz ${sentence(next, 3 + Math.floor(next() * 10))}`.toUpperCase();
        const expected = plainReworded(items, prompt);
        const found = key.find(prompt)?.item;
        // A prompt that quotes a stem (as the key normalises texts) is matched by the quote instead.
        if (items.some((item) => foldedText(prompt).includes(foldedText(item.stem)))) continue;
        assert.equal(found?.id, expected?.id, `prompt ${JSON.stringify(prompt)}`);
        if (expected) matched++;
      }
    }
    assert.ok(matched > 50, `only ${matched} prompts matched an item: the test would not see a wrong pick`);
  });
});
