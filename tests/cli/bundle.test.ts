/**
 * The bundled CLI (scripts/bundle-cli.ts, package.json `bin` and `exports`): built here from src
 * into a throwaway package, it prints what the unbundled CLI prints, runs the external plugin
 * fixture, and shares its registries with the package subpaths a user's plugin imports (a plugin
 * that registers through `parallax-eval/scaffolds` itself, not through `api`, is seen by `plan`).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { BUNDLE_ENTRIES, BUNDLED_CLI, bundleCli } from "../../scripts/bundle-cli.js";
import { runCli } from "../helpers/cli.js";

const REPO = resolve(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "parallax-bundle-"));
const PKG = join(work, "pkg");
const BUNDLE = join(PKG, "dist", "bundle");
const packageJson = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));

/** Runs the bundled CLI as `bin` would. */
function runBundle(args: string[], cwd = REPO) {
  return spawnSync(process.execPath, [join(BUNDLE, BUNDLED_CLI), ...args], { cwd, encoding: "utf8", timeout: 120_000 });
}

before(async () => {
  // A package laid out as installed: package.json (its exports point into dist/bundle) and the
  // dependencies the bundle leaves external.
  mkdirSync(PKG, { recursive: true });
  copyFileSync(join(REPO, "package.json"), join(PKG, "package.json"));
  symlinkSync(join(REPO, "node_modules"), join(PKG, "node_modules"));
  await bundleCli({ root: REPO, from: "src", outdir: BUNDLE });
});
after(() => rmSync(work, { recursive: true, force: true }));

describe("the bundled CLI", () => {
  test("package.json's bin and every subpath export point at files of the bundle", () => {
    assert.equal(packageJson.bin.parallax, `dist/bundle/${BUNDLED_CLI}`);
    const built = new Set(readdirSync(BUNDLE));
    for (const name of Object.keys(BUNDLE_ENTRIES)) assert.ok(built.has(`${name}.js`), `${name}.js not built`);
    const targets = Object.entries(packageJson.exports as Record<string, string | { default: string }>)
      .filter(([subpath]) => !subpath.endsWith(".json"))
      .map(([, target]) => (typeof target === "string" ? target : target.default));
    for (const target of targets) {
      assert.match(target, /^\.\/dist\/bundle\//);
      assert.ok(built.has(target.replace("./dist/bundle/", "")), `${target} is not in the bundle`);
    }
  });

  test("--version and plan print what the unbundled CLI prints", () => {
    // Run as `bin` is: the file itself, through its shebang.
    const version = spawnSync(join(BUNDLE, BUNDLED_CLI), ["--version"], { encoding: "utf8" });
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), packageJson.version);

    const quickstart = join(REPO, "examples", "quickstart.yaml");
    const bundled = runBundle(["plan", quickstart, "--json"]);
    const unbundled = runCli(["plan", quickstart, "--json"], { cwd: REPO });
    assert.equal(bundled.status, 0, bundled.stderr);
    assert.equal(unbundled.status, 0, unbundled.stderr);
    assert.deepEqual(JSON.parse(bundled.stdout), JSON.parse(unbundled.stdout));
  });

  test("a bad spec is refused with exit 2 and the file position, as unbundled", () => {
    const spec = join(work, "bad.yaml");
    writeFileSync(spec, "study: bad\nmodels: 3\n");
    const bundled = runBundle(["plan", spec]);
    const unbundled = runCli(["plan", spec]);
    assert.equal(bundled.status, 2);
    assert.equal(bundled.stderr, unbundled.stderr);
    assert.match(bundled.stderr, /bad\.yaml:\d+:\d+/);
  });

  test("runs a study with the external plugin package (loader, scaffold, scorer)", () => {
    const spec = join(REPO, "tests", "fixtures", "external-plugin", "study.yaml");
    const out = join(work, "plugin-study");
    const run = runBundle(["run", spec, "--out", out]);
    assert.equal(run.status, 0, run.stderr);
    const status = runBundle(["status", out, "--json"]);
    assert.equal(status.status, 0, status.stderr);
    const expected = runCli(["status", out, "--json"]);
    // The lease clock is read when status runs.
    const withoutClock = (text: string) => {
      const parsed = JSON.parse(text);
      delete parsed.leases.now;
      return parsed;
    };
    assert.deepEqual(withoutClock(status.stdout), withoutClock(expected.stdout));
    assert.deepEqual(JSON.parse(status.stdout).counts, { pending: 0, finished: 8, errored: 0 });
  });

  test("a plugin importing parallax-eval's subpaths gets the registries the CLI runs with", () => {
    // The user's project: node_modules/parallax-eval is the bundled package.
    const user = join(work, "user");
    mkdirSync(join(user, "node_modules"), { recursive: true });
    symlinkSync(PKG, join(user, "node_modules", "parallax-eval"));
    writeFileSync(
      join(user, "plugin.mjs"),
      [
        'import { renderTask, scaffolds, taskMessages } from "parallax-eval/scaffolds";',
        'import { datasetLoaders } from "parallax-eval/datasets";',
        'import { pluginApi } from "parallax-eval/run";',
        "export function register(api) {",
        '  if (api.scaffolds !== scaffolds) throw new Error("parallax-eval/scaffolds is a second copy");',
        '  if (api.loaders !== datasetLoaders) throw new Error("parallax-eval/datasets is a second copy");',
        '  if (api !== pluginApi) throw new Error("parallax-eval/run is a second copy");',
        "  // Registered through the imported registry, not through api: only a shared one is seen.",
        '  scaffolds.register("imported_direct", {',
        '    name: "imported_direct",',
        "    expectedCalls: () => 1,",
        "    async run({ task, call }) {",
        '      const reply = await call("main", taskMessages(task, renderTask(task)));',
        "      return { finalText: reply.text };",
        "    },",
        "  });",
        "}",
        "",
      ].join("\n"),
    );
    const spec = join(user, "study.yaml");
    writeFileSync(
      spec,
      [
        "study: shared-registries",
        "plugins: [./plugin.mjs]",
        "models:",
        "  - { id: sim-strong, provider: sim, model: strong }",
        "benchmarks:",
        "  - id: own",
        "    loader: inline",
        "    items:",
        "      - { id: q1, stem: Which is a prime number?, options: [Four, Seven, Nine], gold_index: 1 }",
        "      - { id: q2, stem: Which is a colour?, options: [Green, Table, Seven], gold_index: 0 }",
        "conditions:",
        "  facets:",
        "    scaffold: [imported_direct, direct]",
        "    format: [mc]",
        "",
      ].join("\n"),
    );
    const plan = runBundle(["plan", spec], user);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /scaffold=imported_direct format=mc/);
    assert.match(plan.stdout, /trials: 4\b/);
  });
});
