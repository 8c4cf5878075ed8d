import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sortedByLevels } from "../../src/analysis/every-study/rates.js";
import { RandomStream } from "../../src/stats/index.js";

type Row = { id: number; facets: Record<string, string> };

/** The straightforward order: each comparison re-reads both rows' positions with indexOf. */
function referenceOrder(rows: readonly Row[], facets: readonly string[], order: Record<string, string[]>): Row[] {
  const rank = (r: Row) => facets.map((f) => (order[f] ?? []).indexOf(r.facets[f]));
  return [...rows].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
    return 0;
  });
}

describe("rates: rows in declared level order", () => {
  it("matches the comparator sort on random rows (undeclared, absent and repeated levels, ties kept stable)", () => {
    const random = RandomStream.fromSeed(17);
    for (let trial = 0; trial < 30; trial++) {
      const facets = ["a", "b", "c"].slice(0, 1 + random.integer(3));
      // Declared orders with a repeated level (its first position counts) and a missing facet.
      const order: Record<string, string[]> = { a: ["a2", "a0", "a1", "a0"], b: ["b1", "b0"] };
      const values: Record<string, string[]> = { a: ["a0", "a1", "a2", "ax"], b: ["b0", "b1", "bx"], c: ["c0", "c1"] };
      const rows: Row[] = Array.from({ length: 1 + random.integer(200) }, (_, id) => {
        const row: Row = { id, facets: {} };
        for (const f of ["a", "b", "c"]) {
          if (random.uniform() < 0.1) continue;
          row.facets[f] = values[f][random.integer(values[f].length)];
        }
        return row;
      });
      const expected = referenceOrder(rows, facets, order).map((r) => r.id);
      const actual = sortedByLevels(rows, facets, order).map((r) => r.id);
      assert.deepEqual(actual, expected, `order differs in trial ${trial} (facets ${facets.join(",")})`);
    }
  });

  it("keeps input order with no facets to order by", () => {
    const rows: Row[] = [3, 1, 2].map((id) => ({ id, facets: {} }));
    assert.deepEqual(
      sortedByLevels(rows, [], {}).map((r) => r.id),
      [3, 1, 2],
      "no facet: input order",
    );
  });
});
