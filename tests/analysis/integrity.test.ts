/**
 * The measurement-integrity gate: checks run on the cells each verdict uses; a verdict on a cell
 * failing a check is "not interpretable: <reason>", and no other verdict changes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type AnalysisRow,
  type AnalysisTable,
  analyzeStudy,
  formatSummary,
  normalizePlan,
  type StudyAnalysis,
} from "../../src/analysis/index.js";
import { plantedTable } from "./helpers.js";

const METHODOLOGY = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

const FAST = { bootstrap: { resamples: 200 }, specification_curve: false as const };

function planted(): AnalysisTable {
  return plantedTable({
    seed: 11,
    models: { m1: 0, m2: -0.05 },
    benchmarks: ["b1", "b2"],
    itemsPerBenchmark: 40,
    effects: { direct: 0, cot: -0.05, map_reduce: 0.02 },
  });
}

/** Marks every `every`-th row of one cell (condition x benchmark) with `change`. */
function plant(
  table: AnalysisTable,
  condition: string,
  benchmark: string,
  every: number,
  change: (r: AnalysisRow) => void,
) {
  let i = 0;
  for (const row of table.rows) {
    if (row.facets.scaffold !== condition || row.benchmark !== benchmark) continue;
    if (i++ % every === 0) change(row);
  }
}

const parseFail = (r: AnalysisRow) => {
  r.parseFailed = true;
  r.outcome = 0;
};

/** "ITT pooled cot" / "ITT model m1 cot" -> verdict, for every contrast of both populations. */
function verdicts(result: StudyAnalysis): Map<string, string> {
  const out = new Map<string, string>();
  for (const population of ["itt", "pp"] as const) {
    const { pooled, byBenchmark, byModel } = result.contrasts[population];
    for (const scope of [pooled, ...byBenchmark, ...(byModel ?? [])])
      for (const c of scope.contrasts)
        out.set(
          `${population.toUpperCase()} ${scope.kind === "model" ? "model " : ""}${scope.scope} ${c.condition}`,
          c.verdict,
        );
  }
  return out;
}

function check(result: StudyAnalysis, name: string) {
  const found = result.integrity.checks.find((c) => c.check === name);
  assert.ok(found, `check ${name} is reported`);
  return found;
}

