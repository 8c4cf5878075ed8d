/**
 * The log-prob audit end to end on a real model: examples/audit.yaml's design, cut down to
 * stories260K (llama.cpp, 1 thread) on a few real TruthfulQA MC1 items from ../shared, scored on
 * the log-prob path. The run stores every trial, the F1 audit rebuilds the continuation prompts of
 * the stored tasks and compares them with the originals', and the audit gives the cell a status.
 * Skips with a message when the shared model or data are absent.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { analyzeDirectory } from "../../src/analysis/core/directory.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const shared = resolve(process.env.PARALLAX_SHARED_DIR ?? resolve(repoRoot, "..", "shared"));
const MODEL = join(shared, "models", "stories260K.gguf");
const TRUTHFULQA = join(shared, "datasets", "truthfulqa", "data", "mc_task.json");
const ITEMS = 3;

const skip = !existsSync(MODEL)
  ? `${MODEL} not found (set PARALLAX_SHARED_DIR)`
  : !existsSync(TRUTHFULQA)
    ? `${TRUTHFULQA} not found (set PARALLAX_SHARED_DIR)`
    : false;

test("stories260K runs the log-prob audit of examples/audit.yaml end to end", { skip }, async () => {
  const spec = parse(readFileSync(join(repoRoot, "examples", "audit.yaml"), "utf8"));
  spec.models = [
    {
      id: "stories260k",
      provider: "llama",
      model: MODEL,
      params: { temperature: 0, max_tokens: 8 },
      options: { context_size: 2048, threads: 1, chat_template: "plain" },
    },
  ];
  const tqa = spec.benchmarks.find((b: { id: string }) => b.id === "truthfulqa");
  spec.benchmarks = [{ ...tqa, source: TRUTHFULQA, sample: { n: ITEMS, seed: 42 } }];
  spec.conditions.facets.scoring_path = ["logprob"];
  // The cut has neither CrowS-Pairs' free-form cells to exclude nor XSTest to score.
  delete spec.conditions.exclude;
  delete spec.scoring;
  spec.conditions.facets.perturbation = ["none", { name: "format", seed: 42 }, { name: "attribute", seed: 42 }];
  spec.analysis.audit = { ...spec.analysis.audit, resamples: 200, min_items: 2 };
  const dir = mkdtempSync(join(tmpdir(), "parallax-audit-llama-"));
  const specPath = join(dir, "audit.yaml");
  writeFileSync(specPath, stringify(spec));
  const outDir = join(dir, "out");
  await runStudy({ specPath, outDir, env: {} });
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const counts = await store.countByStatus(run.id);
    assert.equal(counts.finished, ITEMS * 7, JSON.stringify(counts));
    const { analysis } = await analyzeDirectory(outDir, store, run);
    const audit = analysis.audit;
    assert.ok(!("skipped" in audit), "the audit ran");
    assert.equal(audit.cells.length, 1);
    const [cell] = audit.cells;
    assert.equal(cell.path, "logprob");
    // The continuation prompts were rebuilt from the stored tasks and compared: instrumented.
    assert.equal(cell.noOp.instrumented, true, cell.noOp.reason ?? "");
    // The opposite-construct rewrite reaches the log-prob prompt: never a no-op.
    assert.equal(cell.noOp.families.attribute.rate, 0);
    assert.equal(cell.parseability.regexScorer, false);
    assert.ok(cell.status.bucket.length > 0, "expected cell.status.bucket.length > 0");
    assert.equal(cell.status.gates.length, 6);
  } finally {
    await store.close();
  }
});
