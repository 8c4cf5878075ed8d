/**
 * The analyses group rows once per pass through what rows share (a facets record per condition,
 * interned names, a case key built once per row): these check that the grouping gives what a
 * grouping by the rows' values gives, whether or not the rows share their records.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AnalysisRow, clusterKey, normalizePlan } from "../../src/analysis/index.js";
import { levelTallies } from "../../src/analysis/core/contrast-model.js";
import { columnTable, type ScoredRow } from "../../src/analysis/core/data.js";
import { caseKey, joinText } from "../../src/analysis/core/pairing.js";
import { flipAnalysis } from "../../src/analysis/conditions/paired.js";
import { gridCells } from "../../src/analysis/grid/cells.js";
import { clustersOf } from "../../src/analysis/integrity/min-information.js";
import { columnValues, isFactorColumn } from "../../src/stats/index.js";

const row = (
  model: string,
  item: string,
  facets: Record<string, string>,
  outcome: number,
  extra: Partial<AnalysisRow> = {},
): AnalysisRow => ({
  trialId: null,
  model,
  benchmark: "b",
  item,
  cluster: clusterKey("b", item),
  attempt: 1,
  facets,
  outcome,
  parseFailed: false,
  errored: false,
  simulated: true,
  ...extra,
});

describe("grouping rows by what they share", () => {
  it("tallies each level's rows and successes in one pass", () => {
    const scored: ScoredRow[] = [
      { row: row("m", "1", { s: "a" }, 1), y: 1 },
      { row: row("m", "1", { s: "b" }, 0), y: 0 },
      { row: row("m", "2", { s: "a" }, 0), y: 0 },
      { row: row("m", "2", { s: "a" }, 1), y: 1 },
      { row: row("m", "3", { s: "c" }, 1), y: 1 },
    ];
    const tallies = levelTallies(scored, "s");
    assert.deepEqual([...tallies.keys()], ["a", "b", "c"]);
    assert.deepEqual(tallies.get("a"), { successes: 2, n: 3 });
    assert.deepEqual(tallies.get("b"), { successes: 0, n: 1 });
    assert.deepEqual(tallies.get("c"), { successes: 1, n: 1 });
  });

  it("counts the items of shared cases: two models on one item are one cluster", () => {
    const rows = [row("m1", "1", {}, 1), row("m2", "1", {}, 1), row("m1", "2", {}, 0), row("m1", "3", {}, 0)];
    const clusterOf = new Map(rows.map((r) => [caseKey(r), r.cluster]));
    assert.equal(clustersOf(new Set(rows.slice(0, 3).map(caseKey)), clusterOf), 2);
    assert.equal(clustersOf(new Set(rows.map(caseKey)), clusterOf), 3);
    assert.equal(clustersOf(new Set(), clusterOf), 0);
  });

  it("writes key parts as Array.join does", () => {
    assert.equal(["a", undefined, null, 2].map(joinText).join("|"), ["a", undefined, null, 2].join("|"));
  });

  it("puts rows in one grid cell by their values, whether or not they share a facets record", () => {
    const thresholds = normalizePlan({}).integrity;
    const shared = { template: "T1", other: "x" };
    const rows = [
      row("m", "1", shared, 1),
      row("m", "2", { template: "T1", other: "y" }, 0), // another record, same axis value: same cell
      row("m2", "1", shared, 0), // the same record under another model: another cell
      row("m", "3", { template: "T2", other: "x" }, 1),
      row("m", "4", { ...shared }, 1),
    ];
    const cells = gridCells(rows, ["template"], { population: "itt", thresholds });
    assert.deepEqual(
      cells.map((c) => [c.model, c.configuration, c.trials, c.score]),
      [
        ["m", "T1", 3, 2 / 3],
        ["m2", "T1", 1, 0],
        ["m", "T2", 1, 1],
      ],
    );
  });

  it("pairs flips by model, item, attempt and the other facets, on records shared or not", () => {
    const scored = (r: AnalysisRow): ScoredRow => ({ row: r, y: r.outcome ?? 0 });
    const reference = { s: "ref", format: "mc" };
    const rows = [
      row("m", "1", reference, 1),
      row("m", "1", { s: "cond", format: "mc" }, 0), // pairs with the row above: lost
      row("m", "1", { s: "ref", format: "oe" }, 0),
      row("m", "1", { s: "cond", format: "oe" }, 1), // pairs with the oe reference: gained
      row("m", "2", { ...reference }, 1),
      row("m", "2", { s: "cond", format: "mc" }, 1, { attempt: 2 }), // another attempt: no pair
      row("m2", "2", { s: "cond", format: "mc" }, 0), // another model: no pair
    ].map(scored);
    const [flips] = flipAnalysis(rows, { facet: "s", reference: "ref", levels: ["ref", "cond"] }, ["s", "format"]);
    assert.equal(flips.pairs, 2);
    assert.ok(flips.mcnemar && "b" in flips.mcnemar, "the flips have a McNemar count");
    assert.equal(flips.mcnemar.b + flips.mcnemar.c, 2);
  });

  it("lays the scored rows out as columns, a facet a row lacks left undefined", () => {
    const scored: ScoredRow[] = [
      { row: row("m1", "1", { s: "a", t: "x" }, 1), y: 1 },
      { row: row("m2", "2", { s: "b" }, 0, { benchmark: "c", cluster: clusterKey("c", "2") }), y: 0 },
      { row: row("m1", "3", { s: "a", t: "y" }, 1), y: 0 },
    ];
    const table = columnTable(scored, ["s", "t"]);
    const values = (name: string) => Array.from(columnValues(table[name]));
    assert.deepEqual(values("outcome"), [1, 0, 0]);
    assert.deepEqual(values("model"), ["m1", "m2", "m1"]);
    assert.deepEqual(values("benchmark"), ["b", "c", "b"]);
    assert.deepEqual(values("cluster"), [clusterKey("b", "1"), clusterKey("c", "2"), clusterKey("b", "3")]);
    assert.deepEqual(values("s"), ["a", "b", "a"]);
    assert.deepEqual(values("t"), ["x", undefined, "y"]);
    // Every column but the outcome is a factor column: a code per row into its distinct values.
    assert.ok(isFactorColumn(table.cluster) && isFactorColumn(table.t), "cluster and the facets are factor columns");
    assert.deepEqual(table.t.values, ["x", undefined, "y"]);
    assert.equal(Object.keys(table).length, 6, "outcome, model, benchmark, cluster and the two facets");
  });
});
