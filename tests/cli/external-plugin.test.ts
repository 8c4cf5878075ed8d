/**
 * A plugin package outside Parallax (tests/fixtures/external-plugin, with its own package.json)
 * registers a loader, a scaffold and a scorer through `register(api)`; the real CLI runs a study
 * with it, and the stored trials and calls show that each was used. Bad plugin entries are refused
 * with the spec position and exit 2.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { openStore } from "../../src/run/store/open.js";
import { runCli } from "../helpers/cli.js";

const PLUGIN_DIR = resolve(import.meta.dirname, "..", "fixtures", "external-plugin");
const SPEC = join(PLUGIN_DIR, "study.yaml");
const work = mkdtempSync(join(tmpdir(), "parallax-plugin-"));
after(() => rmSync(work, { recursive: true, force: true }));

describe("a plugin package registers a loader, a scaffold and a scorer", () => {
  const out = join(work, "study");

  test("plan and run use them; the stored trials and calls show it", async () => {
    const plan = runCli(["plan", SPEC]);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /scaffold=two_pass format=mc/);
    assert.match(plan.stdout, /trials: 8\b/);

    const run = runCli(["run", SPEC, "--out", out]);
    assert.equal(run.status, 0, run.stderr);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    assert.equal(manifest.benchmarks[0].loader, "riddles");

    const store = await openStore(out);
    try {
      const runRecord = await store.getRun();
      assert.ok(runRecord, "expected runRecord");
      const trials = await store.listTrials(runRecord.id);
      // The plugin loader's items, each under both scaffolds.
      assert.deepEqual([...new Set(trials.map((t) => t.itemId))].sort(), ["r1", "r2", "r3", "r4"]);
      assert.equal(trials.length, 8);
      for (const trial of trials) {
        assert.equal(trial.status, "finished");
        // The loader's metadata names the plugin scorer as its MC default.
        assert.equal(trial.outcome?.scorer, "riddle_match@1.0.0");
        assert.notEqual(trial.outcome?.parseStatus, "failed");
      }
      const twoPass = trials.filter((t) => JSON.stringify(t.condition).includes("two_pass"));
      assert.equal(twoPass.length, 4);
      for (const trial of twoPass) {
        const calls = await store.listCalls(runRecord.id, trial.id);
        assert.deepEqual(
          calls.map((c) => c.role),
          ["draft", "final"],
        );
        assert.match(calls[0].messages[0].content, /^First draft: think about the riddle briefly\./);
        assert.ok(
          calls[1].messages[0].content.includes(calls[0].responseText ?? "(none)"),
          'expected calls[1].messages[0].content.includes(calls[0].responseText ?? "(none)")',
        );
      }
    } finally {
      await store.close();
    }
  });

  test("score loads the run's plugins: from the study directory alone (stored with the run) or with --spec", () => {
    const withSpec = runCli(["score", out, "--spec", SPEC]);
    assert.equal(withSpec.status, 0, withSpec.stderr);
    assert.match(withSpec.stdout, /riddle_match: 0\/4/);
    const alone = runCli(["score", out]);
    assert.equal(alone.status, 0, alone.stderr);
    assert.equal(alone.stdout, withSpec.stdout);
  });
});

describe("bad plugin entries are refused with the spec position (exit 2)", () => {
  function specWith(name: string, plugin: string): string {
    const path = join(work, `${name}.yaml`);
    const text = readFileSync(SPEC, "utf8")
      .replace("plugins: [./index.mjs]", `plugins:\n  - ${plugin}`)
      .replace("./riddles.jsonl", join(PLUGIN_DIR, "riddles.jsonl"));
    writeFileSync(path, text);
    return path;
  }

  test("a missing module", () => {
    const spec = specWith("missing", "./nowhere.mjs");
    const result = runCli(["plan", spec]);
    assert.equal(result.status, 2);
    assert.match(
      result.stderr,
      new RegExp(`${spec.replaceAll(".", "\\.")}:4:5: plugins\\[0\\]: cannot import plugin '\\./nowhere\\.mjs'`),
    );
  });

  test("a module without register(api)", () => {
    writeFileSync(join(work, "no-register.mjs"), "export const name = 'x';\n");
    const result = runCli(["plan", specWith("no-register", "./no-register.mjs")]);
    assert.equal(result.status, 2);
    assert.match(
      result.stderr,
      /plugins\[0\]: plugin '\.\/no-register\.mjs' .* must export a function register\(api\); found exports: name/,
    );
  });

  test("a plugin whose name clashes with a built-in", () => {
    writeFileSync(
      join(work, "clash.mjs"),
      "export function register(api) { api.scaffolds.register('direct', api.scaffolds.get('direct')); }\n",
    );
    const result = runCli(["plan", specWith("clash", "./clash.mjs")]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /plugin '\.\/clash\.mjs' failed to register: scaffold 'direct' is registered twice/);
  });

  test("a package name that cannot be found", () => {
    const result = runCli(["plan", specWith("no-package", "parallax-plugin-that-does-not-exist")]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /cannot find plugin package 'parallax-plugin-that-does-not-exist'/);
  });
});
