/**
 * The exemplar pools a run holds while its trials execute (run/prepare/exemplars.ts, drawnPools):
 * each pool cut to the exemplars the spec's few_shot levels draw, which must give every level
 * exactly the draw the whole pool gives (the same items, in the same order), and hold no more
 * than those exemplars. With plugins the pools stay whole. A pool reading the benchmark's own
 * source is taken from the benchmark's load only when nothing else differs (readsOwnSource). A
 * pool set aside holds exactly the batch rows run_item_batches stores (setAsidePool).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolve } from "node:path";
import type { Item } from "../../src/contracts/item.js";
import type { BenchmarkSpec, FacetValue, StudySpec } from "../../src/contracts/spec.js";
import { drawExemplars, shotCount, shotSeed } from "../../src/facets/few-shot.js";
import { drawnPools, readsOwnSource, setAsidePool, storedPoolRows } from "../../src/run/prepare/exemplars.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { decodeItemLines, encodeItemBatch } from "../../src/run/store/run-items.js";
import { describeNeeding, needsSharedData } from "../helpers/prerequisites.js";

const LEVELS: FacetValue[] = ["0", "3", "5", { name: "5", seed: 7 }, { name: "10", seed: 2 }];

function specWith(levels: FacetValue[], plugins: string[] = []): StudySpec {
  // Only the fields drawnPools reads: the few_shot levels and the plugins.
  return { plugins, conditions: { facets: { few_shot: levels } } } as unknown as StudySpec;
}

function pool(benchmark: string, size: number): Item[] {
  return Array.from({ length: size }, (_, i) => ({
    id: `${benchmark}-ex-${i}`,
    benchmark,
    stem: `Question ${i} of ${benchmark}?`,
    options: ["yes", "no"],
    goldIndex: i % 2,
    metadata: { row: i },
  }));
}

/** Every level's draw from the cut pools equals its draw from the whole pools. */
function assertSameDraws(spec: StudySpec, whole: Map<string, Item[]>): Map<string, Item[]> {
  const cut = drawnPools(spec, whole);
  const levels = (spec.conditions.facets.few_shot ?? []).filter((v) => shotCount(v) > 0);
  for (const [benchmark, items] of whole) {
    const kept = cut.get(benchmark)!;
    const drawn = new Set<string>();
    for (const level of levels) {
      const fromWhole = drawExemplars(items, benchmark, shotCount(level), shotSeed(level));
      const fromCut = drawExemplars(kept, benchmark, shotCount(level), shotSeed(level));
      assert.deepEqual(fromCut, fromWhole, `${benchmark}: the draw of ${JSON.stringify(level)} changed`);
      for (const item of fromWhole) drawn.add(item.id);
    }
    assert.deepEqual(
      kept.map((item) => item.id),
      items.filter((item) => drawn.has(item.id)).map((item) => item.id),
      `${benchmark}: the cut pool is the drawn exemplars in pool order`,
    );
  }
  return cut;
}

describe("drawnPools", () => {
  it("keeps only the drawn exemplars, and every level draws the same items from them", () => {
    const whole = new Map([
      ["alpha", pool("alpha", 2_000)],
      ["beta", pool("beta", 40)],
    ]);
    const cut = assertSameDraws(specWith(LEVELS), whole);
    for (const [benchmark, kept] of cut) {
      // 3 + 5 + 5 + 10 exemplars at most, whatever the pool's size.
      assert.ok(kept.length <= 23 && kept.length >= 10, `${benchmark}: ${kept.length} exemplars kept`);
    }
  });

  it("keeps nothing of a pool when no level draws, and whole pools with plugins", () => {
    const whole = new Map([["alpha", pool("alpha", 100)]]);
    assert.deepEqual(drawnPools(specWith(["0"]), whole).get("alpha"), []);
    assert.equal(drawnPools(specWith(LEVELS, ["./plugin.mjs"]), whole).get("alpha"), whole.get("alpha"));
  });

  it("reads a benchmark's own source once only when loader, source and options all match", () => {
    const base: BenchmarkSpec = {
      id: "b",
      loader: "bbq",
      source: "data/bbq",
      exemplars: { source: "data/bbq", exclude_evaluated: true },
    } as BenchmarkSpec;
    const withPool = (exemplars: object, extra: object = {}) =>
      ({ ...base, ...extra, exemplars: { exclude_evaluated: true, ...exemplars } }) as BenchmarkSpec;
    assert.equal(readsOwnSource(base, false), true);
    assert.equal(readsOwnSource(base, true), false, "a spec with plugins loads the pool on its own");
    assert.equal(readsOwnSource(withPool({ source: "data/other" }), false), false);
    assert.equal(readsOwnSource(withPool({ source: "data/bbq", loader: "mmlu" }), false), false);
    assert.equal(readsOwnSource(withPool({ source: "data/bbq", loader: "bbq" }), false), true);
    assert.equal(readsOwnSource(withPool({ source: "data/bbq", options: { a: 1 } }), false), false);
    assert.equal(readsOwnSource(withPool({ source: "data/bbq" }, { options: { a: 1 } }), false), false);
    assert.equal(
      readsOwnSource(withPool({ source: "data/bbq", options: { b: 2, a: 1 } }, { options: { a: 1, b: 2 } }), false),
      true,
    );
  });
});

describe("setAsidePool", () => {
  it("holds the pool's run_items rows as the store's batches, in order", () => {
    // Characters of 2, 3 and 4 UTF-8 bytes, newlines and quotes in the text.
    const items = pool("gamma", 1_200).map((item, i) => ({
      ...item,
      stem: `${'é日🙂\n"quoted" '.repeat(100)}${i}`,
      metadata: { row: i, note: i % 3 === 0 ? undefined : "x", deep: { list: [i, null, "ü"] } },
    }));
    const aside = setAsidePool("gamma", items);
    assert.equal(aside.count, items.length);
    const rows = storedPoolRows(new Map([["gamma", items]]));
    assert.deepEqual(
      aside.batches,
      [0, 500, 1_000].map((start) => encodeItemBatch(rows.slice(start, start + 500))),
      "batches of 500 rows, as saveRunItems encodes them",
    );
    assert.deepEqual(
      aside.batches.flatMap((batch) => decodeItemLines(batch.items)),
      rows.map((row) => JSON.stringify(row)),
      "the rows as the store serialises them",
    );
    assert.deepEqual(setAsidePool("empty", []).batches, []);
  });
});

describeNeeding(needsSharedData(), "drawnPools on the grid quickstart's pools", () => {
  it("draws every level the same from the cut pools as from the loaded ones", async () => {
    const study = await prepareStudy(resolve(import.meta.dirname, "..", "..", "examples", "grid-quickstart.yaml"));
    assert.ok(study.exemplars.size > 0, "the spec declares few-shot pools");
    const cut = assertSameDraws(study.spec, study.exemplars);
    const whole = [...study.exemplars.values()].reduce((n, p) => n + p.length, 0);
    const kept = [...cut.values()].reduce((n, p) => n + p.length, 0);
    assert.ok(kept <= 8 * study.exemplars.size && kept < whole, `${kept} of ${whole} pool items kept`);
  });
});
