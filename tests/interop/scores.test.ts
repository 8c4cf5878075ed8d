/**
 * Every score is checked, the same way in every importer: a non-finite number, a number outside
 * the scorer's declared range and an unknown label are refused naming the log, the sample and the
 * field; a log without scores is 'not scored' (integrity fails, status says 'no scores').
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { InputError } from "../../src/core/errors.js";
import { importLogs } from "../../src/interop/import.js";
import { runCli } from "../helpers/cli.js";
import { filesIn, interopDir, interopSkip } from "./shared-logs.js";
import { after, describeNeeding, it } from "../helpers/prerequisites.js";

const work = mkdtempSync(join(tmpdir(), "parallax-scores-"));
after(() => rmSync(work, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: raw log JSON, edited in place
type Json = any;
const MARK = '"__VALUE__"';
let n = 0;

/** JSON text with the marked value replaced by raw JSON text (1e999 parses to Infinity). */
function withRaw(value: Json, raw: string): string {
  return JSON.stringify(value).replace(MARK, raw);
}

function inspectLog(raw: string): string {
  const log = JSON.parse(readFileSync(filesIn("inspect-json", ".json").find((f) => /arc_qwen/.test(f))!, "utf8"));
  const scorer = Object.keys(log.samples[1].scores)[0];
  log.samples[1].scores[scorer].value = "__VALUE__";
  const file = join(work, `inspect-${n++}.json`);
  writeFileSync(file, withRaw(log, raw));
  return file;
}

function lmEvalDir(metricRaw: string, metric = "exact_match"): string {
  const dir = join(work, `lm-eval-${n++}`);
  cpSync(join(interopDir, "lm-eval"), dir, { recursive: true });
  const samples = filesIn("lm-eval", ".jsonl")[0];
  const lines = readFileSync(samples, "utf8").split("\n");
  const row = JSON.parse(lines[2]);
  if (!row.metrics.includes(metric)) row.metrics.push(metric);
  row[metric] = "__VALUE__";
  lines[2] = withRaw(row, metricRaw);
  writeFileSync(join(dir, basename(samples)), lines.join("\n"));
  return dir;
}

function helmDir(meanRaw: string): string {
  const source = join(interopDir, "helm", "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2");
  const dir = join(work, `helm-${n++}`);
  cpSync(source, dir, { recursive: true });
  const stats = JSON.parse(readFileSync(join(dir, "per_instance_stats.json"), "utf8"));
  const entry = stats.find((s: Json) => s.stats.some((x: Json) => x.name.split === "test"));
  entry.stats.find((x: Json) => x.name.name === "exact_match").mean = "__VALUE__";
  writeFileSync(join(dir, "per_instance_stats.json"), withRaw(stats, meanRaw));
  return dir;
}

function eeeFile(scoreRaw: string): string {
  const record = {
    schema_version: "0.3.0",
    evaluation_id: "x/y",
    model_id: "org/model",
    evaluation_name: "bench",
    sample_id: "q1",
    interaction_type: "single_turn",
    input: { raw: "2+2?", reference: ["4"] },
    output: { raw: ["4"] },
    answer_attribution: [{ extracted_value: "4", extraction_method: "exact" }],
    evaluation: { score: "__VALUE__", is_correct: true },
  };
  const file = join(work, `eee-${n++}_samples.jsonl`);
  writeFileSync(file, `${withRaw(record, scoreRaw)}\n`);
  return file;
}

async function refusal(format: string, path: string): Promise<string> {
  const target = join(work, `out-${n++}`);
  const error = await importLogs({ format, paths: [path], target }).then(
    () => assert.fail(`${format}: ${path} was accepted`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof InputError, String(error));
  assert.ok(!existsSync(target), "nothing written");
  return (error as Error).message;
}

describeNeeding(interopSkip, "score values", () => {
  it("Infinity (1e999) is refused by every importer, naming log, sample and field", async () => {
    const inspect = await refusal("inspect", inspectLog("1e999"));
    assert.match(
      inspect,
      /inspect-\d+\.json \(samples\[1\]\): sample "\w+", field 'scores\.\w+\.value': expected a finite number, found Infinity/,
    );
    const lmEval = await refusal("lm-eval", lmEvalDir("1e999"));
    assert.match(
      lmEval,
      /samples_.*\.jsonl \(line 3\): sample "\d+", field 'exact_match': expected a finite number, found Infinity/,
    );
    const helm = await refusal("helm", helmDir("-1e999"));
    assert.match(
      helm,
      /helm-\d+ \(per_instance_stats\.json\[\d+\] \(instance \w+\)\): sample "\w+", field 'stats\[exact_match\]\.mean': expected a finite number, found -Infinity/,
    );
    const eee = await refusal("eee", eeeFile("1e999"));
    assert.match(
      eee,
      /eee-\d+_samples\.jsonl \(line 1\): sample "q1", field 'evaluation\.score': expected a finite number, found Infinity/,
    );
  });

  it("a value outside the scorer's declared range is refused (HELM exact_match, lm-eval acc)", async () => {
    assert.match(
      await refusal("helm", helmDir("1.5")),
      /field 'stats\[exact_match\]\.mean': expected a number in \[0, 1\].*found 1\.5/,
    );
    assert.match(
      await refusal("lm-eval", lmEvalDir("2", "acc")),
      /field 'acc': expected a number in \[0, 1\].*found 2/,
    );
  });

  it("an unknown label is refused unless the mapping gives its outcome", async () => {
    const log = inspectLog('"maybe"');
    assert.match(await refusal("inspect", log), /field 'scores\.\w+\.value': unknown label "maybe".*outcomes: values/);
    const mapping = join(work, "maybe.yaml");
    writeFileSync(mapping, "outcomes:\n  values: { maybe: 0 }\n");
    const ok = await importLogs({ format: "inspect", paths: [log], target: join(work, `out-${n++}`), mapping });
    assert.equal(ok.completions.filter((c) => c.outcome.score === 0).length >= 1, true);
  });

  it("through the CLI a refused score exits 2 with one line", () => {
    const result = runCli(["import", "inspect", inspectLog("1e999"), "--out", join(work, `out-${n++}`)]);
    assert.equal(result.status, 2);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  });
});

describeNeeding(interopSkip, "a log without scores", () => {
  it("is 'not scored': the import notes it, integrity fails Nothing measured, status says 'no scores'", () => {
    // The first popularity log holds ten samples and no score.
    const log = filesIn("inspect", ".eval").find((f) => /popularity_dPi/.test(f))!;
    const raw = runCli(["import", "inspect", log, "--out", join(work, "unscored"), "--json"]);
    assert.equal(raw.status, 0, raw.stderr);
    const summary = JSON.parse(raw.stdout);
    const trials = summary.logs[0].trials;
    assert.ok(trials > 0, "the log holds trials");
    assert.equal(summary.logs[0].scores, 0);
    assert.ok(
      summary.notes.some((note: string) => note.includes(`not scored: none of its ${trials} trials`)),
      "a note says the log was not scored",
    );
    const analysis = runCli(["analyze", join(work, "unscored"), "--json"]);
    const integrity = JSON.parse(analysis.stdout).analysis.integrity;
    const check = (integrity.checks as Json[]).find((c) => c.check === "nothing_measured");
    assert.equal(check.status, "fail");
    assert.match(JSON.stringify(check.cells), /not scored/);
    const status = runCli(["status", join(work, "unscored")]);
    assert.match(status.stdout, /\| no scores \|/);
    assert.doesNotMatch(status.stdout, /\| 0\.000 \|/);
  });
});
