/**
 * `parallax report --out FILE` says where both pages go (the report and its trials page beside
 * it) and never overwrites a file it did not write without `--force`; its own earlier output it
 * replaces (recognised by the generator mark in the page's head).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { GENERATOR_MARK, isReportOutput, page, trialsPathFor } from "../../src/report/index.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

const FAST_PLAN = "analysis:\n  bootstrap: { resamples: 100 }\n  specification_curve: false\n";

let dir = "";
before(() => {
  const { specPath, outDir } = writeDemoSpec();
  writeFileSync(specPath, demoSpecYaml({ items: 6, facets: "    scaffold: [direct, cot]" }) + FAST_PLAN);
  const run = runCli(["run", specPath, "--out", outDir]);
  assert.equal(run.status, 0, run.stderr);
  const analyze = runCli(["analyze", outDir]);
  assert.equal(analyze.status, 0, analyze.stderr);
  dir = outDir;
});

describe("report --out", () => {
  it("names the trials page after the report, beside it", () => {
    assert.equal(trialsPathFor("/a/b/report.html"), "/a/b/trials.html");
    assert.equal(trialsPathFor("/a/b/pilot.html"), "/a/b/pilot.trials.html");
    assert.equal(trialsPathFor("/a/b/Pilot 2.HTM"), "/a/b/Pilot 2.trials.html");
  });

  it("recognises its own pages, also those of a version before the mark, and nothing else", () => {
    const out = mkdtempSync(join(tmpdir(), "parallax-report-own-"));
    const write = (name: string, text: string) => {
      writeFileSync(join(out, name), text);
      return join(out, name);
    };
    const current = page("t", "body");
    assert.ok(
      isReportOutput(write("current.html", current)),
      'expected isReportOutput(write("current.html", current))',
    );
    // Parallax 0.1 wrote the same page without the mark.
    assert.ok(
      isReportOutput(write("legacy.html", current.replace(`${GENERATOR_MARK}\n`, ""))),
      'expected isReportOutput(write("legacy.html", current.replace(`${GENERATOR_MARK}\\n`, "")))',
    );
    assert.ok(
      !isReportOutput(write("other.html", "<!doctype html><html><head><title>mine</title></head></html>")),
      'expected !isReportOutput(write("other.html", "<!doctype html><html><head><title>mine</title></he...',
    );
    assert.ok(!isReportOutput(write("text.html", "notes")), 'expected !isReportOutput(write("text.html", "notes"))');
  });

  it("prints where the report and the trials page went, and the report links to that page", () => {
    const out = mkdtempSync(join(tmpdir(), "parallax-report-out-"));
    const file = join(out, "pilot.html");
    const result = runCli(["report", dir, "--out", file]);
    assert.equal(result.status, 0, result.stderr);
    const trials = join(out, "pilot.trials.html");
    assert.match(result.stdout, new RegExp(`report to ${escapeRe(file)}`));
    assert.match(result.stdout, new RegExp(`trials page to ${escapeRe(trials)}`));
    const html = readFileSync(file, "utf8");
    assert.ok(html.includes(GENERATOR_MARK), "expected html.includes(GENERATOR_MARK)");
    assert.ok(
      readFileSync(trials, "utf8").includes(GENERATOR_MARK),
      'expected readFileSync(trials, "utf8").includes(GENERATOR_MARK)',
    );
    // The trials are split into pages numbered after the index; the report links into them.
    assert.match(html, /href="pilot\.trials-0001\.html#/);
    assert.ok(
      readFileSync(join(out, "pilot.trials-0001.html"), "utf8").includes(GENERATOR_MARK),
      'expected readFileSync(join(out, "pilot.trials-0001.html"), "utf8").includes(GENERATOR_MARK)',
    );
    assert.ok(!existsSync(join(out, "trials.html")), "no trials.html that another report could be using");

    // Its own output is replaced without --force.
    const again = runCli(["report", dir, "--out", file]);
    assert.equal(again.status, 0, again.stderr);
  });

  it("refuses to overwrite a file it did not write (report or trials page), exit 2, writing nothing", () => {
    const out = mkdtempSync(join(tmpdir(), "parallax-report-out-"));
    const file = join(out, "notes.html");
    writeFileSync(file, "<html>my notes</html>");
    const refused = runCli(["report", dir, "--out", file]);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /would overwrite .*notes\.html, which parallax report did not write/);
    assert.match(refused.stderr, /--force/);
    assert.equal(readFileSync(file, "utf8"), "<html>my notes</html>");
    assert.ok(!existsSync(join(out, "notes.trials.html")), "nothing written, not even the trials page");

    const trialsOwner = join(out, "fresh.html");
    writeFileSync(join(out, "fresh.trials.html"), "someone else's page");
    const refusedTrials = runCli(["report", dir, "--out", trialsOwner]);
    assert.equal(refusedTrials.status, 2, refusedTrials.stderr);
    assert.match(refusedTrials.stderr, /trials page would overwrite .*fresh\.trials\.html/);
    assert.ok(!existsSync(trialsOwner), "the report is not written either");

    const forced = runCli(["report", dir, "--out", file, "--force"]);
    assert.equal(forced.status, 0, forced.stderr);
    assert.ok(
      readFileSync(file, "utf8").includes(GENERATOR_MARK),
      'expected readFileSync(file, "utf8").includes(GENERATOR_MARK)',
    );
  });

  it("refuses a default DIR/report.html it did not write, and a directory even with --force", () => {
    const own = runCli(["report", dir]);
    assert.equal(own.status, 0, own.stderr);
    assert.match(own.stdout, /trials page to .*trials\.html/);
    writeFileSync(join(dir, "trials.html"), "hand-made");
    const refused = runCli(["report", dir]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /trials page would overwrite/);
    assert.equal(readFileSync(join(dir, "trials.html"), "utf8"), "hand-made");

    const out = mkdtempSync(join(tmpdir(), "parallax-report-out-"));
    mkdirSync(join(out, "x.html"));
    const dirInTheWay = runCli(["report", dir, "--out", join(out, "x.html"), "--force"]);
    assert.equal(dirInTheWay.status, 2);
    assert.match(dirInTheWay.stderr, /which is a directory/);
  });
});

function escapeRe(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
