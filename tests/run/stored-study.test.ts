/**
 * The study rebuilt from a store (run/store/stored-study.ts: what worker, score and analyze read)
 * holds what the readers use from the study `parallax run` prepared: the items in their loaded
 * order, each benchmark's few-shot pool in its order, the conditions and each benchmark's
 * conditions after its exclusions, the spec; relative paths resolve against the recorded spec
 * folder. A store without items or pools is refused, naming what it lacks.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { storedPoolRows } from "../../src/run/prepare/exemplars.js";
import { runIdFor } from "../../src/run/plan/plan.js";
import { openStore } from "../../src/run/store/open.js";
import type { RunRecord } from "../../src/run/store/types.js";
import { missingFromStore, openStoredStudy, readStoredParts } from "../../src/run/store/stored-study.js";
import { allItems, prepareStudy } from "../../src/run/prepare/study.js";
import { after, describeNeeding, it, needsSharedData } from "../helpers/prerequisites.js";

const SPEC = resolve(import.meta.dirname, "..", "..", "examples", "grid-quickstart.yaml");

describeNeeding(needsSharedData(), "the study as the store holds it", () => {
  const dir = mkdtempSync(join(tmpdir(), "parallax-stored-study-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("rebuilds the prepared study's items, pools, conditions and spec (grid quickstart: pools, exclusions)", async () => {
    const prepared = await prepareStudy(SPEC);
    assert.ok(prepared.exemplars.size > 0, "the spec declares few-shot pools");
    const run: RunRecord = {
      id: runIdFor(prepared),
      study: prepared.spec.study,
      specHash: prepared.specHash,
      manifestHash: prepared.manifestHash,
      spec: JSON.parse(JSON.stringify(prepared.spec)),
      createdAt: "2026-01-01T00:00:00.000Z",
      parallaxVersion: "test",
      specDir: dirname(SPEC),
    };
    const store = await openStore(dir);
    try {
      await store.saveRun(run);
      const refuse = (missing: string) => new Error(`lacks ${missing}`);
      await assert.rejects(openStoredStudy(store, run, refuse), /lacks its items/);
      await store.saveRunItems(run.id, [...allItems(prepared)]);
      assert.equal(missingFromStore(run, await readStoredParts(store, run.id)), "its few-shot exemplar pools");
      await store.saveRunItems(run.id, storedPoolRows(prepared.exemplars));

      const stored = await openStoredStudy(store, run, refuse);
      // As JSON: the store keeps items as JSON, which drops fields a loader set to undefined.
      const entries = (m: Map<string, Map<string, unknown>>) =>
        JSON.stringify([...m].map(([b, byId]) => [b, [...byId]]));
      assert.equal(entries(stored.items), entries(prepared.items));
      assert.equal(JSON.stringify([...stored.exemplars]), JSON.stringify([...prepared.exemplars]));
      assert.deepEqual(stored.conditions, prepared.conditions);
      assert.deepEqual([...stored.benchmarkConditions], [...prepared.benchmarkConditions]);
      assert.deepEqual(stored.spec, prepared.spec);
      assert.equal(stored.specPath, join(dirname(SPEC), "spec.json"), "relative paths resolve from the spec's folder");
      assert.equal(stored.manifestHash, prepared.manifestHash);
    } finally {
      await store.close();
    }
  });
});
