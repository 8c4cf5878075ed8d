import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { Ajv } from "ajv";
import { exportEee } from "../../src/interop/eee/export.js";
import { SIDECAR_FILE, SidecarSchema } from "../../src/interop/eee/sidecar.js";
import { importLogs } from "../../src/interop/import.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow } from "../../src/run/store/types.js";
import { writeDemoSpec } from "../helpers/study.js";
import { interopDir, interopSkip } from "./shared-logs.js";

const demo = writeDemoSpec({
  facets: "    scaffold: [direct, critic]",
  attempts: 2,
  items: 6,
});
after(() => rmSync(demo.dir, { recursive: true, force: true }));

async function trialsOf(dir: string): Promise<TrialRow[]> {
  const store = await openStore(dir);
  try {
    return await store.listTrials((await store.getRun())!.id);
  } finally {
    await store.close();
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

test("a simulated Parallax study exports to EEE (multi-call trials as multi_turn) and imports back with its conditions", {
  skip: interopSkip,
}, async () => {
  await runStudy({ specPath: demo.specPath, outDir: demo.outDir, env: {} });
  const out = join(demo.dir, "eee");
  const store = await openStore(demo.outDir);
  try {
    await exportEee({ target: demo.outDir, store, run: (await store.getRun())! }, out);
  } finally {
    await store.close();
  }
  const ajv = new Ajv({ strict: false, allErrors: true });
  const schema = (name: string) => JSON.parse(readFileSync(join(interopDir, "eee", name), "utf8"));
  const aggregate = ajv.compile(schema("eval.schema.json"));
  const instance = ajv.compile<{ interaction_type: string; metadata: Record<string, string> }>(
    schema("instance_level_eval.schema.json"),
  );
  const files = walk(out);
  const samples = files.filter((f) => f.endsWith("_samples.jsonl"));
  for (const f of files.filter((f) => f.endsWith(".json") && !f.endsWith(SIDECAR_FILE))) {
    assert.ok(aggregate(JSON.parse(readFileSync(f, "utf8"))), JSON.stringify(aggregate.errors));
  }
  const original = await trialsOf(demo.outDir);
  const kinds = new Map<string, string>();
  for (const f of samples) {
    for (const line of readFileSync(f, "utf8").split("\n").filter(Boolean)) {
      const record = JSON.parse(line);
      assert.ok(instance(record), JSON.stringify(instance.errors));
      kinds.set(record.metadata.parallax_trial_id, record.interaction_type);
    }
  }
  for (const t of original) {
    assert.equal(
      kinds.get(t.id),
      t.condition.scaffold === "critic" ? "multi_turn" : "single_turn",
      `${t.id} ${t.condition.scaffold}`,
    );
  }
  const sidecar = SidecarSchema.parse(JSON.parse(readFileSync(join(out, SIDECAR_FILE), "utf8")));
  assert.deepEqual(
    new Set(sidecar.instances.map((i) => i.cluster)),
    new Set(original.map((t) => `${t.benchmarkId}/${t.itemId}`)),
  );

  const back = join(demo.dir, "back");
  await importLogs({ format: "eee", paths: [out], target: back });
  assert.ok(existsSync(back), "expected existsSync(back)");
  const again = new Map(
    (await trialsOf(back)).map((t) => [
      JSON.stringify([t.modelId, t.benchmarkId, t.itemId, t.attempt, t.condition]),
      t,
    ]),
  );
  assert.equal(again.size, original.length);
  for (const t of original) {
    const r = again.get(JSON.stringify([t.modelId, t.benchmarkId, t.itemId, t.attempt, t.condition]));
    assert.ok(r, `${t.id} came back with its model, item, attempt and condition`);
    assert.equal(r.outcome?.score ?? null, t.outcome?.score ?? null);
  }
});
