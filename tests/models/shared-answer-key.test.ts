/**
 * The simulated panel's answer key is built once per item list: models (and judges) that observe
 * the same items share one key, which answers as a key of their own would; a different list, or
 * a provider that observes more items, gets a key of its own holding every item it observed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import type { ModelSpec } from "../../src/contracts/spec.js";
import { AnswerKey, answerKeyOf } from "../../src/models/sim/answer-key.js";
import { simProvider } from "../../src/models/sim/provider.js";

const itemsOf = (
  prefix: string,
  count: number,
  stem = (i: number) => `In puzzle ${prefix} ${i}, which box holds the marble?`,
): Item[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    benchmark: "b",
    stem: stem(i),
    options: ["The red box", "The green box", "The blue box", "The white box"],
    goldIndex: i % 4,
    metadata: {},
  }));

const prompt = (item: Item) =>
  `Question: ${item.stem}\n\n${item.options!.map((o, k) => `${"ABCD"[k]}. ${o}`).join("\n")}\n\nAnswer: X`;

test("the same items (another array of the same item objects) share one key; other items do not", () => {
  const items = itemsOf("alpha", 30);
  const key = answerKeyOf(items);
  assert.equal(answerKeyOf([...items]), key, "the same item objects in the same order: one key");
  assert.notEqual(answerKeyOf(items.slice(1)), key, "fewer items: another key");
  assert.notEqual(answerKeyOf([...items].reverse()), key, "another order: another key");
  assert.notEqual(answerKeyOf(items.map((item) => ({ ...item }))), key, "equal but other objects: another key");
  const own = new AnswerKey();
  own.observe(items);
  for (const item of items) {
    assert.equal(key.find(prompt(item))?.item, item);
    assert.deepEqual(key.find(prompt(item)), own.find(prompt(item)), "the shared key answers as an own key");
  }
});

test("a provider observing more items keys them all, without changing a key another provider shares", async () => {
  const first = itemsOf("beta", 10);
  const more = itemsOf(
    "gamma",
    10,
    (i) => `Quickly name the capital city of imaginary nation ${i} on this strange map.`,
  );
  const spec = { id: "sim-medium", provider: "sim", model: "medium" } as ModelSpec;
  const one = simProvider(spec, {}, { studySeed: 0 });
  const two = simProvider(spec, {}, { studySeed: 0 });
  one.observeItems?.(first);
  two.observeItems?.(first);
  two.observeItems?.(more);
  const shared = answerKeyOf(first);
  assert.deepEqual(shared.items(), first, "the shared key still holds only the first items");
  assert.equal(shared.find(prompt(more[0])), undefined);
  const reply = async (provider: typeof one, item: Item) =>
    (
      await provider.generate({
        model: "medium",
        messages: [{ role: "user", content: prompt(item) }],
        params: { temperature: 0 },
        attempt: 1,
      })
    ).text;
  const both = simProvider(spec, {}, { studySeed: 0 });
  both.observeItems?.([...first, ...more]);
  for (const item of [...first, ...more]) {
    assert.equal(await reply(two, item), await reply(both, item), "two observations key as one of both lists");
  }
  const answersOf = (provider: typeof one) => Promise.all(more.map((item) => reply(provider, item)));
  assert.notDeepEqual(
    await answersOf(one),
    await answersOf(two),
    "a provider that never observed `more` answers otherwise",
  );
});
