/**
 * The integrity gate through the real CLI: a tidy table in which one condition's every output
 * failed to parse makes `analyze` print "not interpretable: no answer parsed", the measurement
 * integrity section at the top, a clear line on stderr, and exit 3; a clean table exits 0.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../helpers/cli.js";

const PLAN = "bootstrap: { resamples: 200 }\nspecification_curve: false\n";

/** 30 items x 2 models x {direct, map_reduce}; `unparsed` conditions never parse. */
function tidyTable(dir: string, unparsed: string[]): string {
  const lines = ["model,benchmark,item_id,attempt,scaffold,status,outcome,parse_status"];
  for (const model of ["m1", "m2"])
    for (let i = 0; i < 30; i++)
      for (const scaffold of ["direct", "map_reduce"]) {
        const failed = unparsed.includes(scaffold);
        const outcome = failed ? 0 : (i * 7 + model.length) % 3 === 0 ? 0 : 1;
        lines.push(`${model},bbq,q${i},1,${scaffold},finished,${outcome},${failed ? "failed" : "ok"}`);
      }
  const path = join(dir, "trials.csv");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

function setup(unparsed: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "parallax-integrity-"));
  const plan = join(dir, "plan.yaml");
  writeFileSync(plan, PLAN);
  return { table: tidyTable(dir, unparsed), plan };
}

test("a cell where no answer parsed: every verdict on it is not interpretable and analyze exits 3", () => {
  const { table, plan } = setup(["map_reduce"]);
  const result = runCli(["analyze", table, "--plan", plan, "--full"]);
  assert.equal(result.status, 3, result.stderr);
  assert.match(result.stderr, /MEASUREMENT INTEGRITY FAILED.*Failed: nothing_measured/s);
  const out = result.stdout;
  assert.ok(out.indexOf("measurement integrity") >= 0, out);
  assert.ok(out.indexOf("measurement integrity") < out.indexOf("each condition vs the reference"), out);
  assert.match(out, /Nothing measured\s+fail/);
  assert.match(out, /map_reduce .* n\/i +not interpretable: no answer parsed/);
  for (const line of out.split("\n").filter((l) => /^\s*map_reduce\s/.test(l)))
    assert.doesNotMatch(line, /equivalent|degrades|improves|inconclusive/, line);
  // --json: the same exit code, the record says which verdicts were downgraded.
  const json = runCli(["analyze", table, "--plan", plan, "--json"]);
  assert.equal(json.status, 3);
  const record = JSON.parse(json.stdout);
  const nothing = record.analysis.integrity.checks.find((c: { check: string }) => c.check === "nothing_measured");
  assert.ok(
    nothing.downgraded.includes("ITT pooled map_reduce"),
    'expected nothing.downgraded.includes("ITT pooled map_reduce")',
  );
  assert.equal(record.scorecard.integrity.failed, true);
});

test("a clean table passes the gate: exit 0 and no downgraded verdict", () => {
  const { table, plan } = setup([]);
  const result = runCli(["analyze", table, "--plan", plan, "--full"]);
  assert.equal(result.status, 0, result.stderr);
  assert.doesNotMatch(result.stdout, /not interpretable/);
  assert.doesNotMatch(result.stderr, /MEASUREMENT INTEGRITY FAILED/);
  assert.match(result.stdout, /Parse failures per cell\s+pass/);
});
