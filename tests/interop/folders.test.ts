/**
 * Every importer takes files and folders: a folder is searched recursively in name order, each
 * log read and each file skipped is reported with why, and a folder gives the same study as its
 * logs named one by one.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importLogs } from "../../src/interop/import.js";
import { runCli } from "../helpers/cli.js";
import { countEval, countInspectJson, filesIn, interopDir, interopSkip } from "./shared-logs.js";
import { after, describeNeeding, it } from "../helpers/prerequisites.js";

const work = mkdtempSync(join(tmpdir(), "parallax-folders-"));
after(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
const out = () => join(work, `study-${n++}`);

describeNeeding(interopSkip, "importing folders", () => {
  it("inspect: a folder tree is read recursively in name order; other files are skipped and named", async () => {
    const tree = join(work, "inspect-tree");
    const [qwen, sonnet] = filesIn("inspect-json", ".json").filter((f) => /arc_/.test(f));
    mkdirSync(join(tree, "b", "c"), { recursive: true });
    mkdirSync(join(tree, "a"));
    copyFileSync(sonnet, join(tree, "b", "c", "sonnet.json"));
    copyFileSync(qwen, join(tree, "a", "qwen.json"));
    writeFileSync(join(tree, "logs.json"), JSON.stringify({ "a/qwen.json": { status: "success" } }));
    writeFileSync(join(tree, "README.md"), "notes\n");
    const result = await importLogs({ format: "inspect", paths: [tree], target: out() });
    assert.deepEqual(
      result.files.map((f) => [f.file.slice(tree.length + 1), f.read]),
      [
        ["README.md", false],
        ["a/qwen.json", true],
        ["b/c/sonnet.json", true],
        ["logs.json", false],
      ],
    );
    assert.match(result.files[0].why, /not an \.eval or \.json file/);
    assert.match(result.files[3].why, /not an Inspect log/);
    assert.equal(result.trials.length, countInspectJson(qwen).trials + countInspectJson(sonnet).trials);
  });

  it("inspect through the CLI: the shared folder imports as its ten logs do, one 'read' line per log", () => {
    const mapping = join(work, "evals.yaml");
    writeFileSync(mapping, "facets:\n  log:\n    logs: { custom.eval: copy }\n    field: eval.task_id\n");
    const logs = filesIn("inspect", ".eval");
    const result = runCli(["import", "inspect", join(interopDir, "inspect"), "--out", out(), "--mapping", mapping]);
    assert.equal(result.status, 0, result.stderr);
    const readLines = result.stdout.split("\n").filter((l) => /^ {2}read .*\.eval: Inspect log/.test(l));
    assert.equal(readLines.length, logs.length);
    const trials = logs.reduce((t, f) => t + countEval(f).trials, 0);
    assert.match(result.stdout, new RegExp(`^imported ${trials} trials `));
  });

  it("inspect: a folder with no log is refused (exit 2) and nothing is written", async () => {
    const empty = join(work, "no-logs");
    mkdirSync(empty);
    writeFileSync(join(empty, "notes.txt"), "x");
    const target = out();
    await assert.rejects(importLogs({ format: "inspect", paths: [empty], target }), /no Inspect log/);
    assert.deepEqual(readdirSync(work).includes(target.slice(work.length + 1)), false);
  });

  it("lm-eval: the results file named alone gives the same trials as its folder", async () => {
    const [results] = filesIn("lm-eval", ".json");
    const byFile = await importLogs({ format: "lm-eval", paths: [results], target: out() });
    const byFolder = await importLogs({ format: "lm-eval", paths: [join(interopDir, "lm-eval")], target: out() });
    assert.equal(byFile.trials.length, byFolder.trials.length);
    assert.ok(byFile.trials.length > 0, "the results file alone imports trials");
    assert.deepEqual(
      byFolder.files.map((f) => f.read),
      byFolder.files.map(() => true),
    );
  });

  it("helm: the parent folder of the runs imports every run directory", async () => {
    const dirs = readdirSync(join(interopDir, "helm")).map((d) => join(interopDir, "helm", d));
    const each = await importLogs({ format: "helm", paths: dirs, target: out() });
    const parent = await importLogs({ format: "helm", paths: [join(interopDir, "helm")], target: out() });
    assert.equal(parent.logs.length, dirs.length);
    assert.equal(parent.trials.length, each.trials.length);
    assert.deepEqual(
      parent.files.filter((f) => f.read).map((f) => f.file),
      dirs,
    );
  });

  it("eee: an export's folder imports each samples file once, with its aggregate and sidecar named", () => {
    const source = out();
    const helm = readdirSync(join(interopDir, "helm")).map((d) => join(interopDir, "helm", d));
    assert.equal(runCli(["import", "helm", helm[1], "--out", source]).status, 0);
    const exported = join(work, "eee-export");
    const exportResult = runCli(["export", source, "--format", "eee", "--output", exported]);
    assert.equal(exportResult.status, 0, exportResult.stderr);
    const back = runCli(["import", "eee", exported, "--out", out(), "--json"]);
    assert.equal(back.status, 0, back.stderr);
    const summary = JSON.parse(back.stdout);
    const trialsBefore = JSON.parse(runCli(["status", source, "--json"]).stdout).counts.finished;
    assert.equal(
      summary.logs.reduce((t: number, l: { trials: number }) => t + l.trials, 0),
      trialsBefore,
    );
    assert.match(summary.runId, /^import-helm-/, "the re-imported study keeps its source study's name");
    const samplesLines = summary.files.filter((f: { file: string }) => f.file.endsWith("_samples.jsonl"));
    assert.equal(samplesLines.length, 1, "the samples file is read once, though both it and its aggregate are found");
    assert.ok(
      summary.files.some((f: { file: string; read: boolean }) => f.file.endsWith("sidecar.json") && !f.read),
      "the sidecar file is named as skipped",
    );
  });
});
