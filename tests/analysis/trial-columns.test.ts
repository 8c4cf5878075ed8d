/**
 * The study table's columns (trial-columns.ts) and the per-trial facts map (trial-id-map.ts): a
 * row read back as a view of the columns has every value of the row pushed, the keys a plain row
 * has and the same rows hash; the map answers as a Map holding the same entries would, for store
 * ids in order, out of order and ids of any other form.
 */
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { describe, it } from "node:test";
import { scoredPopulations, scoredRows } from "../../src/analysis/core/data.js";
import { rowsHash } from "../../src/analysis/core/inputs.js";
import { type AnalysisRow, clusterKey, type AnalysisTable } from "../../src/analysis/core/table.js";
import { plainRow, TrialColumns } from "../../src/analysis/core/trial-columns.js";
import { TrialIdMap, valueOfRow } from "../../src/analysis/core/trial-id-map.js";
import { seededRandom } from "../../src/stats/random.js";

function hexId(random: () => number): string {
  return Array.from({ length: 24 }, () => "0123456789abcdef"[Math.floor(random() * 16)]).join("");
}

/** Rows of every shape the loader makes: optional fields set or not, null and odd ids, errors. */
function randomRows(count: number, seed: number): AnalysisRow[] {
  const rng = seededRandom(seed);
  const random = () => rng.uniform();
  const facetRecords: Record<string, string>[] = [
    { scaffold: "direct" },
    { scaffold: "cot" },
    { scaffold: "react", format: "mc" },
  ];
  const audits: (Record<string, number> | undefined)[] = [
    undefined,
    { options_reached_share: 1 },
    { options_reached_share: 0.5, safety_reached_share: 1 },
  ];
  return Array.from({ length: count }, (_, i) => {
    const benchmark = random() < 0.5 ? "bbq" : "xstest";
    const item = `q${Math.floor(random() * 40)}`;
    const errored = random() < 0.1;
    const id = random() < 0.05 ? null : random() < 0.05 ? `imported-${i}` : hexId(random);
    const row: AnalysisRow = {
      trialId: id,
      model: random() < 0.5 ? "sim-a" : "sim-b",
      benchmark,
      item,
      cluster: clusterKey(benchmark, item),
      attempt: 1 + Math.floor(random() * 3),
      facets: facetRecords[Math.floor(random() * facetRecords.length)],
      outcome: errored || random() < 0.05 ? null : random() < 0.3 ? 0.25 : Math.round(random()),
      parseFailed: !errored && random() < 0.1,
      errored,
      simulated: random() < 0.8,
    };
    if (random() < 0.3) row.scorer = "strict";
    const audit = audits[Math.floor(random() * audits.length)];
    if (audit !== undefined) row.audit = audit;
    if (random() < 0.6) row.answer = "ABCD"[Math.floor(random() * 4)];
    if (random() < 0.1)
      row.agent = {
        toolCalls: Math.floor(random() * 5),
        toolErrors: 0,
        toolErrorMidTrajectory: false,
        recoveredAfterToolError: null,
        workingSeconds: random() * 10,
        inputTokens: 100,
        outputTokens: 20,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        costUsd: null,
        realizedCostUsd: null,
        failureBucket: null,
        flags: [],
      };
    if (random() < 0.5) row.modelRevision = "sim:medium@abc";
    return row;
  });
}

