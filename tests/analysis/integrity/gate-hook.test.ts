/**
 * The gate's hook: an analysis registered from outside the core, with verdicts of its own, has
 * them downgraded by a failing integrity check through its `gate` hook; gate.ts names no result.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { type AnalysisRow, type AnalysisTable, analyzeStudy, normalizePlan } from "../../../src/analysis/index.js";
import { registerAnalysis } from "../../../src/analysis/core/registry.js";
import type { VerdictGate } from "../../../src/analysis/integrity/registry.js";
import { plantedTable } from "../helpers.js";

interface OutsideVerdict {
  condition: string;
  benchmark: string;
  verdict: string;
}

declare module "../../../src/analysis/core/registry.js" {
  interface AnalysisResults {
    outsideVerdicts: OutsideVerdict[];
  }
}

/** Each condition's verdict in each benchmark: it reads that cell and the reference's. */
registerAnalysis({
  name: "outsideVerdicts",
  kinds: ["comparison"],
  plan: z.object({}),
  result: "outsideVerdicts",
  run: (ctx) =>
    ctx.benchmarks.flatMap((benchmark) =>
      ctx.resolved.levels
        .filter((l) => l !== ctx.resolved.reference)
        .map((condition) => ({ condition, benchmark, verdict: "holds" })),
    ),
  gate: (verdicts: OutsideVerdict[], gate: VerdictGate) => {
    for (const v of verdicts) {
      const failure = gate.cellFailure(v.benchmark, [v.condition, gate.reference]);
      if (!failure) continue;
      v.verdict = `not interpretable: ${failure.reason}`;
      gate.downgraded(failure, `outside ${v.benchmark} ${v.condition}`);
    }
  },
});

const FAST = normalizePlan({ bootstrap: { resamples: 200 }, specification_curve: false });

function planted(): AnalysisTable {
  return plantedTable({
    seed: 11,
    models: { m1: 0, m2: -0.05 },
    benchmarks: ["b1", "b2"],
    itemsPerBenchmark: 40,
    effects: { direct: 0, cot: -0.05, map_reduce: 0.02 },
  });
}

/** Half of one cell's answers unreadable: parse_failures fails that cell. */
function unparsed(table: AnalysisTable, condition: string, benchmark: string): AnalysisTable {
  let i = 0;
  for (const row of table.rows as AnalysisRow[]) {
    if (row.facets.scaffold !== condition || row.benchmark !== benchmark) continue;
    if (i++ % 2 === 0) {
      row.parseFailed = true;
      row.outcome = 0;
    }
  }
  return table;
}

const verdictsOf = (result: { outsideVerdicts: OutsideVerdict[] }) =>
  Object.fromEntries(result.outsideVerdicts.map((v) => [`${v.benchmark} ${v.condition}`, v.verdict]));

describe("an analysis registered from outside with a gate hook", () => {
  it("keeps its verdicts on a clean table", async () => {
    const result = await analyzeStudy(planted(), FAST);
    assert.equal(result.integrity.failed, false);
    assert.deepEqual(verdictsOf(result), {
      "b1 cot": "holds",
      "b1 map_reduce": "holds",
      "b2 cot": "holds",
      "b2 map_reduce": "holds",
    });
  });

  it("has the verdict on a failing cell downgraded and recorded on the failing check, and no other", async () => {
    const result = await analyzeStudy(unparsed(planted(), "cot", "b1"), FAST);
    const verdicts = verdictsOf(result);
    assert.match(verdicts["b1 cot"], /^not interpretable: \d+% of answers not parsed$/);
    assert.deepEqual(
      { ...verdicts, "b1 cot": "-" },
      { "b1 cot": "-", "b1 map_reduce": "holds", "b2 cot": "holds", "b2 map_reduce": "holds" },
    );
    const parse = result.integrity.checks.find((c) => c.check === "parse_failures");
    assert.ok(parse, "parse_failures is reported");
    assert.equal(parse.status, "fail");
    const outside = parse.downgraded.filter((d) => d.startsWith("outside "));
    assert.deepEqual(outside, ["outside b1 cot"]);
  });

  it("reads the reference's cell too: a failing reference downgrades every condition of that benchmark", async () => {
    const result = await analyzeStudy(unparsed(planted(), "direct", "b2"), FAST);
    assert.deepEqual(
      Object.entries(verdictsOf(result))
        .filter(([, v]) => v !== "holds")
        .map(([k]) => k),
      ["b2 cot", "b2 map_reduce"],
    );
  });
});
