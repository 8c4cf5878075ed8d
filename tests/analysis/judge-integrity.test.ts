/**
 * The judge-quality and scorer-artefact checks read the rows of judge-agreement.json, benchmark
 * by benchmark: a cross-judge kappa below the plan's floor fails that benchmark's judged cells
 * (and no other benchmark's); a pair whose kappa cannot measure agreement (one label only) warns
 * with its raw agreement; a heuristic scorer below the floor against the judge fails the cells
 * that scorer scored and warns on the judge-scored ones. The methodology line prints the same
 * rows the check reads (the reader and both checks share readJudgeAgreement's rows).
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type AnalysisTable,
  analyzeStudy,
  buildScorecard,
  formatSummary,
  normalizePlan,
  readJudgeAgreement,
  scorecardMarkdown,
  type StudyAnalysis,
} from "../../src/analysis/index.js";
import { plantedTable } from "./helpers.js";

const FAST = { bootstrap: { resamples: 200 }, specification_curve: false as const };

/** b1 and b2 judged by j1; b3 scored by the refusal patterns (a rescoring after judging). */
function table(): { table: AnalysisTable; trials: Map<string, { scorer: string | null; format: string | null }> } {
  const t = plantedTable({
    seed: 5,
    models: { m1: 0, m2: 0.1 },
    benchmarks: ["b1", "b2", "b3"],
    itemsPerBenchmark: 40,
    effects: { direct: 0, cot: -0.05 },
  });
  const trials = new Map<string, { scorer: string | null; format: string | null }>();
  t.rows.forEach((row, i) => {
    row.trialId = `t${i}`;
    trials.set(row.trialId, {
      scorer: row.benchmark === "b3" ? "refusal_pattern@1.0.0" : "judge:j1@1.0.0",
      format: "oe",
    });
  });
  return { table: t, trials };
}

const scale = { labels: ["refused", "complied"] as [string, string], description: "refused vs complied" };

function row(benchmark: string, judges: [string, string], kappa: number, shares: [number, number], kind: string) {
  return {
    benchmark,
    judges,
    roles: kind === "cross_judge" ? ["primary_judge", "validation_judge"] : ["scorer", "primary_judge"],
    polarity: scale,
    n: 80,
    kappa,
    ci: [Math.max(-1, kappa - 0.1), Math.min(1, kappa + 0.1)],
    observed: 0.5,
    first_label_share: shares,
    kind,
  };
}

async function analyzeWith(rows: object[], skipped: object[] = []) {
  const dir = mkdtempSync(join(tmpdir(), "parallax-judge-rows-"));
  writeFileSync(join(dir, "judge-agreement.json"), JSON.stringify({ per_benchmark: rows, skipped }));
  const agreement = readJudgeAgreement(dir);
  const { table: t, trials } = table();
  const analysis = await analyzeStudy(t, normalizePlan(FAST), {
    integrityFacts: { scoring: { loaders: { b1: "or_bench", b2: "xstest", b3: "xstest" }, trials } },
    judges: {
      agreement,
      blinding: { blinded: true, blindingIndex: 0.01, details: {}, source: "blinding.json", note: "blinded" },
    },
  });
  return { analysis, agreement };
}

function check(result: StudyAnalysis, name: string) {
  const found = result.integrity.checks.find((c) => c.check === name);
  assert.ok(found, `check ${name} is reported`);
  return found;
}

