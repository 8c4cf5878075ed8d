/**
 * The judge-quality reading of DIR/judge-agreement.json: the headline kappa is the worst
 * cross-judge kappa; a deterministic scorer's agreement with a judge (the scorer-artefact
 * check, kind "scorer_vs_judge") is no judge disagreement and is left out.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readJudgeAgreement } from "../../src/analysis/core/methodology.js";

function dirWith(rows: object[]): string {
  const dir = mkdtempSync(join(tmpdir(), "parallax-agreement-"));
  writeFileSync(join(dir, "judge-agreement.json"), JSON.stringify({ per_benchmark: rows, skipped: [] }));
  return dir;
}

const row = (benchmark: string, judges: [string, string], kappa: number, kind?: string) => ({
  benchmark,
  judges,
  n: 80,
  kappa,
  ci: [kappa - 0.1, kappa + 0.1],
  ...(kind ? { kind } : {}),
});

test("a scorer-vs-judge row does not count as judge disagreement", () => {
  const status = readJudgeAgreement(
    dirWith([
      row("xstest", ["judge-a", "judge-b"], 0.82, "cross_judge"),
      row("or_bench", ["judge-a", "judge-b"], 0.74, "cross_judge"),
      row("xstest", ["refusal_pattern", "judge-a"], -1, "scorer_vs_judge"),
    ]),
  );
  assert.equal(status.crossValidated, true);
  assert.equal(status.kappa, 0.74, "the worst cross-judge kappa");
});

test("rows without a kind (files written before it, or by hand) all count", () => {
  const status = readJudgeAgreement(dirWith([row("xstest", ["a", "b"], 0.82), row("xstest", ["c", "d"], 0.3)]));
  assert.equal(status.kappa, 0.3);
});

test("only scorer-vs-judge rows: no cross-judge check", () => {
  const status = readJudgeAgreement(dirWith([row("xstest", ["refusal_pattern", "judge-a"], 0.9, "scorer_vs_judge")]));
  assert.equal(status.crossValidated, false);
  assert.equal(status.kappa, null);
});
