/**
 * `parallax analyze` on each study's example, through the real command: the overview names the
 * study's kind and headlines its card, fits a terminal (about 60 lines, none over 160
 * characters), never prints "-0.0 pp" or an empty configuration slot, and names the analyses it
 * left out with the reason; `--full` prints every table of the analyses that ran, and the record
 * holds exactly those. One run per example, shared by its tests.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStudy } from "../../src/run/execute/run-study.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { before, describeNeeding, it, needsBubblewrap, needsSpecData } from "../helpers/prerequisites.js";

const EXAMPLES = join(import.meta.dirname, "..", "..", "examples");

interface Example {
  name: string;
  heading: string;
  /** Exit code of `analyze` (the audit demo plants an integrity failure, its finding). */
  analyzeExit: number;
  /** Analyses this study's kinds leave out, and one that runs. */
  leftOut: string[];
  ran: string;
  /** A line of `--full` that the overview leaves to it. */
  fullOnly: RegExp;
  needs?: string | false;
}

const EXAMPLES_UNDER_TEST: Example[] = [
  {
    name: "quickstart",
    heading: "== Scaffold Safety Scorecard",
    // Sized to carry every test: integrity passes (examples/integrity-demo.yaml plants the failure).
    analyzeExit: 0,
    leftOut: ["subhypotheses", "bbqBias", "grid", "audit", "agents"],
    ran: "contrasts",
    fullOnly: /^degradation by item difficulty/m,
  },
  {
    name: "grid-quickstart",
    heading: "== GRID card",
    // 12 items a benchmark carry every benchmark's cluster-robust tests: integrity passes.
    analyzeExit: 0,
    leftOut: ["subhypotheses", "bbqBias", "format", "audit", "agents"],
    ran: "grid",
    fullOnly: /^rates by configuration/m,
  },
  {
    name: "audit-quickstart",
    heading: "== Audit gate card",
    analyzeExit: 3,
    leftOut: ["contrasts", "hypotheses", "pairwise", "variance", "specificationCurve", "grid", "agents"],
    ran: "audit",
    fullOnly: /^perturbation audit \(Auditing the Audit/m,
  },
  {
    name: "agents-quickstart",
    heading: "== Agent comparison card",
    analyzeExit: 0,
    leftOut: ["contrasts", "subhypotheses", "grid", "audit"],
    ran: "agents",
    fullOnly: /^scaffold gap \(max - min accuracy, shared resamples\)/m,
    needs: needsBubblewrap(),
  },
  {
    name: "scaffold-safety-sim",
    heading: "== Scaffold Safety Scorecard",
    analyzeExit: 0,
    leftOut: ["grid", "audit", "agents"],
    ran: "subhypotheses",
    fullOnly: /^H3 sub-hypotheses/m,
  },
];

/** Lines as a terminal shows them (characters, not bytes). */
const linesOf = (text: string) => text.replace(/\n$/, "").split("\n");

/** The "left out: ..." lines with their wrapped continuations, each joined into one. */
function leftOutLines(text: string): string[] {
  const out: string[] = [];
  for (const line of linesOf(text)) {
    if (line.startsWith("left out: ")) out.push(line);
    else if (out.length > 0 && /^ {2}\S/.test(line) && !out[out.length - 1].endsWith(")"))
      out[out.length - 1] += ` ${line.trim()}`;
  }
  return out;
}

for (const example of EXAMPLES_UNDER_TEST) {
  const needs =
    example.needs || needsSpecData(join(import.meta.dirname, "..", "..", "examples", `${example.name}.yaml`));
  describeNeeding(needs, `analyze on examples/${example.name}.yaml`, () => {
    let dir: string;
    let overview: CliResult;
    let full: CliResult;
    before(async () => {
      dir = join(mkdtempSync(join(tmpdir(), `parallax-overview-${example.name}-`)), "run");
      await runStudy({ specPath: join(EXAMPLES, `${example.name}.yaml`), outDir: dir, env: {} });
      overview = runCli(["analyze", dir]);
      full = runCli(["analyze", dir, "--full"]);
    });

    it("prints its own card heading in a terminal's overview", () => {
      assert.equal(overview.status, example.analyzeExit, overview.stderr);
      assert.ok(overview.stdout.includes(example.heading), `no '${example.heading}' in:\n${overview.stdout}`);
      const lines = linesOf(overview.stdout);
      // About a screen and a half (the GRID card's tiers, attribution and dispersion tables are the
      // longest): long lines are wrapped to 120 columns, never cut.
      assert.ok(lines.length <= 70, `${lines.length} lines:\n${overview.stdout}`);
      const long = lines.filter((l) => l.length > 160);
      assert.deepEqual(long, [], "no printed line over 160 characters");
      // Every line, notes included, fits a 120-column terminal; only a line naming the study's
      // directory may run longer.
      const wide = lines.filter((l) => l.length > 120 && !l.includes(dir));
      assert.deepEqual(wide, [], "no table or headline over 120 characters");
      assert.ok(!/-0\.0 pp/.test(overview.stdout), "'-0.0 pp' printed");
      assert.ok(!/ · {2}· /.test(full.stdout), "an empty configuration slot in --full");
      assert.ok(!/ · {2}· /.test(overview.stdout), "an empty configuration slot");
      assert.match(overview.stdout, /^measurement integrity: (passed|FAILED) \(/m, "the integrity verdict");
    });

    it("names each left-out analysis with its reason, and the record holds only what ran", () => {
      const record = JSON.parse(readFileSync(join(dir, "analysis.json"), "utf8"));
      const leftOut = record.analysis.meta.selection.leftOut as { analysis: string; reason: string }[];
      for (const name of example.leftOut) {
        const entry = leftOut.find((l) => l.analysis === name);
        assert.ok(entry, `${name} is not left out: ${JSON.stringify(leftOut)}`);
        assert.ok(entry.reason.length > 0, `${name} has no reason`);
        assert.ok(!(name in record.analysis), `analysis.json holds the left-out ${name}`);
        assert.ok(
          leftOutLines(overview.stdout).some((l) => new RegExp(`^left out: [^(]*\\b${name}\\b`).test(l)),
          `${name} not named as left out:\n${leftOutLines(overview.stdout).join("\n")}`,
        );
      }
      assert.ok(example.ran in record.analysis, `${example.ran} did not run`);
      assert.ok(!leftOut.some((l) => l.analysis === example.ran), `${example.ran} is listed as left out`);
    });

    it("--full prints every table the overview leaves out", () => {
      assert.equal(full.status, example.analyzeExit, full.stderr);
      assert.match(full.stdout, example.fullOnly);
      assert.ok(!example.fullOnly.test(overview.stdout), "the overview holds a --full table");
      assert.ok(linesOf(full.stdout).length > linesOf(overview.stdout).length, "--full is not longer");
      assert.ok(!/-0\.0 pp/.test(full.stdout), "'-0.0 pp' printed by --full");
      assert.match(full.stdout, /^left out: /m, "--full names the left-out analyses too");
    });
  });
}
