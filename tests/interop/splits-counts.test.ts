/**
 * One split, one count: HELM instances of different splits are never pooled (test by default,
 * `--split` chooses), and an lm-eval results file that declares more samples than its samples
 * file holds is imported with both counts recorded and printed.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importLogs } from "../../src/interop/import.js";
import { openStore } from "../../src/run/store/open.js";
import { runCli } from "../helpers/cli.js";
import { filesIn, helmStats, interopDir, interopSkip } from "./shared-logs.js";
import { after, describeNeeding, it } from "../helpers/prerequisites.js";

const work = mkdtempSync(join(tmpdir(), "parallax-splits-"));
after(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const out = () => join(work, `study-${n++}`);

const MMLU = join(interopDir, "helm", "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2");

/** HELM's own aggregate of a metric on a split (stats.json, the entry without perturbation). */
function helmAggregate(dir: string, metric: string, split: string): number {
  const stats = JSON.parse(readFileSync(join(dir, "stats.json"), "utf8")) as {
    name: { name: string; split?: string; perturbation?: unknown };
    mean: number;
  }[];
  return stats.find((s) => s.name.name === metric && s.name.split === split && !s.name.perturbation)!.mean;
}

function instancesOf(dir: string, split: string): Set<string> {
  return new Set(
    helmStats(dir)
      .filter((s) => s.stats.some((x) => x.name.split === split))
      .map((s) => s.instance_id),
  );
}

describeNeeding(interopSkip, "HELM splits", () => {
  it("imports the test split only by default: its rate is HELM's own test exact_match", async () => {
    const result = await importLogs({ format: "helm", paths: [MMLU], target: out() });
    const test = instancesOf(MMLU, "test");
    assert.deepEqual(new Set(result.trials.map((t) => t.itemId)), test);
    const correct = result.completions.filter((c) => c.outcome.score === 1).length;
    const rate = correct / result.completions.length;
    assert.ok(Math.abs(rate - helmAggregate(MMLU, "exact_match", "test")) < 1e-9, `rate ${rate}`);
    assert.ok(
      result.notes.some((note) => /split test: \d+ instances imported; not pooled/.test(note)),
      "a note names the imported split",
    );
  });

  it("--split valid imports the valid split alone", () => {
    const target = out();
    const cli = runCli(["import", "helm", MMLU, "--split", "valid", "--out", target, "--json"]);
    assert.equal(cli.status, 0, cli.stderr);
    const summary = JSON.parse(cli.stdout);
    assert.equal(summary.logs[0].trials, instancesOf(MMLU, "valid").size);
  });

  it("refuses a split the run does not have, and a run of several splits without test, naming the splits", async () => {
    await assert.rejects(
      importLogs({ format: "helm", paths: [MMLU], target: out(), split: "train" }),
      /no instance of split 'train' \(splits and instances: test \(\d+\), valid \(\d+\)\)/,
    );
    const dir = join(work, "no-test");
    cpSync(MMLU, dir, { recursive: true });
    const stats = readFileSync(join(dir, "per_instance_stats.json"), "utf8").replaceAll(
      '"split": "test"',
      '"split": "train"',
    );
    writeFileSync(join(dir, "per_instance_stats.json"), stats);
    await assert.rejects(
      importLogs({ format: "helm", paths: [dir], target: out() }),
      /several splits and none of test: train \(\d+\), valid \(\d+\); choose one with --split/,
    );
  });
});

describeNeeding(interopSkip, "lm-eval declared and present samples", () => {
  it("records and prints both counts when the results declare more samples than the samples file holds", async () => {
    const results = JSON.parse(readFileSync(filesIn("lm-eval", ".json")[0], "utf8"));
    const task = Object.keys(results["n-samples"]).sort()[0];
    const declared = results["n-samples"][task].effective as number;
    const present = readFileSync(filesIn("lm-eval", ".jsonl")[0], "utf8").split("\n").filter(Boolean).length;
    assert.ok(declared > present, "the shared results declare more samples than the samples file holds");
    const target = out();
    const cli = runCli(["import", "lm-eval", join(interopDir, "lm-eval"), "--out", target]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(
      cli.stdout,
      new RegExp(`on ${task}: ${present} trials, .*\\(the results declare ${declared} samples\\)`),
    );
    assert.match(
      cli.stdout,
      new RegExp(`note: .*${present} documents, but the results declare ${declared} samples of ${task}`),
    );
    const store = await openStore(target);
    try {
      const run = (await store.getRun())!;
      const counts = run.imported?.counts?.find((c) => c.benchmark === task);
      assert.deepEqual({ ...counts, log: undefined }, { log: undefined, benchmark: task, declared, present });
      assert.match(counts!.log, /samples_.*\.jsonl$/);
    } finally {
      await store.close();
    }
  });
});
