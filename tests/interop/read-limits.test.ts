/**
 * Every JSON file an importer reads whole is bounded by the limit `--max-entry-mb` sets (the cap
 * on an inflated zip entry), in every format, not only in Inspect's `.eval` zips.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { importLogs } from "../../src/interop/import.js";

const work = mkdtempSync(join(tmpdir(), "parallax-read-limits-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** A limit of 1 KiB per file read whole. */
const SMALL = { entryBytes: 1024, totalBytes: 1024 * 1024 };
const padding = "x".repeat(4096);

test("an lm-eval results file over --max-entry-mb is refused, naming the file and the option", async () => {
  const dir = join(work, "lm-eval");
  mkdirSync(dir);
  const results = join(dir, "results_2026-01-01T00-00-00.json");
  writeFileSync(results, JSON.stringify({ results: { task: { "acc,none": 0.5 } }, padding }));
  const target = join(work, "lm-eval-study");
  await assert.rejects(
    importLogs({ format: "lm-eval", paths: [dir], target, zipLimits: SMALL }),
    (error: Error) => error.message.includes(results) && error.message.includes("--max-entry-mb"),
  );
  assert.ok(!existsSync(target), "nothing imported");
});

test("a HELM run file over --max-entry-mb is refused, naming the file and the option", async () => {
  const dir = join(work, "helm-run");
  mkdirSync(dir);
  writeFileSync(
    join(dir, "run_spec.json"),
    JSON.stringify({ name: "demo:model=m", adapter_spec: { model: "m" }, padding }),
  );
  writeFileSync(join(dir, "per_instance_stats.json"), "[]");
  await assert.rejects(
    importLogs({ format: "helm", paths: [dir], target: join(work, "helm-study"), zipLimits: SMALL }),
    (error: Error) => error.message.includes("run_spec.json") && error.message.includes("--max-entry-mb"),
  );
});

test("an Inspect .json log and an EEE aggregate record over --max-entry-mb are refused the same way", async () => {
  const inspect = join(work, "log.json");
  writeFileSync(inspect, JSON.stringify({ eval: { task: "t", model: "m" }, samples: [], padding }));
  await assert.rejects(
    importLogs({ format: "inspect", paths: [inspect], target: join(work, "inspect-study"), zipLimits: SMALL }),
    (error: Error) => error.message.includes(inspect) && error.message.includes("--max-entry-mb"),
  );
  const eee = join(work, "aggregate.json");
  writeFileSync(eee, JSON.stringify({ evaluation_results: [], padding }));
  await assert.rejects(
    importLogs({ format: "eee", paths: [eee], target: join(work, "eee-study"), zipLimits: SMALL }),
    (error: Error) => error.message.includes(eee) && error.message.includes("--max-entry-mb"),
  );
});
