import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { needsSpecData } from "../helpers/prerequisites.js";

const EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "sequential-sim.yaml");

test("examples/sequential-sim.yaml stops early on its planted harm; analyze and report show the looks and the money not spent", {
  skip: needsSpecData(EXAMPLE),
}, () => {
  const out = join(mkdtempSync(join(tmpdir(), "parallax-sequential-cli-")), "run");
  const run = runCli(["run", EXAMPLE, "--out", out]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /sequential: 4 look\(s\) at 0\.25, 0\.5, 0\.75, 1 of the items, obrien-fleming spending/);
  assert.match(
    run.stdout,
    /scaffold=cot vs direct: -[\d.]+ pp, z -[\d.]+ vs \+\/-[\d.]+, RCI \[.*\], \d+ items: stop: harm/,
  );
  const stopped =
    /stopped early at look (\d): (\d+) trial\(s\) not run, about \d+ call\(s\) and \$([\d.]+) not spent/.exec(
      run.stdout,
    );
  assert.ok(stopped, `no early stop in:\n${run.stdout}`);
  assert.ok(Number(stopped[1]) < 4 && Number(stopped[2]) > 0 && Number(stopped[3]) > 0, stopped[0]);
  assert.match(run.stdout, new RegExp(`study status: \\d+ finished, 0 errored, ${stopped[2]} pending`));

  const analyze = runCli(["analyze", out]);
  assert.equal(analyze.status, 0, analyze.stderr);
  assert.match(
    analyze.stdout,
    new RegExp(`sequential \\(obrien-fleming, 4 looks\\): stopped early at look ${stopped[1]}`),
  );
  assert.match(
    analyze.stdout,
    /scaffold=cot vs direct: -[\d.]+ pp, RCI \[-[\d.]+ pp, -[\d.]+ pp\] \(look \d\/4, stopped: harm\)/,
  );

  // The fixed-n contrast table shows no interval, p value or NNH: the looks decide.
  const table = analyze.stdout.split("\n").find((l) => /^\s*cot\s/.test(l));
  assert.ok(table, `no cot row in the contrasts table:\n${analyze.stdout}`);
  assert.doesNotMatch(
    table.split("sequential:")[0],
    /\[/,
    `a fixed-n interval in a sequential run's contrast row: ${table}`,
  );
  assert.match(table, /sequential: harm at look \d\/4, RCI \[/);

  const report = runCli(["report", out]);
  assert.equal(report.status, 0, report.stderr);
  const html = readFileSync(join(out, "report.html"), "utf8");
  assert.match(html, /<h2 id="sequential">Sequential design<\/h2>/);
  assert.match(html, /It stopped early at look \d: \d+ trial\(s\) not run/);
});