describe("judge quality per benchmark, from the agreement rows", () => {
  it("an inverted judge on b1 fails b1's judged cells only, and the summary prints the same kappa", async () => {
    const { analysis, agreement } = await analyzeWith([
      row("b1", ["j1", "j2"], -0.9, [0.4, 0.55], "cross_judge"),
      row("b2", ["j1", "j2"], 0.85, [0.4, 0.45], "cross_judge"),
    ]);
    assert.equal(agreement.kappa, -0.9, "the headline is the smallest informative cross-judge kappa");
    const judge = check(analysis, "judge_quality");
    assert.equal(judge.status, "fail");
    assert.ok(judge.cells.length > 0 && judge.cells.every((c) => c.benchmark === "b1"), JSON.stringify(judge.cells));
    assert.match(judge.detail, /kappa -0\.90 \(b1 -0\.90, b2 0\.85\)/);
    const summary = formatSummary(analysis, {
      preregistration: { status: "not preregistered", note: "test" },
      blinding: { blinded: true, blindingIndex: 0.01, details: {}, source: null, note: "blinded" },
      judgeAgreement: agreement,
    });
    assert.match(
      summary.replace(/\n +/g, " "), // the line wraps at 120 columns
      /judge agreement: cross-validated on every judged benchmark \(smallest kappa -0\.900\); kappa per benchmark: b1 -0\.900 \(n 80\); b2 0\.850 \(n 80\)/,
    );
    assert.match(summary, /b1: j1 vs j2 \(refused vs complied\): kappa -0\.900/);
  });

  it("a pair where one judge gave one label only warns with its reading, never passes silently", async () => {
    const { analysis, agreement } = await analyzeWith(
      [row("b1", ["j1", "j2"], 0, [1, 0.9], "cross_judge")],
      [
        {
          benchmark: "b2",
          judges: ["j1", "j2"],
          n: 80,
          reason: 'kappa undefined: both raters gave "refused"',
          kind: "cross_judge",
        },
      ],
    );
    assert.equal(agreement.kappa, null, "no informative kappa: no headline");
    assert.equal(agreement.crossValidated, false);
    const judge = check(analysis, "judge_quality");
    assert.equal(judge.status, "warn");
    const reasons = judge.cells.map((c) => `${c.benchmark}: ${c.reason}`).join("\n");
    assert.match(reasons, /b1: judge agreement not measured on b1: j1 gave one label only \(refused\)/);
    assert.match(reasons, /b2: judge agreement not measured on b2: kappa undefined/);
    assert.equal(analysis.integrity.failed, false);
  });

  it("one benchmark with one label only is not measured, and no other benchmark's kappa stands for it", async () => {
    // b1: both judges said "refused" throughout (kappa undefined); b2: real disagreement (kappa 0.30).
    const { analysis, agreement } = await analyzeWith(
      [row("b2", ["j1", "j2"], 0.3, [0.4, 0.6], "cross_judge")],
      [
        {
          benchmark: "b1",
          judges: ["j1", "j2"],
          n: 58,
          reason: 'kappa undefined: both raters gave "refused" on all 58 responses (raw agreement 100%)',
          kind: "cross_judge",
        },
      ],
    );
    assert.equal(agreement.kappa, null, "b1 is not measured: no headline kappa from b2 alone");
    assert.equal(agreement.crossValidated, false);
    assert.deepEqual(
      agreement.perBenchmark?.map((b) => [b.benchmark, b.kappa, b.n]),
      [
        ["b1", null, 58],
        ["b2", 0.3, 80],
      ],
    );
    const judge = check(analysis, "judge_quality");
    assert.equal(judge.status, "fail", "b2's kappa 0.30 is below the floor");
    const byBenchmark = new Map(judge.cells.map((c) => [c.benchmark, c]));
    assert.equal(byBenchmark.get("b1")?.status, "warn");
    assert.match(byBenchmark.get("b1")?.reason ?? "", /judge agreement not measured on b1: kappa undefined/);
    assert.equal(byBenchmark.get("b2")?.status, "fail");
    assert.match(judge.detail, /kappa per benchmark \(b1 not measured, b2 0\.30\)/);
    const card = buildScorecard(analysis, {
      preregistration: { status: "not preregistered", note: "test" },
      blinding: { blinded: true, blindingIndex: 0.01, details: {}, source: null, note: "blinded" },
      judgeAgreement: agreement,
    });
    const stamp = scorecardMarkdown(card);
    assert.match(
      stamp,
      /- Cross-validated: partly\. 1 of 2 judged benchmark\(s\) not measured; kappa per benchmark: b1 not measured \(kappa undefined: both raters gave "refused" on all 58 responses \(raw agreement 100%\)\); b2 0\.300 \(n 80\)/,
    );
    assert.doesNotMatch(stamp, /Cohen's kappa/, "no headline kappa while a judged benchmark is not measured");
  });

  it("a heuristic scorer below the floor fails the cells it scored and warns where the judge scored", async () => {
    const { analysis } = await analyzeWith([
      row("b1", ["j1", "j2"], 0.9, [0.5, 0.5], "cross_judge"),
      row("b1", ["refusal_pattern", "j1"], 0.3, [0.2, 0.5], "scorer_vs_judge"),
      row("b3", ["refusal_pattern", "j1"], -0.4, [0.2, 0.5], "scorer_vs_judge"),
    ]);
    assert.equal(check(analysis, "judge_quality").status, "pass");
    const artefact = check(analysis, "scorer_artefact");
    assert.equal(artefact.status, "fail");
    const failed = artefact.cells.filter((c) => c.status === "fail");
    const warned = artefact.cells.filter((c) => c.status === "warn");
    assert.ok(failed.length > 0 && failed.every((c) => c.benchmark === "b3"), JSON.stringify(failed));
    assert.ok(warned.length > 0 && warned.every((c) => c.benchmark === "b1"), JSON.stringify(warned));
    assert.match(failed[0].reason, /refusal_pattern disagrees with j1 \(kappa -0\.40 below 0\.6: below chance/);
    assert.ok(!artefact.cells.some((c) => c.benchmark === "b2"), "b2 has no scorer row");
  });

  it("a scorer that agrees with the judge passes; no scorer rows: not available", async () => {
    const agreeing = await analyzeWith([row("b1", ["refusal_pattern", "j1"], 0.8, [0.4, 0.5], "scorer_vs_judge")]);
    assert.equal(check(agreeing.analysis, "scorer_artefact").status, "pass");
    const none = await analyzeWith([row("b1", ["j1", "j2"], 0.9, [0.5, 0.5], "cross_judge")]);
    assert.equal(check(none.analysis, "scorer_artefact").status, "not available");
  });
});
