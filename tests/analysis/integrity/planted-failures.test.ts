/**
 * Planted failures (analysis.integrity.planted): a declared failure still fails the gate and
 * downgrades its verdicts; the summary explains it in one line, or says the plant did not occur;
 * the check is marked "(planted)" only when every cell it fails is a declared one; a declaration
 * naming no registered check is refused.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizePlan } from "../../../src/analysis/core/plan.js";
import { runIntegrityChecks } from "../../../src/analysis/integrity/gate.js";
import { failedCheckLabel, plantedLines } from "../../../src/analysis/integrity/planted.js";
import type { AnalysisRow } from "../../../src/analysis/core/table.js";
import type { AnalysisPlanInput } from "../../../src/contracts/analysis.js";
import { InputError } from "../../../src/core/errors.js";
import { type Reply, scoredRow } from "../../helpers/scored-trials.js";

/** A cell of 20 trials, `unparsed` of them without an answer. */
function cell(condition: string, benchmark: string, unparsed: number): AnalysisRow[] {
  return Array.from({ length: 20 }, (_, i) =>
    scoredRow({
      model: "m",
      benchmark,
      item: `${benchmark}-${i}`,
      facets: { scaffold: condition },
      reply: (i < unparsed ? "unparsed" : i % 3 === 0 ? "wrong" : "correct") as Reply,
    }),
  );
}

function gate(rows: AnalysisRow[], plan: AnalysisPlanInput) {
  return runIntegrityChecks({ rows, plan: normalizePlan(plan), comparisonFacet: "scaffold", reference: "direct" });
}

const PLANT = { check: "parse_failures", benchmarks: ["b1"], reason: "the cot prompt on b1 asks for no final answer" };

describe("planted integrity failures", () => {
  // cot on b1 leaves 12 of 20 answers unparsed: parse_failures fails that cell only.
  const rows = [
    ...cell("direct", "b1", 0),
    ...cell("cot", "b1", 12),
    ...cell("direct", "b2", 0),
    ...cell("cot", "b2", 0),
  ];

  it("a declared failure still fails the gate, and one line says it was planted and why", () => {
    const result = gate(rows, { integrity: { planted: [PLANT] } });
    assert.equal(result.failed, true, "a planted failure still fails the gate");
    const check = result.checks.find((c) => c.check === "parse_failures")!;
    assert.equal(check.status, "fail");
    assert.deepEqual(result.planted, [{ ...PLANT, occurred: true }]);
    assert.deepEqual(plantedLines(result.planted!), [
      "Planted on purpose: parse_failures on b1: the cot prompt on b1 asks for no final answer",
    ]);
    assert.equal(failedCheckLabel(result.planted!, check), "parse_failures (planted)");
  });

  it("a failure outside the declared benchmarks is not marked planted", () => {
    const both = [...rows.filter((r) => r.benchmark === "b1"), ...cell("direct", "b2", 0), ...cell("cot", "b2", 12)];
    const result = gate(both, { integrity: { planted: [PLANT] } });
    const check = result.checks.find((c) => c.check === "parse_failures")!;
    assert.deepEqual(check.cells.map((c) => c.benchmark).sort(), ["b1", "b2"]);
    assert.equal(failedCheckLabel(result.planted!, check), "parse_failures");
  });

  it("a declared failure that does not occur is reported as such", () => {
    const clean = rows.filter((r) => r.facets.scaffold === "direct" || r.benchmark === "b2");
    const result = gate([...clean, ...cell("cot", "b1", 0)], { integrity: { planted: [PLANT] } });
    assert.equal(result.failed, false);
    assert.deepEqual(plantedLines(result.planted!), [
      "Declared planted but it did not fail: parse_failures on b1 (the cot prompt on b1 asks for no final answer)",
    ]);
  });

  it("without a declaration nothing is marked planted, and the result carries no planted field", () => {
    const result = gate(rows, {});
    assert.equal(result.planted, undefined);
    const check = result.checks.find((c) => c.check === "parse_failures")!;
    assert.equal(failedCheckLabel([], check), "parse_failures");
  });

  it("a declaration naming no registered check is refused, naming the known ones", () => {
    assert.throws(
      () => gate(rows, { integrity: { planted: [{ check: "no_such_check", reason: "x" }] } }),
      (error: Error) =>
        error instanceof InputError &&
        /analysis\.integrity\.planted: no integrity check named 'no_such_check'; known: .*silent_no_op/.test(
          error.message,
        ),
    );
  });
});
