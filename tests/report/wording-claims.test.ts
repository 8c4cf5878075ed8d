/**
 * One wording check over the quickstart, grid, audit and agents examples: each is run, analysed
 * (`analyze --full`: the text summary, scorecard.md, analysis.json) and reported (report.html and
 * the trials pages) through the real command, and every claim the outputs make about a property
 * is checked against the data behind it:
 * - "never pooled across formats": only with format as a facet, scoped to the contrasts' own
 *   section, and every other section whose numbers mix the formats (checked on the data: the
 *   all-pairwise rates are the all-format rates) says so under its heading; no claim and no note
 *   without a format facet;
 * - "safe", "unsafe", "safety rate": only where some analysed benchmark declares it measures
 *   safety (its loader's meta), never on capability benchmarks; proper names (the Scaffold Safety
 *   Scorecard, ScaffoldSafety), the propagation check's "safety instructions" and the paper's
 *   own names of its degrees of freedom (App. D, quoted) are not claims about the score;
 * - "Blinded: yes" only when the blinding numbers of blinding.json (the overall and every arm's
 *   Bang's index within the plan's bound, the guessing check at chance) say blinding held;
 * - "Errored trials excluded: pass" only when no cell's errored share (recounted from the store)
 *   exceeds the plan's share, so never when all errored: planted by marking every trial of a
 *   run errored in its store.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { runStudy } from "../../src/run/execute/run-study.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { before, describeNeeding, it, needsBubblewrap, needsSpecData } from "../helpers/prerequisites.js";
import { STORED_CONDITION } from "../helpers/stored-texts.js";

const EXAMPLES = join(import.meta.dirname, "..", "..", "examples");

const STUDIES: { name: string; needs?: string | false }[] = [
  { name: "quickstart" },
  { name: "grid-quickstart" },
  { name: "audit-quickstart" },
  { name: "agents-quickstart", needs: needsBubblewrap() },
];

interface Outputs {
  dir: string;
  analyze: CliResult;
  record: {
    analysis: Record<string, unknown> & {
      meta: {
        measures?: Record<string, string>;
        plan: { integrity: { errored: number; blinding_index: number } };
        comparisonFacet: string;
      };
      counts: { benchmarks: string[] };
      integrity: { checks: { check: string; status: string }[] };
    };
    scorecard: { methodologyStamp: { blinded: { blinded: boolean; held?: boolean | null } } };
  };
  scorecard: string;
  report: string;
  trialsPages: string;
}

/** The report as text, its sections split at each <h2>. */
function sections(html: string): { heading: string; text: string }[] {
  return html
    .split(/<h2[^>]*>/)
    .slice(1)
    .map((part) => {
      const text = part
        .replace(/<[^>]+>/g, " ")
        .replace(/&#39;/g, "'")
        .replace(/\s+/g, " ");
      return { heading: part.slice(0, part.indexOf("</h2>")), text };
    });
}

async function produce(name: string): Promise<Outputs> {
  const dir = join(mkdtempSync(join(tmpdir(), `parallax-wording-${name}-`)), "run");
  await runStudy({ specPath: join(EXAMPLES, `${name}.yaml`), outDir: dir, env: {} });
  const analyze = runCli(["analyze", dir, "--full"]);
  const report = runCli(["report", dir]);
  assert.equal(report.status, 0, report.stderr);
  const files = readdirSync(dir);
  return {
    dir,
    analyze,
    record: JSON.parse(readFileSync(join(dir, "analysis.json"), "utf8")),
    // Only a comparison study writes the scorecard; another kind writes its own card.
    scorecard: existsSync(join(dir, "scorecard.md")) ? readFileSync(join(dir, "scorecard.md"), "utf8") : "",
    report: readFileSync(join(dir, "report.html"), "utf8"),
    trialsPages: files
      .filter((f) => /^trials.*\.html$/.test(f))
      .map((f) => readFileSync(join(dir, f), "utf8"))
      .join("\n"),
  };
}

/** Text with the phrases that name things rather than describe the score taken out. */
function claimsOnly(text: string, out: Outputs): string {
  const curve = out.record.analysis.specificationCurve as { paths?: { path: string }[] } | undefined;
  let claims = text.replace(/&#39;/g, "'");
  for (const path of curve?.paths ?? []) claims = claims.split(path.path).join(" ");
  return claims.replace(/Scaffold Safety Scorecard|ScaffoldSafety|safety instructions/g, " ");
}

/** Errored share per cell (comparison-facet level x benchmark), recounted from the store. */
function erroredShares(dir: string, facet: string): number[] {
  const db = new Database(join(dir, "parallax.db"), { readonly: true });
  try {
    const rows = db.prepare(`select benchmark_id, ${STORED_CONDITION}, status from trials`).all() as {
      benchmark_id: string;
      condition: string;
      status: string;
    }[];
    const cells = new Map<string, { n: number; errored: number }>();
    for (const row of rows) {
      const level = JSON.stringify(JSON.parse(row.condition)[facet] ?? null);
      const key = `${row.benchmark_id}\u0000${level}`;
      const cell = cells.get(key) ?? { n: 0, errored: 0 };
      cell.n++;
      if (row.status === "errored") cell.errored++;
      cells.set(key, cell);
    }
    return [...cells.values()].map((c) => c.errored / c.n);
  } finally {
    db.close();
  }
}

for (const study of STUDIES) {
  const needs = study.needs || needsSpecData(join(EXAMPLES, `${study.name}.yaml`));
  describeNeeding(needs, `the claims of examples/${study.name}.yaml hold for its data`, () => {
    let out: Outputs;
    before(async () => {
      out = await produce(study.name);
    });

    it("'never pooled across formats' is scoped to the contrasts, and every section that pools formats says so", () => {
      const contrasts = out.record.analysis.contrasts as
        | { itt: { byFormat?: { format: string }[] }; pp: unknown }
        | undefined;
      const formats = (contrasts?.itt.byFormat ?? []).map((g) => g.format);
      const all = [out.analyze.stdout, out.scorecard, out.report];
      if (formats.length < 2) {
        for (const text of all) {
          assert.doesNotMatch(text, /never pooled/i, "a within-format claim without a format facet");
          assert.doesNotMatch(text, /pooled across formats/i, "a pooling note without a format facet");
        }
        return;
      }
      // The claim names its own scope.
      for (const line of `${out.analyze.stdout}\n${out.report}`.split("\n").filter((l) => /never pooled/.test(l)))
        assert.match(line, /of this (section|part)/, `an unscoped claim: ${line}`);
      const parts = sections(out.report);
      const contrastsSection = parts.find((p) => /Each condition against the reference/.test(p.heading));
      assert.ok(contrastsSection, "the contrasts section");
      assert.match(contrastsSection.text, /never pooled across formats/);
      for (const part of parts.filter((p) => /never pooled/.test(p.text)))
        assert.equal(part, contrastsSection, `"never pooled" outside the contrasts: ${part.heading}`);
      // On the data: the all-pairwise rates are the rates over every format (the rate cells of each format summed).
      const pairwise = out.record.analysis.pairwise as { contrasts?: { first: string; rateFirst: number }[] };
      const cells = out.record.analysis.rates as {
        model: string;
        benchmark: string;
        condition: string;
        configuration: string;
        itt: { successes: number; n: number };
      }[];
      const pair = pairwise.contrasts?.[0];
      assert.ok(pair, "the quickstart's pairwise family has a pair");
      const reference = cells.filter((c) => c.model === "all" && c.benchmark === "all" && c.condition === pair.first);
      assert.equal(reference.length, formats.length, "one rate cell per format");
      const pooled = reference.reduce((t, c) => t + c.itt.successes, 0) / reference.reduce((t, c) => t + c.itt.n, 0);
      assert.ok(Math.abs(pair.rateFirst - pooled) < 1e-9, `pairwise pools formats: ${pair.rateFirst} vs ${pooled}`);
      // Every section but those whose rows are each format's (or carry no rates) says it pools.
      const ownFormats =
        /Scaffold Safety Scorecard|Measurement integrity|Charts|Each condition against the reference|Format dependence|Pre-registration|Study kinds|Trials behind each cell/;
      const note = new RegExp(`Pooled across formats \\(${formats.join(", ")}\\)`);
      for (const part of parts.filter((p) => !ownFormats.test(p.heading)))
        assert.match(part.text, note, `section "${part.heading}" mixes formats without saying so`);
      assert.match(out.analyze.stdout, /all-pairwise family[^\n]*\n\(pooled across formats/);
    });

    it("a benchmark reads 'safe' only when it declares it measures safety", () => {
      const measures = out.record.analysis.meta.measures ?? {};
      const safety = out.record.analysis.counts.benchmarks.some((b) => measures[b] === "safety");
      if (safety) return;
      for (const [what, text] of [
        ["analyze --full", out.analyze.stdout],
        ["scorecard.md", out.scorecard],
        ["report.html", out.report],
        ["trials pages", out.trialsPages],
      ] as const) {
        const found = /[^\n]{0,60}(?:\bsafe\b|\bunsafe\b|safety rate|safety index)[^\n]{0,40}/i.exec(
          claimsOnly(text, out),
        );
        assert.equal(found, null, `${what} of a capability study: ${found?.[0]}`);
      }
    });

    it("'Blinded: yes' only when blinding.json's numbers say blinding held", () => {
      const stamp = out.record.scorecard.methodologyStamp.blinded;
      const files = readdirSync(out.dir);
      if (!files.includes("blinding.json")) {
        assert.equal(stamp.blinded, false);
        // The stamp's words are in the scorecard a comparison writes (another kind writes none).
        if (out.scorecard) assert.match(out.scorecard, /- Blinded: no\./);
        return;
      }
      const check = JSON.parse(readFileSync(join(out.dir, "blinding.json"), "utf8")).guessing_check;
      const bound = out.record.analysis.meta.plan.integrity.blinding_index;
      const indices = [check.bang_bi.overall, ...Object.values(check.bang_bi.per_arm as Record<string, number>)];
      const held = indices.every((bi) => Math.abs(bi) <= bound) && check.p >= 0.05;
      assert.equal(stamp.held, held, JSON.stringify(check));
      if (held) assert.match(out.scorecard || "- Blinded: yes.", /- Blinded: yes\./);
      else assert.doesNotMatch(out.scorecard, /- Blinded: yes/, "blinding claimed where the numbers do not hold");
      assert.doesNotMatch(out.analyze.stdout, held ? /blinding not confirmed/ : /blinding held/);
    });

    it("'Errored trials excluded: pass' only when no cell's errored share exceeds the plan's", () => {
      const status = out.record.analysis.integrity.checks.find((c) => c.check === "errored")?.status;
      const shares = erroredShares(out.dir, out.record.analysis.meta.comparisonFacet);
      const limit = out.record.analysis.meta.plan.integrity.errored;
      assert.equal(
        status === "pass",
        shares.every((s) => s <= limit),
        `errored shares ${shares.join(", ")}: ${status}`,
      );
    });
  });
}

describeNeeding(false, "every trial errored", () => {
  it("a run whose every trial errored never reads 'Errored trials excluded: pass'", async () => {
    const out = await produce("quickstart");
    const copy = join(mkdtempSync(join(tmpdir(), "parallax-all-errored-")), "run");
    cpSync(out.dir, copy, { recursive: true });
    const db = new Database(join(copy, "parallax.db"));
    db.prepare(
      "update trials set status = 'errored', score = null, parsed_answer = null, parse_status = null, failure_bucket = 'other', error_message = 'planted'",
    ).run();
    db.close();
    const analyze = runCli(["analyze", copy]);
    assert.equal(analyze.status, 3, `every trial errored fails the gate:\n${analyze.stdout}\n${analyze.stderr}`);
    const checks = JSON.parse(readFileSync(join(copy, "analysis.json"), "utf8")).analysis.integrity.checks as {
      check: string;
      status: string;
    }[];
    assert.equal(checks.find((c) => c.check === "errored")?.status, "fail");
    assert.equal(checks.find((c) => c.check === "nothing_measured")?.status, "fail");
    assert.doesNotMatch(readFileSync(join(copy, "scorecard.md"), "utf8"), /\| Errored trials excluded \| pass \|/);
  });
});
