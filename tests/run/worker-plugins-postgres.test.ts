/**
 * A plugin study run by a worker joining by URL: the run stores each plugin module with its
 * SHA-256; the worker loads the file it reaches after checking the hash (a changed file is
 * refused, naming both hashes), or the stored copy where no file is reachable. A resumed run
 * with a changed plugin is refused the same way. Uses the plugin package of
 * tests/fixtures/external-plugin. Skipped without PARALLAX_TEST_PG_URL (`node scripts/test.mjs
 * postgres` starts a server).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openStore } from "../../src/run/store/open.js";
import { dropTestSchemas, queryStore, skipWithoutPostgres, startCli, testStoreUrl } from "../helpers/postgres-run.js";
import { after, describeNeeding, test } from "../helpers/prerequisites.js";

const FIXTURE = resolve(import.meta.dirname, "..", "fixtures", "external-plugin");
const work = mkdtempSync(join(tmpdir(), "parallax-worker-plugins-"));
after(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropTestSchemas();
});

const sha256Of = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** A copy of the plugin package and its study, run into a fresh store; its trials then reset to pending. */
async function recordedPluginRun(name: string) {
  const dir = join(work, name);
  cpSync(FIXTURE, dir, { recursive: true });
  const url = testStoreUrl(`parallax_plugin_${name}`);
  const run = await startCli(["run", join(dir, "study.yaml"), "--out", join(dir, "out"), "--store", url], process.env)
    .done;
  assert.equal(run.status, 0, run.stderr);
  await queryStore(url, "update trials set status = 'pending', executions = 0, task_hash = null");
  await queryStore(url, "delete from calls");
  return { dir, url, plugin: join(dir, "index.mjs") };
}

/** The stored trials' scorers and the roles of their calls. */
async function storedTrials(url: string) {
  const store = await openStore(url);
  try {
    const run = await store.getRun();
    assert.ok(run, "a run in the store");
    const trials = await store.listTrials(run.id);
    const roles = await store.listCallsOf(
      run.id,
      trials.map((t) => t.id),
    );
    return trials.map((t) => ({
      status: t.status,
      scorer: t.outcome?.scorer,
      scaffold: (t.condition as { scaffold?: string }).scaffold,
      roles: (roles.get(t.id) ?? []).map((c) => c.role),
    }));
  } finally {
    await store.close();
  }
}

describeNeeding(skipWithoutPostgres, "plugin studies with workers joining by URL", () => {
  test("the run stores each plugin module with its SHA-256 and content", async () => {
    const { url, plugin } = await recordedPluginRun("stored");
    const rows = await queryStore<{ specifier: string; file: string; sha256: string; content: string }>(
      url,
      "select specifier, file, sha256, content from run_plugins order by position",
    );
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      [{ specifier: "./index.mjs", file: plugin, sha256: sha256Of(plugin), content: readFileSync(plugin, "utf8") }],
    );
  });

  test("a worker runs the plugin's loader, scaffold and scorer from the file it reaches", async () => {
    const { url } = await recordedPluginRun("reachable");
    const worker = await startCli(["worker", url], process.env).done;
    assert.equal(worker.status, 0, worker.stderr);
    assert.match(worker.stdout, /ran 8 trial\(s\), 8 finished/);
    assert.doesNotMatch(worker.stderr, /not reachable here/);
    const trials = await storedTrials(url);
    assert.equal(trials.length, 8);
    for (const trial of trials) {
      assert.equal(trial.status, "finished");
      assert.equal(trial.scorer, "riddle_match@1.0.0", "the plugin's scorer");
      if (trial.scaffold === "two_pass") assert.deepEqual(trial.roles, ["draft", "final"], "the plugin's scaffold");
    }
  });

  test("where the plugin file is not reachable, the worker loads the run's stored copy", async () => {
    const { dir, url } = await recordedPluginRun("moved");
    renameSync(dir, `${dir}-elsewhere`);
    const worker = await startCli(["worker", url], process.env).done;
    assert.equal(worker.status, 0, worker.stderr);
    assert.match(
      worker.stderr,
      /plugin '\.\/index\.mjs' is not reachable here; loading the run's copy \(SHA-256 [0-9a-f]{64}\)/,
    );
    assert.match(worker.stdout, /ran 8 trial\(s\), 8 finished/);
    const trials = await storedTrials(url);
    assert.ok(
      trials.every((t) => t.scorer === "riddle_match@1.0.0"),
      "every trial scored by the plugin's scorer from the stored copy",
    );
  });

  test("a changed plugin file is refused, naming the file's hash and the run's", async () => {
    const { dir, url, plugin } = await recordedPluginRun("tampered");
    const recorded = sha256Of(plugin);
    appendFileSync(plugin, "\n// changed after the run started\n");
    const changed = sha256Of(plugin);
    assert.notEqual(changed, recorded);
    const worker = await startCli(["worker", url], process.env).done;
    assert.equal(worker.status, 2, worker.stderr);
    assert.match(
      worker.stderr,
      new RegExp(
        `plugin '\\./index\\.mjs' at ${plugin.replaceAll(".", "\\.")} has SHA-256 ${changed}, but the run loaded SHA-256 ${recorded}`,
      ),
    );
    assert.equal(
      Number((await queryStore<{ n: string }>(url, "select count(*) as n from trials where status = 'finished'"))[0].n),
      0,
      "no trial ran with the changed plugin",
    );
    // Resuming the run itself with the changed plugin is refused the same way.
    const resumed = await startCli(
      ["run", join(dir, "study.yaml"), "--out", join(dir, "out"), "--store", url],
      process.env,
    ).done;
    assert.equal(resumed.status, 2, resumed.stderr);
    assert.match(
      resumed.stderr,
      new RegExp(`has SHA-256 ${changed}, but run '[^']+' started with SHA-256 ${recorded}`),
    );
  });
});
