import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { importLogs } from "../../src/interop/import.js";
import { defaultMapping, loadMapping } from "../../src/interop/mapping.js";
import { outcomeOf } from "../../src/interop/outcome.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow } from "../../src/run/store/types.js";
import { filesIn, interopDir, interopSkip } from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-mapping-"));
after(() => rmSync(work, { recursive: true, force: true }));

function mappingFile(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

async function trials(dir: string): Promise<TrialRow[]> {
  const store = await openStore(dir);
  try {
    return await store.listTrials((await store.getRun())!.id);
  } finally {
    await store.close();
  }
}

test("outcomes: the defaults, values the mapping adds, and a threshold for numeric scores", () => {
  const defaults = defaultMapping().outcomes;
  assert.deepEqual(
    ["C", "I", "N", "P", true, false, 1, 0, 0.5, "correct", "odd"].map((v) => outcomeOf(v, defaults)),
    [1, 0, 0, null, 1, 0, 1, 0, null, 1, null],
  );
  const custom = loadMapping(mappingFile("o.yaml", "outcomes:\n  values: { P: 1, C: 0 }\n  threshold: 0.7\n")).outcomes;
  assert.deepEqual(
    ["P", "C", 0.69, 0.7, 1].map((v) => outcomeOf(v, custom)),
    [1, 0, 0, 1, 1],
  );
});

test("facets from the log's entry, a header field and a default; renamed models and benchmarks", {
  skip: interopSkip,
}, async () => {
  const [pubmed, qwen] = ["pubmedqa", "arc_qwen"].map(
    (n) => filesIn("inspect-json", ".json").find((f) => f.includes(n))!,
  );
  const mapping = mappingFile(
    "f.yaml",
    [
      "study: mapped",
      "facets:",
      "  scaffold:",
      "    logs: { data_arc_qwen.json: cot }",
      "    default: direct",
      "  dataset:",
      "    field: eval.dataset.name",
      "models: { ollama/qwen2.5:0.5b: qwen-small }",
      "benchmarks: { inspect_evals/arc_easy: arc }",
      "",
    ].join("\n"),
  );
  const out = join(work, "mapped");
  await importLogs({ format: "inspect", paths: [pubmed, qwen], target: out, mapping });
  const rows = await trials(out);
  const dataset = (f: string) => JSON.parse(readFileSync(f, "utf8")).eval.dataset.name;
  for (const t of rows) {
    const qwenRow = t.modelId === "qwen-small";
    assert.equal(t.condition.scaffold, qwenRow ? "cot" : "direct");
    assert.equal(t.condition.dataset, dataset(qwenRow ? qwen : pubmed));
    if (qwenRow) assert.equal(t.benchmarkId, "arc");
  }
  assert.ok(
    rows.some((t) => t.modelId === "qwen-small"),
    'expected rows.some((t) => t.modelId === "qwen-small")',
  );
});

test("a facet without a value for a log is refused naming the log; the scorer option picks the outcome", {
  skip: interopSkip,
}, async () => {
  const log = join(interopDir, "inspect", "log_formats.eval");
  const missing = mappingFile("m.yaml", "facets:\n  scaffold:\n    field: eval.task_args.nothing\n");
  await assert.rejects(
    importLogs({ format: "inspect", paths: [log], target: join(work, "m"), mapping: missing }),
    (error: Error) => {
      assert.match(error.message, /log_formats\.eval: no value for facet 'scaffold'.*eval\.task_args\.nothing/);
      return true;
    },
  );
  const other = mappingFile("s.yaml", "scorer: not_in_the_log\n");
  const out = join(work, "s");
  const prepared = await importLogs({ format: "inspect", paths: [log], target: out, mapping: other });
  assert.ok(
    prepared.notes.some((n) => /no scorer 'not_in_the_log' \(scorers: match\)/.test(n)),
    prepared.notes.join("; "),
  );
  const [trial] = await trials(out);
  assert.equal(trial.outcome?.score, null, "a scorer the log lacks leaves the trial unscored");
  assert.equal(trial.outcome?.scorer, null);
});
