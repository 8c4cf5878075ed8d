/**
 * `--scorer NAME` naming a scorer that is unknown or scored nothing in the run is an error
 * (exit 2) naming the known scorers: in `analyze` and in `export` (which used to write a table
 * of empty outcomes).
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { runStudy } from "../../src/run/execute/run-study.js";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";

let outDir = "";
before(async () => {
  const spec = writeDemoSpec({ items: 4 });
  outDir = spec.outDir;
  await runStudy({ specPath: spec.specPath, outDir, env: {} });
});

describe("--scorer with a scorer that has no outcomes", () => {
  test("export: an unknown name is exit 2 naming the registered and stored scorers, with nothing written", () => {
    const result = runCli(["export", outDir, "--scorer", "mc_last_anwser"]);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /unknown scorer 'mc_last_anwser'; stored scorers: \(none\), or omit --scorer/);
    assert.match(result.stderr, /registered scorers: .*mc_last_answer.*refusal_pattern/);
    assert.doesNotMatch(result.stderr, /Error|at /);
  });

  test("export: a registered scorer that scored nothing is exit 2 saying how to store its scores", () => {
    const before = runCli(["export", outDir, "--scorer", "refusal_pattern"]);
    assert.equal(before.status, 2, before.stderr);
    assert.match(
      before.stderr,
      /scorer 'refusal_pattern' scored nothing in this run \('parallax score .* --scorer refusal_pattern'/,
    );
    const score = runCli(["score", outDir, "--scorer", "refusal_pattern"]);
    assert.equal(score.status, 0, score.stderr);
    const after = runCli(["export", outDir, "--scorer", "refusal_pattern", "--format", "jsonl"]);
    assert.equal(after.status, 0, after.stderr);
    const rows = after.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { parsed_answer: string | null });
    assert.equal(rows.length, 8);
    assert.ok(
      rows.every((r) => typeof r.parsed_answer === "string"),
      "the stored scorer's answers are exported",
    );
    const unknown = runCli(["export", outDir, "--scorer", "nope"]);
    assert.match(unknown.stderr, /stored scorers: refusal_pattern,/);
  });

  test("analyze: an unknown scorer is exit 2 naming the scorers with outcomes, not a stack trace", () => {
    const result = runCli(["analyze", outDir, "--scorer", "nope"]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /no outcomes from scorer 'nope'; scorers: run-time/);
    assert.doesNotMatch(result.stderr, /RangeError|\n\s+at /);
  });
});
