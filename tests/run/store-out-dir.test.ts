/**
 * `run --store` without `--out` writes its study files under runs/RUN_ID, a directory named
 * after the run: two specs of the same study name never write into each other's directory.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { writeDemoSpec } from "../helpers/study.js";

const cwd = mkdtempSync(join(tmpdir(), "parallax-store-out-"));
after(() => rmSync(cwd, { recursive: true, force: true }));
const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

/** The CLI run from `cwd` outside the repository (tsx given by its resolved path). */
function runIn(dir: string, args: string[]) {
  return spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), CLI, ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 120_000,
  });
}

test("two specs of one study name, each run with --store and no --out, keep separate study directories", () => {
  const first = writeDemoSpec({ items: 3 });
  const second = writeDemoSpec({ items: 5 });
  const runIds: string[] = [];
  for (const [i, { specPath }] of [first, second].entries()) {
    const result = runIn(cwd, ["run", specPath, "--store", join(cwd, `store-${i}.db`)]);
    assert.equal(result.status, 0, result.stderr);
    const runId = /run (\S+): \d+ trials/.exec(result.stderr)?.[1];
    assert.ok(runId, `the run id is printed: ${result.stderr}`);
    runIds.push(runId);
    assert.match(
      result.stdout,
      new RegExp(`spec and manifest in ${join(cwd, "runs", runId).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
  }
  assert.notEqual(runIds[0], runIds[1], "the specs differ, so do their runs");
  assert.deepEqual(readdirSync(join(cwd, "runs")).sort(), [...runIds].sort());
  for (const [i, runId] of runIds.entries()) {
    const spec = JSON.parse(readFileSync(join(cwd, "runs", runId, "spec.json"), "utf8"));
    assert.equal(spec.benchmarks[0].items.length, i === 0 ? 3 : 5, `runs/${runId}/spec.json is its own spec`);
  }
  assert.equal(existsSync(join(cwd, "runs", "demo-study")), false, "nothing under the study name");
});