function tableOf(rows: AnalysisRow[]): AnalysisTable {
  return {
    rows,
    facets: ["scaffold", "format"],
    facetLevels: {},
    source: {
      kind: "study",
      path: "x",
      runId: null,
      study: null,
      simulated: false,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

describe("the study table's columns", () => {
  for (const seed of [1, 2, 3]) {
    it(`reads back every row pushed, as the row (seed ${seed})`, () => {
      const rows = randomRows(3_000, seed);
      const columns = new TrialColumns();
      const views = rows.map((row) => columns.push(row));
      assert.equal(columns.length, rows.length, "one place per row pushed");
      for (const [i, view] of views.entries()) {
        // The same values under the same keys (optional ones only when set), shared records shared.
        assert.deepEqual(plainRow(view), rows[i], `row ${i}`);
        assert.equal(view.facets, rows[i].facets, `row ${i}: the condition's facets record is shared`);
        assert.deepEqual(JSON.parse(JSON.stringify(view)), JSON.parse(JSON.stringify(rows[i])), `row ${i} as JSON`);
      }
      assert.equal(rowsHash(tableOf(views)), rowsHash(tableOf(rows)), "the rows hash of the views is the rows'");
      assert.match(inspect(views[0]), /trialId/, "a view prints as its values");
    });
  }

  it("refuses a write: rows are read-only to every analysis", () => {
    const columns = new TrialColumns();
    const view = columns.push(randomRows(1, 9)[0]);
    assert.throws(() => {
      (view as { outcome: number | null }).outcome = 1;
    }, TypeError);
  });

  it("serves the ITT population from the rows' own list when every row counts, and lists it apart otherwise", () => {
    // Rows that all count under ITT: no errors and every one scored.
    const counted = randomRows(2_000, 11).map((row) => ({
      ...row,
      errored: false,
      outcome: row.outcome === null ? 0 : row.outcome,
    }));
    const columns = new TrialColumns();
    const views = counted.map((row) => columns.push(row));
    const { itt, pp } = scoredPopulations(views);
    assert.equal(itt, views, "the views are their own ITT scored rows: their list serves");
    assert.deepEqual(
      itt.map((s) => [s.row.trialId, s.y]),
      scoredRows(counted, "itt").map((s) => [s.row.trialId, s.y]),
      "the same rows and scores as plain rows give",
    );
    assert.ok(
      pp.length < itt.length && pp !== (views as unknown),
      "PP leaves the parse failures out, in a list of its own",
    );
    // One errored row: the population is a list of its own, without it, the rows' list untouched.
    const withError = [...views.slice(0, 10), columns.push({ ...counted[10], errored: true, outcome: null })];
    const listed = scoredRows(withError, "itt");
    assert.notEqual(listed, withError, "a list of its own when a row drops out");
    assert.equal(listed.length, 10, "the errored row is left out");
    assert.equal(withError.length, 11, "the rows' list is not changed");
  });

  it("gives a plain row back as it is", () => {
    const row = randomRows(1, 4)[0];
    assert.equal(plainRow(row), row, "no copy of a row that is not a view");
  });
});

describe("the per-trial facts map", () => {
  for (const seed of [5, 6]) {
    it(`answers as a Map of the same entries (seed ${seed})`, () => {
      const rng = seededRandom(seed);
      const random = () => rng.uniform();
      const values = [{ scorer: "mc" }, { scorer: "judge" }, { scorer: null }];
      // Store ids in ascending order (as the store pages them), then stragglers out of order and odd ids.
      const sortedIds = [...new Set(Array.from({ length: 5_000 }, () => hexId(random)))].sort();
      const late = Array.from({ length: 200 }, () => hexId(random));
      const odd = ["trial-1", "", "ABCDEFABCDEFABCDEFABCDEF", "0123"];
      const map = new TrialIdMap<(typeof values)[number]>();
      const expected = new Map<string, (typeof values)[number]>();
      for (const id of [...sortedIds, ...late, ...odd]) {
        const value = values[Math.floor(random() * values.length)];
        map.set(id, value);
        expected.set(id, value);
      }
      // Setting a known id again replaces its value and adds no entry.
      for (const id of [sortedIds[17], late[3], odd[0]]) {
        map.set(id, values[2]);
        expected.set(id, values[2]);
      }
      assert.equal(map.size, expected.size, "one entry per id");
      for (const [id, value] of expected) {
        assert.equal(map.get(id), value, `get ${id}`);
        assert.ok(map.has(id), `has ${id}`);
      }
      for (const id of ["ffffffffffffffffffffffff", "000000000000000000000000", "nope", hexId(random)])
        if (!expected.has(id)) assert.equal(map.get(id), undefined, `no entry for ${id}`);
      assert.deepEqual(new Map(map), expected, "the same entries when iterated");
      assert.deepEqual([...map.keys()].sort(), [...expected.keys()].sort(), "the same keys");
    });

    it(`finds a view's value by its id's bytes as by its id (seed ${seed})`, () => {
      const rng = seededRandom(seed + 100);
      const random = () => rng.uniform();
      const rows = randomRows(400, seed + 100);
      const columns = new TrialColumns();
      const views = rows.map((row) => columns.push(row));
      const values = ["a", "b", "c"] as const;
      // Facts of some of the trials, in id order: the store's order.
      const ordered = new TrialIdMap<string>();
      const plain = new Map<string, string>();
      const ids = rows.flatMap((r) => (r.trialId !== null && random() < 0.7 ? [r.trialId] : [])).sort();
      for (const id of new Set(ids)) {
        const value = values[Math.floor(random() * values.length)];
        ordered.set(id, value);
        plain.set(id, value);
      }
      const check = (map: ReadonlyMap<string, string>) => {
        for (const [i, view] of views.entries()) {
          const id = rows[i].trialId;
          assert.equal(valueOfRow(map, view), id === null ? undefined : plain.get(id), `row ${i} (${id})`);
          assert.equal(valueOfRow(map, rows[i]), id === null ? undefined : plain.get(id), `plain row ${i}`);
        }
      };
      check(ordered);
      check(plain);
      // A store id set out of order is kept by its string; the bytes path still finds it.
      const late = rows.find((r) => r.trialId !== null && /^[0-9a-f]{24}$/.test(r.trialId) && !plain.has(r.trialId));
      if (late?.trialId) {
        ordered.set(late.trialId, "late");
        plain.set(late.trialId, "late");
        check(ordered);
      }
    });
  }
});
