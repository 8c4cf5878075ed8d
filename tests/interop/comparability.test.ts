/**
 * Imported logs analysed honestly, through the real CLI on the real files of ../shared/interop:
 * models that share no item are not compared (no RD, CI or NNH anywhere, unless `--unpaired` is
 * asked for, and then labelled), a one-sample log against a ten-sample one reads "not
 * interpretable: 1 case", a single-source import is described (rates and checks, exit 0), and
 * `import eee` reads an aggregate record's instance records, or refuses it naming what is missing.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.js";
import { filesIn, interopDir, interopSkip } from "./shared-logs.js";
import { after, describeNeeding, it } from "../helpers/prerequisites.js";

const work = mkdtempSync(join(tmpdir(), "parallax-comparability-"));
after(() => rmSync(work, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: the stored record, read back as JSON
type Json = any;
type Record_ = { analysis: Json; scorecard: Json };

function imported(format: string, paths: string[], name: string): string {
  const out = join(work, name);
  const result = runCli(["import", format, ...paths, "--out", out]);
  assert.equal(result.status, 0, result.stderr);
  return out;
}

function totalTrials(summary: { logs: { trials: number }[] }): number {
  return summary.logs.reduce((t, l) => t + l.trials, 0);
}

function stored(dir: string): Record_ {
  return JSON.parse(readFileSync(join(dir, "analysis.json"), "utf8"));
}

describeNeeding(interopSkip, "imported models with no shared item", () => {
  const helmRuns = () => readdirSync(join(interopDir, "helm")).map((d) => join(interopDir, "helm", d));

  it("import helm, then analyze: not comparable, no RD, CI or NNH in the overview, --full, scorecard or report", () => {
    const study = imported("helm", helmRuns(), "helm");
    const overview = runCli(["analyze", study]);
    assert.equal(overview.status, 0, overview.stderr);
    const row = overview.stdout.split("\n").find((l) => l.startsWith("openai/gpt2"));
    assert.ok(row, overview.stdout);
    assert.match(row, /not comparable: no shared items/);
    assert.doesNotMatch(row, /pp|NN[HT]/, `no RD or NNH: ${row}`);

    const full = runCli(["analyze", study, "--full"]);
    assert.equal(full.status, 0, full.stderr);
    for (const line of full.stdout.split("\n").filter((l) => l.startsWith("openai/gpt2")))
      assert.doesNotMatch(line, /[-+]\d+\.\d pp|NN[HT] \d/, `no RD or NNH in --full: ${line}`);
    assert.doesNotMatch(full.stdout, /independence-based Wald RD intervals[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*gpt2/);

    const record = stored(study);
    const [contrast] = record.analysis.contrasts.itt.pooled.contrasts;
    assert.equal(contrast.notComparable, "not comparable: no shared items");
    assert.equal(contrast.riskDifference, null);
    assert.equal(contrast.nnh, null);
    for (const r of record.scorecard.nnh.rows) {
      assert.equal(r.riskDifference, null, `${r.scope}: no RD in scorecard.json`);
      assert.equal(r.nnh, null, `${r.scope}: no NNH in scorecard.json`);
    }
    const md = readFileSync(join(study, "scorecard.md"), "utf8");
    assert.match(md, /\| pooled \| openai\/gpt2 \| - \| - \| - \| not comparable: no shared items \|/);

    const report = runCli(["report", study]);
    assert.equal(report.status, 0, report.stderr);
    const html = readFileSync(join(study, "report.html"), "utf8");
    assert.match(html, /not comparable: no shared items/);
    assert.doesNotMatch(html, /NNH 5/, "the unpaired NNH of the old pooled line is gone");
  });

  it("analyze --unpaired compares the different item sets, labelled unpaired", () => {
    const study = imported("helm", helmRuns(), "helm-unpaired");
    const result = runCli(["analyze", study, "--unpaired", "--json"]);
    assert.equal(result.status, 0, result.stderr);
    const [contrast] = JSON.parse(result.stdout).analysis.contrasts.itt.pooled.contrasts;
    assert.equal(contrast.pairing.mode, "unpaired");
    assert.equal(contrast.pairing.shared, 0);
    assert.ok(contrast.riskDifference, "an RD when asked for");
    assert.match(contrast.verdict, /unpaired: different item sets/);
  });
});

describeNeeding(interopSkip, "a one-sample log against a ten-sample log on a shared item", () => {
  it("reads 'not interpretable: 1 case' and shows no interval from the one case", () => {
    const logs = filesIn("inspect", ".eval");
    const ten = logs.find((f) => f.includes("popularity_mj7khqpMM4GBCfVQozKgzB"))!;
    const one = logs.find((f) => f.endsWith("log_formats.eval"))!;
    const study = imported("inspect", [ten, one], "popularity");
    const result = runCli(["analyze", study]);
    assert.equal(result.status, 3, "the gate fails: the contrast rests on one case");
    assert.match(result.stderr, /Failed: min_information\./);
    const row = result.stdout.split("\n").find((l) => l.startsWith("ollama/llama3.1"));
    assert.ok(row, result.stdout);
    assert.match(row, /not interpretable: 1 case$/);
    assert.doesNotMatch(row, /\[|NN[HT]/, `no interval or NNH: ${row}`);
    const [contrast] = stored(study).analysis.contrasts.itt.pooled.contrasts;
    assert.equal(contrast.pairing.shared, 1);
    assert.equal(contrast.withheld, "1 case");
  });
});

describeNeeding(interopSkip, "a single-source import", () => {
  it("is described: rates with intervals and the integrity checks, no contrast, exit 0", () => {
    const log = join(interopDir, "inspect", "log_streaming.eval");
    const study = imported("inspect", [log], "single");
    const result = runCli(["analyze", study]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /described \(one level\): source = inspect, nothing compared/);
    assert.match(result.stdout, /rates \(source inspect; one level, nothing compared\)/);
    assert.match(result.stdout, /measurement integrity: passed/);
    const record = stored(study).analysis;
    assert.equal(record.contrasts, undefined);
    const rate = record.rates.find(
      (r: { model: string; benchmark: string }) => r.model === "all" && r.benchmark === "all",
    );
    assert.ok(
      rate.itt.ci95[0] <= rate.itt.rate && rate.itt.rate <= rate.itt.ci95[1],
      "a Wilson interval around the rate",
    );
    // The rate is the log's: every sample scored C counts.
    const report = runCli(["report", study]);
    assert.equal(report.status, 0, report.stderr);
  });
});

describeNeeding(interopSkip, "import eee", () => {
  it("refuses an aggregate record without instance records (exit 2, nothing written): no item to analyse", () => {
    const file = join(interopDir, "eee", "example-aggregate.json");
    const out = join(work, "aggregate");
    const result = runCli(["import", "eee", file, "--out", out]);
    assert.equal(result.status, 2, result.stdout);
    assert.match(result.stderr, /example-aggregate\.json: an aggregate record naming no instance records/);
    assert.ok(!existsSync(out), "no study directory");
  });

  it("refuses an aggregate whose samples file is missing, naming that file", () => {
    const raw = JSON.parse(readFileSync(join(interopDir, "eee", "example-aggregate.json"), "utf8"));
    const file = join(work, "named-aggregate.json");
    raw.detailed_evaluation_results = { format: "jsonl", file_path: "data/x/gone_samples.jsonl" };
    writeFileSync(file, JSON.stringify(raw, null, 2));
    const out = join(work, "named-aggregate");
    const result = runCli(["import", "eee", file, "--out", out]);
    assert.equal(result.status, 2, result.stdout);
    assert.match(
      result.stderr,
      /named-aggregate\.json \(detailed_evaluation_results\.file_path\): .*gone_samples\.jsonl/,
    );
    assert.ok(!existsSync(out), "no study directory");
  });

  it("refuses a JSON object that is neither record kind, naming both kinds, and leaves no directory", () => {
    const bad = join(work, "not-eee.json");
    writeFileSync(bad, '{\n  "results": []\n}\n');
    const out = join(work, "not-eee");
    const result = runCli(["import", "eee", bad, "--out", out]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /not-eee\.json: not an EEE record: expected .*instance-level.*aggregate record/);
    assert.ok(!existsSync(out), "no directory left behind");
  });

  it("reads the instance records an aggregate names (a Parallax export imported by its aggregate file)", () => {
    const study = imported(
      "helm",
      [readdirSync(join(interopDir, "helm")).map((d) => join(interopDir, "helm", d))[0]],
      "eee-src",
    );
    const exported = join(work, "eee-out");
    const exportResult = runCli(["export", study, "--format", "eee", "--output", exported]);
    assert.equal(exportResult.status, 0, exportResult.stderr);
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
      );
    const aggregate = walk(exported).find((f) => f.endsWith(".json") && !f.endsWith("parallax-sidecar.json"))!;
    const samples = walk(exported).find((f) => f.endsWith("_samples.jsonl"))!;
    const lines = readFileSync(samples, "utf8").split("\n").filter(Boolean).length;
    const out = join(work, "eee-back");
    const result = runCli(["import", "eee", aggregate, "--out", out, "--json"]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(totalTrials(JSON.parse(result.stdout)), lines, "every instance record of the named samples file");
  });
});
