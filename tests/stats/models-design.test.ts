import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  assertFullRank,
  buildDesign,
  parseFormula,
  RankDeficiencyError,
  sortedLevels,
  termColumnNames,
} from "../../src/stats/models/index.js";

/** Dense copy of a design's rows, for checking the sparse storage. */
function dense(design: ReturnType<typeof buildDesign>): number[][] {
  return Array.from({ length: design.nRows }, (_, i) => {
    const row = new Array(design.nCols).fill(0);
    for (let a = design.rowPtr[i]; a < design.rowPtr[i + 1]; a++) row[design.colIdx[a]] = design.values[a];
    return row;
  });
}

describe("formula parsing", () => {
  it("reads terms, interactions, stars, no-intercept and a random intercept", () => {
    assert.deepEqual(parseFormula("y ~ a + b + a:b"), { response: "y", terms: ["a", "b", "a:b"], intercept: true });
    assert.deepEqual(parseFormula("y ~ a*b").terms, ["a", "b", "a:b"]);
    assert.equal(parseFormula("y ~ a - 1").intercept, false);
    assert.equal(parseFormula("y ~ 0 + a").intercept, false);
    const mixed = parseFormula("outcome ~ config + model + (1 | case_id)");
    assert.deepEqual(mixed.terms, ["config", "model"]);
    assert.equal(mixed.randomIntercept, "case_id");
    assert.throws(() => parseFormula("y + a"), /response ~ terms/);
  });
});

describe("design matrix", () => {
  const table = {
    config: ["direct", "react", "map_reduce", "react", "direct", "map_reduce"],
    model: ["b", "a", "a", "b", "a", "b"],
    x: Float64Array.from([1, 2, 3, 4, 5, 6]),
  };

  it("uses sort() order with the reference first and patsy names", () => {
    assert.deepEqual(sortedLevels(["b", "B", "a", "10", "9"]), ["10", "9", "B", "a", "b"]);
    const d = buildDesign(table, { terms: ["config", "model"], factors: { config: { reference: "direct" } } });
    assert.deepEqual(d.columnNames, ["Intercept", "config[T.map_reduce]", "config[T.react]", "model[T.b]"]);
    assert.deepEqual(dense(d), [
      [1, 0, 0, 1],
      [1, 0, 1, 0],
      [1, 1, 0, 0],
      [1, 0, 1, 1],
      [1, 0, 0, 0],
      [1, 1, 0, 1],
    ]);
  });

  it("orders interaction columns with the first factor fastest, and codes numeric interactions", () => {
    const d = buildDesign(table, { terms: ["config:model", "x:model"], factors: { config: { reference: "direct" } } });
    assert.deepEqual(termColumnNames(d, "config:model"), [
      "config[T.map_reduce]:model[T.b]",
      "config[T.react]:model[T.b]",
    ]);
    assert.deepEqual(termColumnNames(d, "model:config"), termColumnNames(d, "config:model"));
    const rows = dense(d);
    assert.deepEqual(rows[3], [1, 0, 1, 4]); // react, b, x = 4
    assert.deepEqual(rows[1], [1, 0, 0, 0]); // react, a (reference) -> no interaction column
  });

  it("stores a factors-only design (written directly) as the general product coding stores it", () => {
    const terms = ["config", "model", "config:model", "model:config:model"];
    const factors = { config: { reference: "react" } };
    const direct = buildDesign(table, { terms, factors });
    // A numeric term sends every term through the general product coding; its own entries removed,
    // the rest must be the same entries in the same order.
    const general = buildDesign(table, { terms: [...terms, "x"], factors });
    const xColumn = general.nCols - 1;
    const kept: { row: number; col: number; value: number }[] = [];
    for (let i = 0; i < general.nRows; i++)
      for (let a = general.rowPtr[i]; a < general.rowPtr[i + 1]; a++)
        if (general.colIdx[a] !== xColumn) kept.push({ row: i, col: general.colIdx[a], value: general.values[a] });
    const stored: { row: number; col: number; value: number }[] = [];
    for (let i = 0; i < direct.nRows; i++)
      for (let a = direct.rowPtr[i]; a < direct.rowPtr[i + 1]; a++)
        stored.push({ row: i, col: direct.colIdx[a], value: direct.values[a] });
    assert.deepEqual(stored, kept);
    assert.equal(direct.colIdx.length, direct.rowPtr[direct.nRows]);
    assert.deepEqual(direct.columnNames, general.columnNames.slice(0, -1));
    // Row 2 (map_reduce, a): intercept and config[T.map_reduce]; model a is the reference, so no
    // model or interaction column. Row 5 (map_reduce, b): every term has a column.
    assert.deepEqual(
      [...direct.colIdx.subarray(direct.rowPtr[2], direct.rowPtr[3])].map((c) => direct.columnNames[c]),
      ["Intercept", "config[T.map_reduce]"],
    );
    assert.deepEqual(
      [...direct.colIdx.subarray(direct.rowPtr[5], direct.rowPtr[6])].map((c) => direct.columnNames[c]),
      [
        "Intercept",
        "config[T.map_reduce]",
        "model[T.b]",
        "config[T.map_reduce]:model[T.b]",
        "model[T.b]:config[T.map_reduce]:model[T.b]",
      ],
    );
  });

  it("codes sum-to-zero contrasts with the last level as -1", () => {
    const d = buildDesign(table, { terms: ["config"], coding: "sum" });
    assert.deepEqual(d.columnNames, ["Intercept", "config[S.direct]", "config[S.map_reduce]"]);
    assert.deepEqual(dense(d)[1], [1, -1, -1]); // react is last in sort order
  });

  it("names aliased columns when the design is rank deficient", () => {
    // b is q exactly where a is v: the two dummies are the same column.
    const aliased = { a: ["u", "u", "v", "v"], b: ["p", "p", "q", "q"], y: Float64Array.from([0, 1, 0, 1]) };
    const d = buildDesign(aliased, { terms: ["a", "b"] });
    assert.throws(
      () => assertFullRank(d),
      (e: unknown) =>
        e instanceof RankDeficiencyError &&
        /'b\[T\.q\]' is a linear combination of 'a\[T\.v\]'/.test(e.message) &&
        e.aliased[0].column === "b[T.q]",
    );
  });

  it("reports an empty interaction cell as an all-zero column", () => {
    const t = { a: ["x", "x", "y", "y"], b: ["p", "q", "p", "p"] };
    const d = buildDesign(t, { terms: ["a", "b", "a:b"] });
    assert.throws(() => assertFullRank(d), /'a\[T\.y\]:b\[T\.q\]' is all zero/);
  });

  it("rejects values outside declared levels and unknown references", () => {
    assert.throws(
      () => buildDesign(table, { terms: ["model"], factors: { model: { levels: ["a"] } } }),
      /not in its declared levels/,
    );
    assert.throws(
      () => buildDesign(table, { terms: ["model"], factors: { model: { reference: "zz" } } }),
      /reference level/,
    );
  });
});
