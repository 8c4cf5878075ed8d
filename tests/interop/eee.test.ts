import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import { Ajv } from "ajv";
import { runAnalysis } from "../../src/cli/commands/analyze.js";
import { exportEee } from "../../src/interop/eee/export.js";
import { SIDECAR_FILE, SidecarSchema } from "../../src/interop/eee/sidecar.js";
import { importLogs } from "../../src/interop/import.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow } from "../../src/run/store/types.js";
import { filesIn, interopDir, interopSkip } from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-eee-"));
after(() => rmSync(work, { recursive: true, force: true }));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** The fields of an aggregate record the test reads. */
interface AggregateRecord {
  detailed_evaluation_results: { file_path: string };
  evaluation_results: {
    score_details: {
      score: number;
      details: { n: string };
      uncertainty: { confidence_interval: { lower: number; upper: number }; num_samples: number };
    };
  }[];
}

/** The EEE schemas are JSON Schema draft-07 (their $schema says so): Ajv's default class. */
function validators() {
  const load = (name: string) => JSON.parse(readFileSync(join(interopDir, "eee", name), "utf8"));
  const aggregateSchema = load("eval.schema.json");
  const instanceSchema = load("instance_level_eval.schema.json");
  assert.match(aggregateSchema.$schema, /draft-07/);
  assert.match(instanceSchema.$schema, /draft-07/);
  // strict: false because the schemas carry a non-standard top-level "version" keyword.
  const ajv = new Ajv({ strict: false, allErrors: true });
  return { aggregate: ajv.compile<AggregateRecord>(aggregateSchema), instance: ajv.compile(instanceSchema) };
}

async function trialsOf(dir: string): Promise<TrialRow[]> {
  const store = await openStore(dir);
  try {
    const run = (await store.getRun())!;
    return await store.listTrials(run.id);
  } finally {
    await store.close();
  }
}

/** A trial's coordinates with the real model (the `subject` facet of a models comparison). */
function key(t: TrialRow): string {
  const model = String(t.condition.subject ?? t.modelId);
  const others = Object.entries(t.condition).filter(([f]) => f !== "subject");
  return JSON.stringify([model, t.benchmarkId, t.itemId, t.attempt, others]);
}

for (const [name, format, paths] of [
  [
    "arc pair (Inspect .json, models compared)",
    "inspect",
    () => filesIn("inspect-json", ".json").filter((f) => /arc/.test(f)),
  ],
  ["HELM runs", "helm", () => readdirSync(join(interopDir, "helm")).map((d) => join(interopDir, "helm", d))],
  ["Inspect log with 2 epochs", "inspect", () => [join(interopDir, "inspect", "log_streaming.eval")]],
] as const) {
  test(`EEE export of an imported study validates against both schemas and imports back with every outcome: ${name}`, {
    skip: interopSkip,
  }, async () => {
    const study = join(work, `study-${format}-${readdirSync(work).length}`);
    await importLogs({ format, paths: paths(), target: study });
    const analysed = name.startsWith("arc");
    // With a stored analysis the CIs come from it; without one they are computed at export.
    if (analysed) await runAnalysis(study, {});
    const out = join(work, `eee-${readdirSync(work).length}`);
    const store = await openStore(study);
    let result: Awaited<ReturnType<typeof exportEee>>;
    try {
      result = await exportEee({ target: study, store, run: (await store.getRun())! }, out);
    } finally {
      await store.close();
    }
    assert.equal(result.uncertaintySource.startsWith("stored analysis"), analysed);
    const { aggregate, instance } = validators();
    const files = walk(out);
    const aggregates = files.filter((f) => f.endsWith(".json") && !f.endsWith(SIDECAR_FILE));
    const samples = files.filter((f) => f.endsWith("_samples.jsonl"));
    assert.equal(aggregates.length, result.aggregates);
    let instances = 0;
    for (const file of aggregates) {
      const record = JSON.parse(readFileSync(file, "utf8")) as AggregateRecord;
      assert.ok(aggregate(record), `${file}: ${JSON.stringify(aggregate.errors)}`);
      assert.ok(
        samples.some((s) => relative(out, s) === record.detailed_evaluation_results.file_path),
        "expected samples.some((s) => relative(out, s) === record.detailed_evaluation_results.file_path)",
      );
      for (const r of record.evaluation_results) {
        const u = r.score_details.uncertainty;
        // Wilson bounds at 0 or 1 carry rounding (0.9999999999999999).
        assert.ok(
          u.confidence_interval.lower <= r.score_details.score + 1e-12,
          "expected u.confidence_interval.lower <= r.score_details.score + 1e-12",
        );
        assert.ok(
          r.score_details.score <= u.confidence_interval.upper + 1e-12,
          "expected r.score_details.score <= u.confidence_interval.upper + 1e-12",
        );
        assert.equal(u.num_samples, Number(r.score_details.details.n));
      }
    }
    for (const file of samples) {
      for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
        instances++;
        assert.ok(instance(JSON.parse(line)), `${file}: ${JSON.stringify(instance.errors)}`);
      }
    }
    const original = await trialsOf(study);
    assert.equal(instances, original.length);
    const sidecar = SidecarSchema.parse(JSON.parse(readFileSync(join(out, SIDECAR_FILE), "utf8")));
    assert.equal(sidecar.instances.length, original.length);
    assert.equal(sidecar.contrasts === null, !analysed);

    const back = join(work, `back-${readdirSync(work).length}`);
    await importLogs({ format: "eee", paths: samples, target: back });
    const reimported = new Map((await trialsOf(back)).map((t) => [key(t), t]));
    assert.equal(reimported.size, original.length);
    for (const t of original) {
      const again = reimported.get(key(t));
      assert.ok(again, `trial ${key(t)} came back`);
      assert.equal(again.outcome?.score ?? null, t.outcome?.score ?? null, `outcome of ${key(t)}`);
      assert.equal(again.status, t.status);
    }
  });
}