describe("the integrity gate", () => {
  it("a planted parse-failure imbalance downgrades exactly the contrasts that use the cell", async () => {
    const clean = await analyzeStudy(planted(), normalizePlan(FAST));
    assert.equal(clean.integrity.failed, false);
    assert.ok(
      clean.integrity.checks.every((c) => c.status !== "fail"),
      'expected clean.integrity.checks.every((c) => c.status !== "fail")',
    );
    const before = verdicts(clean);
    assert.ok(
      [...before.values()].every((v) => !v.startsWith("not interpretable")),
      'expected [...before.values()].every((v) => !v.startsWith("not interpretable"))',
    );

    const table = planted();
    plant(table, "cot", "b1", 2, parseFail); // half of cot's answers in b1 unreadable
    const result = await analyzeStudy(table, normalizePlan(FAST));
    const after = verdicts(result);
    // Each model's scope pools that model's benchmarks, b1 included: it uses the cell too.
    const affected = ["ITT pooled cot", "ITT b1 cot", "PP pooled cot", "PP b1 cot"].concat(
      ["ITT", "PP"].flatMap((p) => ["m1", "m2"].map((m) => `${p} model ${m} cot`)),
    );
    for (const [label, verdict] of after) {
      if (affected.includes(label)) assert.match(verdict, /^not interpretable: \d+% of answers not parsed$/, label);
      else assert.ok(!verdict.startsWith("not interpretable"), `${label}: ${verdict}`);
    }
    // Unaffected contrasts keep the verdict they had (map_reduce's cells and the reference are untouched).
    for (const label of ["ITT pooled map_reduce", "ITT b1 map_reduce", "ITT b2 map_reduce", "PP b2 map_reduce"])
      assert.equal(after.get(label), before.get(label), label);

    const parse = check(result, "parse_failures");
    assert.equal(parse.status, "fail");
    assert.deepEqual(
      parse.cells.map((c) => `${c.condition}/${c.benchmark}`),
      ["cot/b1"],
    );
    assert.deepEqual([...parse.downgraded].sort(), [...affected, "flips all cot", "flips b1 cot"].sort());
    assert.equal(check(result, "parse_imbalance").status, "fail");
    assert.equal(check(result, "nothing_measured").status, "pass");
    assert.equal(result.integrity.failed, true);
    // Paired flips on the cell are downgraded too, and only those.
    const flips = result.paired.flips.map((f) => [`${f.benchmark} ${f.condition}`, Boolean(f.notInterpretable)]);
    assert.deepEqual(
      flips.filter(([, downgraded]) => downgraded).map(([label]) => label),
      ["all cot", "b1 cot"].filter((l) => flips.some(([label]) => label === l)),
    );
    assert.ok(
      flips.some(([label]) => label === "b1 cot"),
      JSON.stringify(flips),
    );
    // The scorecard's NNH row no longer claims equivalence for a downgraded contrast.
    const nnh = result.contrasts.itt.pooled.contrasts.find((c) => c.condition === "cot");
    assert.ok(nnh?.notInterpretable, "expected nnh?.notInterpretable");
  });

  it("thresholds come from the plan: raised above the planted share, nothing is downgraded", async () => {
    const table = planted();
    plant(table, "cot", "b1", 2, parseFail);
    const result = await analyzeStudy(
      table,
      normalizePlan({ ...FAST, integrity: { parse_failures: 0.6, parse_imbalance: 0.6 } }),
    );
    assert.equal(result.integrity.failed, false);
    assert.ok(
      [...verdicts(result).values()].every((v) => !v.startsWith("not interpretable")),
      'expected [...verdicts(result).values()].every((v) => !v.startsWith("not interpretable"))',
    );
  });

  it("a cell where no answer parsed is 'nothing measured': every verdict using it is not interpretable", async () => {
    const table = planted();
    plant(table, "map_reduce", "b2", 1, parseFail);
    const result = await analyzeStudy(table, normalizePlan(FAST));
    const nothing = check(result, "nothing_measured");
    assert.equal(nothing.status, "fail");
    assert.deepEqual(nothing.cells, [
      { condition: "map_reduce", benchmark: "b2", status: "fail", reason: "no answer parsed" },
    ]);
    const after = verdicts(result);
    for (const label of ["ITT pooled map_reduce", "ITT b2 map_reduce", "PP pooled map_reduce"])
      assert.equal(after.get(label), "not interpretable: no answer parsed", label);
    assert.ok(
      !after.get("ITT b1 map_reduce")?.startsWith("not interpretable"),
      'expected !after.get("ITT b1 map_reduce")?.startsWith("not interpretable")',
    );
    // The parse-failure check names the cell too; the verdict gives the first check's reason.
    assert.deepEqual(check(result, "parse_failures").cells, [
      { condition: "map_reduce", benchmark: "b2", status: "fail", reason: "100% of answers not parsed" },
    ]);
    const text = formatSummary(result, METHODOLOGY);
    assert.match(text, /measurement integrity/);
    assert.match(text, /MEASUREMENT INTEGRITY FAILED/);
    assert.ok(
      text.indexOf("measurement integrity") < text.indexOf("each condition vs the reference"),
      'expected text.indexOf("measurement integrity") < text.indexOf("each condition vs the reference")',
    );
  });

  it("every trial errored, or errored trials beyond the declared share, fail their cells", async () => {
    const errored = (r: AnalysisRow) => {
      r.errored = true;
      r.outcome = null;
    };
    const table = planted();
    plant(table, "cot", "b2", 1, errored);
    plant(table, "map_reduce", "b1", 3, errored); // a third of the cell
    const result = await analyzeStudy(table, normalizePlan(FAST));
    assert.deepEqual(check(result, "nothing_measured").cells, [
      { condition: "cot", benchmark: "b2", status: "fail", reason: "every trial errored" },
    ]);
    const share = check(result, "errored");
    assert.equal(share.status, "fail");
    // A cell where every trial errored fails here too: "excluded: pass" would claim something was left.
    assert.deepEqual(share.cells.map((c) => `${c.condition}/${c.benchmark}`).sort(), ["cot/b2", "map_reduce/b1"]);
    assert.match(verdicts(result).get("ITT b1 map_reduce") ?? "", /^not interpretable: 3\d% of trials errored/);
  });

  it("propagation is 'not available' without audit columns, and fails a cell whose options reached no call", async () => {
    const table = planted();
    const none = await analyzeStudy(table, normalizePlan(FAST));
    assert.equal(check(none, "propagation").status, "not available");
    for (const row of table.rows) row.audit = { options_reached_share: 1, safety_reached_share: 1 };
    assert.equal(check(await analyzeStudy(table, normalizePlan(FAST)), "propagation").status, "pass");
    plant(table, "cot", "b1", 1, (r) => {
      r.audit = { options_reached_share: 0, safety_reached_share: 1 };
    });
    const lost = await analyzeStudy(table, normalizePlan(FAST));
    const propagation = check(lost, "propagation");
    assert.equal(propagation.status, "fail");
    assert.deepEqual(propagation.cells, [
      { condition: "cot", benchmark: "b1", status: "fail", reason: "options reached no call in 100% of trials" },
    ]);
    assert.equal(verdicts(lost).get("ITT b1 cot"), "not interpretable: options reached no call in 100% of trials");
    assert.ok(
      !verdicts(lost).get("ITT b2 cot")?.startsWith("not interpretable"),
      'expected !verdicts(lost).get("ITT b2 cot")?.startsWith("not interpretable")',
    );
  });

  it("judge quality: kappa below the floor or a failed blinding check fails every cell; unknown is not available", async () => {
    const judges = (kappa: number | null, blindingIndex: number | null) => ({
      agreement: { crossValidated: kappa !== null, kappa, details: {}, source: "judge-agreement.json", note: "" },
      blinding: { blinded: true, blindingIndex, details: {}, source: "blinding.json", note: "" },
    });
    const none = await analyzeStudy(planted(), normalizePlan(FAST));
    assert.equal(check(none, "judge_quality").status, "not available");
    const good = await analyzeStudy(planted(), normalizePlan(FAST), { judges: judges(0.8, 0.05) });
    assert.equal(check(good, "judge_quality").status, "pass");
    assert.equal(good.integrity.failed, false);
    const weak = await analyzeStudy(planted(), normalizePlan(FAST), { judges: judges(0.41, null) });
    assert.equal(check(weak, "judge_quality").status, "fail");
    for (const [label, verdict] of verdicts(weak))
      assert.equal(verdict, "not interpretable: judge agreement kappa 0.41 below 0.6", label);
    const unblinded = await analyzeStudy(planted(), normalizePlan(FAST), { judges: judges(0.8, 0.5) });
    assert.match(verdicts(unblinded).get("ITT pooled cot") ?? "", /blinding check failed \(blinding index 0.50\)/);
    // The floor is the plan's.
    const lowered = await analyzeStudy(planted(), normalizePlan({ ...FAST, integrity: { judge_kappa: 0.4 } }), {
      judges: judges(0.41, null),
    });
    assert.equal(check(lowered, "judge_quality").status, "pass");
  });

  it("judge quality reaches only the cells a judge scored: b2 scored by a deterministic scorer stays interpretable", async () => {
    const table = planted();
    // The run-time scorer of each trial comes from the study directory's facts (rows carry a
    // scorer only for stored rescorings).
    const trials = new Map<string, { scorer: string | null; format: string | null }>();
    table.rows.forEach((row, i) => {
      row.trialId = `t${i}`;
      trials.set(row.trialId, {
        scorer: row.benchmark === "b1" ? "judge:j1@1.0.0" : "mc_last_answer@1.1.0",
        format: "oe",
      });
    });
    const weak = await analyzeStudy(table, normalizePlan(FAST), {
      integrityFacts: { scoring: { loaders: { b1: "inline", b2: "inline" }, trials } },
      judges: {
        agreement: { crossValidated: true, kappa: 0.41, details: {}, source: "judge-agreement.json", note: "" },
        blinding: { blinded: true, blindingIndex: null, details: {}, source: "blinding.json", note: "" },
      },
    });
    const cells = check(weak, "judge_quality").cells;
    assert.ok(cells.length > 0, "expected cells.length > 0");
    assert.ok(
      cells.every((c) => c.benchmark === "b1"),
      JSON.stringify(cells),
    );
    assert.match(verdicts(weak).get("ITT b1 cot") ?? "", /^not interpretable: judge agreement kappa 0.41/);
    assert.ok(!verdicts(weak).get("ITT b2 cot")?.startsWith("not interpretable"), verdicts(weak).get("ITT b2 cot"));
  });
});
