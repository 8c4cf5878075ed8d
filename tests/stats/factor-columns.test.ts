/**
 * Factor columns (a code per row into the column's distinct values) give every fitter the same
 * result, to the last bit, as the same values held one per row: the same levels and reference,
 * the same cluster numbering for the robust covariance, the same cells for ANOVA, the G-study and
 * the random-intercept model, and the same message for a value that is not a declared level.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  anova,
  binomialRegression,
  type Column,
  columnValues,
  FactorColumnBuilder,
  generalizabilityStudy,
  glmmRegression,
  isFactorColumn,
  labelCodes,
  rowKeys,
  sortedLevels,
  type Table,
} from "../../src/stats/index.js";
import { clusterCodes } from "../../src/stats/models/glm.js";
import { seededRandom } from "../../src/stats/random.js";

/** Rows of a crossed design with planted effects, cases in runs and out of order. */
function plainTable(n: number, seed: number): Record<string, Column> {
  const rng = seededRandom(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(rng.uniform() * values.length)];
  const scaffold: string[] = [];
  const model: string[] = [];
  const cluster: string[] = [];
  const outcome = new Float64Array(n);
  const score = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    // Runs of one model, as a study's rows come; clusters in no order.
    model.push(`m${Math.floor((i / n) * 3)}`);
    scaffold.push(pick(["direct", "cot", "map_reduce"]));
    cluster.push(`item-${Math.floor(rng.uniform() * 60)}`);
    const eta = -0.3 + (scaffold[i] === "map_reduce" ? -0.8 : 0) + (model[i] === "m2" ? 0.6 : 0);
    outcome[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    score[i] = eta + rng.uniform();
  }
  return { scaffold, model, cluster, outcome, score };
}

/** The same table with its string columns as factor columns. */
function factorTable(table: Record<string, Column>): Table {
  const out: Record<string, Column> = {};
  for (const [name, column] of Object.entries(table)) {
    if (column instanceof Float64Array) {
      out[name] = column;
      continue;
    }
    const builder = new FactorColumnBuilder(column.length);
    const values = columnValues(column);
    for (let i = 0; i < values.length; i++) builder.set(i, values[i]);
    out[name] = builder.column();
  }
  return out;
}

describe("factor columns", () => {
  const plain = plainTable(3_000, 11);
  const coded = factorTable(plain);

  it("hold the values they were given, each distinct value once", () => {
    for (const name of ["scaffold", "model", "cluster"]) {
      const column = coded[name];
      assert.ok(isFactorColumn(column), `${name} is a factor column`);
      assert.deepEqual(Array.from(columnValues(column)), plain[name]);
      assert.equal(new Set(column.values).size, column.values.length);
      assert.deepEqual(sortedLevels(column), sortedLevels(plain[name]));
    }
  });

  it("code their labels as the plain column does: first-seen, values of one label sharing a code", () => {
    for (const name of ["scaffold", "model", "cluster"]) {
      const fromFactor = labelCodes(coded[name]);
      const fromPlain = labelCodes(plain[name]);
      assert.deepEqual(fromFactor.labels, fromPlain.labels, name);
      assert.deepEqual(Array.from(fromFactor.codes), Array.from(fromPlain.codes), name);
    }
    // 1 and "1" are one label, as a table of cells names them.
    const builder = new FactorColumnBuilder(4);
    for (const [row, value] of ([2, 1, "1", 2] as const).entries()) builder.set(row, value);
    const mixed = labelCodes(builder.column());
    assert.deepEqual(mixed.labels, ["2", "1"]);
    assert.deepEqual(Array.from(mixed.codes), [0, 1, 1, 0]);
    assert.deepEqual(labelCodes([2, 1, "1", 2]), mixed);
  });

  it("key rows by their codes: equal codes share a key, as a number or past 2^53 combinations as text", () => {
    const small = [labelCodes(["a", "b", "a", "b"]), labelCodes([1, 1, 1, 2])];
    const keyOf = rowKeys(small);
    assert.deepEqual([0, 1, 2, 3].map(keyOf), [0, 2, 0, 3]);
    // Four columns of 2^14 labels each: 2^56 combinations, more than a double counts exactly.
    const labels = Array.from({ length: 2 ** 14 }, (_, i) => `level ${i}`);
    const wide = { codes: Uint32Array.from([0, 16_383, 0]), labels };
    const textKeyOf = rowKeys([wide, wide, wide, wide]);
    assert.equal(textKeyOf(0), "0,0,0,0");
    assert.equal(textKeyOf(2), textKeyOf(0), "equal codes, one key");
    assert.notEqual(textKeyOf(1), textKeyOf(0));
  });

  it("number clusters as the plain column does: in the order rows first show them", () => {
    assert.deepEqual(clusterCodes(coded.cluster, 3_000), clusterCodes(plain.cluster, 3_000));
  });

  it("give a cluster-robust logistic regression's numbers to the last bit", () => {
    const options = { factors: { scaffold: { reference: "direct" } }, cluster: "cluster" };
    const a = binomialRegression(plain, "outcome ~ scaffold + model", options);
    const b = binomialRegression(coded, "outcome ~ scaffold + model", options);
    assert.deepEqual(b.design.columnNames, a.design.columnNames);
    assert.deepEqual(b.design.factorLevels, a.design.factorLevels);
    assert.deepEqual(b.coefficients, a.coefficients);
    assert.deepEqual(b.covariance, a.covariance);
    assert.equal(b.nClusters, a.nClusters);
    // The planted harm of map_reduce is found.
    const j = a.design.columnNames.indexOf("scaffold[T.map_reduce]");
    assert.ok(a.coefficients[j] < -0.4, `map_reduce ${a.coefficients[j]}`);
  });

  it("give ANOVA, the G-study and the random-intercept model the same results", () => {
    const spec = { response: "score", terms: ["scaffold", "model", "scaffold:model"] };
    assert.deepEqual(anova(coded, spec), anova(plain, spec));
    const g = { object: "model", facets: ["scaffold"], value: "score" };
    assert.deepEqual(generalizabilityStudy(coded, g), generalizabilityStudy(plain, g));
    const formula = "outcome ~ scaffold + (1 | cluster)";
    const options = { factors: { scaffold: { reference: "direct" } } };
    assert.deepEqual(glmmRegression(coded, formula, options), glmmRegression(plain, formula, options));
  });

  it("name the row of a value that is not a declared level, as a plain column does", () => {
    const options = { factors: { scaffold: { levels: ["direct", "cot"] } } };
    const message = (table: Table) => {
      try {
        binomialRegression(table, "outcome ~ scaffold", options);
        return "no error";
      } catch (error) {
        return (error as Error).message;
      }
    };
    assert.match(message(plain), /map_reduce/);
    assert.equal(message(coded), message(plain));
  });
});
