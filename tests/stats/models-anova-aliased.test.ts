import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anova, RandomStream, RankDeficiencyError } from "../../src/stats/index.js";

const close = (x: number, y: number, tol = 1e-9) => Math.abs(x - y) <= tol * Math.max(1, Math.abs(y));

/** A 3 x 4 layout with `perCell` rows per cell, leaving out the cells listed in `empty` ("a3|b1"). */
function layout(perCell: number, seed: number, empty: readonly string[] = []) {
  const stream = RandomStream.fromSeed(seed);
  const a: string[] = [];
  const b: string[] = [];
  const y: number[] = [];
  for (const la of ["a1", "a2", "a3"]) {
    for (const lb of ["b1", "b2", "b3", "b4"]) {
      if (empty.includes(`${la}|${lb}`)) continue;
      for (let r = 0; r < perCell + (la === "a2" ? 1 : 0); r++) {
        a.push(la);
        b.push(lb);
        y.push(
          (la === "a2" ? 0.7 : 0) + (lb === "b3" ? -0.5 : 0) + (la === "a1" && lb === "b2" ? 1 : 0) + stream.normal(),
        );
      }
    }
  }
  return { a, b, y: Float64Array.from(y) };
}

/** Sum of squares of each row around its own cell mean, and the number of non-empty cells. */
function withinCells(t: { a: string[]; b: string[]; y: Float64Array }) {
  const groups = new Map<string, number[]>();
  t.y.forEach((v, i) => {
    const key = `${t.a[i]}|${t.b[i]}`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  });
  let ss = 0;
  for (const values of groups.values()) {
    const m = values.reduce((s, v) => s + v, 0) / values.length;
    for (const v of values) ss += (v - m) ** 2;
  }
  return { ss, cells: groups.size };
}

const spec = { response: "y", terms: ["a", "b", "a:b"] };

describe("ANOVA with aliased columns dropped", () => {
  it("changes nothing on a full-rank design", () => {
    const t = layout(3, 17);
    const strict = anova(t, spec);
    const tolerant = anova(t, { ...spec, aliased: "drop" });
    assert.equal(tolerant.dfResidual, strict.dfResidual);
    assert.ok(close(tolerant.rss, strict.rss), "rss");
    for (const type of ["type1", "type2", "type3"] as const) {
      assert.equal(tolerant[type].length, strict[type].length);
      strict[type].forEach((row, k) => {
        assert.equal(tolerant[type][k].df, row.df, `${type} ${row.term} df`);
        assert.ok(close(tolerant[type][k].ss, row.ss), `${type} ${row.term} ss`);
      });
    }
  });

  it("fits the column space of a layout with an empty cell: df is the rank a term adds", () => {
    const t = layout(2, 23, ["a3|b1"]);
    assert.throws(() => anova(t, spec), RankDeficiencyError);
    const out = anova(t, { ...spec, aliased: "drop" });
    const within = withinCells(t);
    // A + B + A:B with one cell empty is the cell-means model of the 11 non-empty cells.
    assert.ok(close(out.rss, within.ss), `rss ${out.rss} vs within-cell SS ${within.ss}`);
    assert.equal(out.dfResidual, t.y.length - within.cells);
    const interaction = out.type2.find((row) => row.term === "a:b");
    assert.ok(interaction, "a:b row");
    assert.equal(interaction.df, within.cells - (3 + 4 - 1));
    // Type II SS of a:b = RSS(a + b) - RSS(cell means); the additive fit is full rank.
    const additive = anova(t, { response: "y", terms: ["a", "b"] });
    assert.ok(close(interaction.ss, additive.rss - within.ss), "a:b SS");
    // Type II main effects do not involve a:b.
    for (const term of ["a", "b"]) {
      const expected = additive.type2.find((row) => row.term === term)?.ss ?? Number.NaN;
      assert.ok(close(out.type2.find((row) => row.term === term)?.ss ?? Number.NaN, expected), `${term} SS`);
    }
    assert.equal(out.type3.length, 0, "Type III is not defined without full rank");
    // 12 columns (intercept, 2 + 3 main, 6 interaction) span the 11 cell means: one is aliased,
    // an interaction column of a3 (the level whose cell is missing), named as R reports it NA.
    assert.equal(out.aliased.length, 1, JSON.stringify(out.aliased));
    assert.match(out.aliased[0].column, /^a\[T\.a3\]:b\[T\.b\d\]$/);
    assert.ok(out.aliased[0].combinationOf.includes("a[T.a3]"), JSON.stringify(out.aliased[0]));
  });

  it("names no aliased column on a full-rank design", () => {
    assert.deepEqual(anova(layout(3, 17), { ...spec, aliased: "drop" }).aliased, []);
  });
});
