/**
 * The bundled CLI (scripts/bundle-cli.ts, package.json `bin` and `exports`): built here from src
 * into a throwaway package, it prints what the unbundled CLI prints, runs the external plugin
 * fixture, and shares its registries with the package subpaths a user's plugin imports (a plugin
 * that registers through `parallax-eval/scaffolds` itself, not through `api`, is seen by `plan`).
 * Its V8 code cache (scripts/bundle/code-cache.ts) is written by the build and accepted by V8; a
 * corrupt, foreign or unwritable cache only means compiling, and the command still runs. `plan`
 * loads the shell and the core only; the other commands load the body too, which takes the core's
 * modules from it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  copyFileSync,
  existsSync,
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
import { BUNDLE_ENTRIES, BUNDLED_CLI, bundleCli, CODE_CACHED, CORE_COMMANDS } from "../../scripts/bundle-cli.js";
import { runCli } from "../helpers/cli.js";
import { dropTestSchemas, queryStore, skipWithoutPostgres, testStoreUrl } from "../helpers/postgres-run.js";

const REPO = resolve(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "parallax-bundle-"));
const PKG = join(work, "pkg");
const BUNDLE = join(PKG, "dist", "bundle");
const packageJson = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));

/** Runs the bundled CLI as `bin` would. */
function runBundle(args: string[], cwd = REPO, bundle = BUNDLE, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [join(bundle, BUNDLED_CLI), ...args], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
    env,
  });
}

before(async () => {
  // A package laid out as installed: package.json (its exports point into dist/bundle) and the
  // dependencies the bundle leaves external.
  mkdirSync(PKG, { recursive: true });
  copyFileSync(join(REPO, "package.json"), join(PKG, "package.json"));
  symlinkSync(join(REPO, "node_modules"), join(PKG, "node_modules"));
  await bundleCli({ root: REPO, from: "src", outdir: BUNDLE });
});
after(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropTestSchemas();
});

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

interface CacheEvent {
  file: string;
  cache?: string;
  outcome: "accepted" | "rejected" | "missing" | "off";
  written?: string;
  youngGeneration: "default" | "startup";
}

/** The files `plan` loads: the shell and the core, never the body. */
const PLAN_FILES = ["cli.cjs", "core.cjs"] as const;

let copies = 0;
/** A second installed package with a copy of the built bundle, so a test can spoil its caches. */
function copyPackage(): string {
  const pkg = join(work, `copy-${copies++}`);
  mkdirSync(pkg);
  copyFileSync(join(REPO, "package.json"), join(pkg, "package.json"));
  symlinkSync(join(REPO, "node_modules"), join(pkg, "node_modules"));
  cpSync(BUNDLE, join(pkg, "dist", "bundle"), { recursive: true });
  return join(pkg, "dist", "bundle");
}

/** Runs `plan` on the quickstart with the bundle in `bundle`; returns its output and the loader's cache events. */
function planWithReport(bundle: string, env: NodeJS.ProcessEnv = {}) {
  const report = join(work, `report-${copies++}.jsonl`);
  const quickstart = join(REPO, "examples", "quickstart.yaml");
  const child = runBundle(["plan", quickstart, "--json"], REPO, bundle, {
    ...process.env,
    XDG_CACHE_HOME: join(work, "no-user-cache"),
    ...env,
    PARALLAX_CODE_CACHE_REPORT: report,
  });
  assert.equal(child.status, 0, child.stderr);
  const events = JSON.parse(readFileSync(report, "utf8").trim()) as CacheEvent[];
  const byFile = Object.fromEntries(events.map((event) => [event.file.slice(bundle.length + 1), event]));
  return { plan: JSON.parse(child.stdout), events: byFile };
}

/** The cache file the build wrote for one of the bundle's files. */
function cacheFileOf(bundle: string, name: string): string {
  const hash = createHash("sha256")
    .update(readFileSync(join(bundle, name)))
    .digest("hex")
    .slice(0, 16);
  const file = readdirSync(join(bundle, "code-cache")).find((entry) => entry.startsWith(`${name}-${hash}-`));
  assert.ok(file, `no cache file for ${name} with its content hash ${hash}`);
  return join(bundle, "code-cache", file);
}

describe("the bundled CLI's code cache", () => {
  test("the build writes a cache per file, keyed by its content and V8's version, and V8 accepts it", () => {
    for (const name of CODE_CACHED) {
      const file = cacheFileOf(BUNDLE, name);
      assert.ok(file.includes(`-v8-${process.versions.v8}-${process.arch}.bin`), file);
    }
    const { plan, events } = planWithReport(BUNDLE);
    assert.deepEqual(Object.keys(events).sort(), [...PLAN_FILES].sort());
    for (const name of PLAN_FILES) {
      assert.equal(events[name].outcome, "accepted", `${name}: ${JSON.stringify(events[name])}`);
      assert.equal(events[name].cache, cacheFileOf(BUNDLE, name));
      assert.equal(events[name].written, undefined, "an accepted cache is not rewritten");
    }
    const unbundled = runCli(["plan", join(REPO, "examples", "quickstart.yaml"), "--json"], { cwd: REPO });
    assert.deepEqual(plan, JSON.parse(unbundled.stdout));
  });

  test("--version loads only the shell, not the core or the body", () => {
    const report = join(work, "version-report.jsonl");
    const child = runBundle(["--version"], REPO, BUNDLE, { ...process.env, PARALLAX_CODE_CACHE_REPORT: report });
    assert.equal(child.status, 0, child.stderr);
    const events = JSON.parse(readFileSync(report, "utf8").trim()) as CacheEvent[];
    assert.deepEqual(
      events.map((event) => [event.file.slice(BUNDLE.length + 1), event.outcome]),
      [["cli.cjs", "accepted"]],
    );
  });

  test("plan loads the core, another command the core and the body, each in the setting its cache was made in", () => {
    assert.deepEqual(CORE_COMMANDS, ["plan"]);
    const user = join(work, "young-generation");
    mkdirSync(user, { recursive: true });
    // A plugin that keeps 400,000 objects alive through scavenges, then reads the young
    // generation's size: V8 grows it for such survivors unless growth is off.
    writeFileSync(
      join(user, "probe.mjs"),
      [
        'import { appendFileSync } from "node:fs";',
        'import { getHeapSpaceStatistics } from "node:v8";',
        "export function register() {",
        "  const kept = [];",
        "  for (let i = 0; i < 400_000; i++) kept.push({ i, text: 'kept ' + i });",
        '  const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space");',
        "  appendFileSync(process.env.YOUNG_PROBE, young.space_size + ' ' + kept.length + '\\n');",
        "}",
        "",
      ].join("\n"),
    );
    const spec = join(user, "study.yaml");
    writeFileSync(
      spec,
      [
        "study: young-generation",
        "plugins: [./probe.mjs]",
        "models:",
        "  - { id: sim-a, provider: sim, model: medium }",
        "benchmarks:",
        "  - id: own",
        "    loader: inline",
        "    items:",
        "      - { id: q1, stem: Which is a prime number?, options: [Four, Seven, Nine], gold_index: 1 }",
        "conditions:",
        "  facets:",
        "    format: [mc]",
        "execution:",
        "  cache: false",
        "",
      ].join("\n"),
    );
    const probe = join(user, "young.txt");
    const withReport = (args: string[]) => {
      const report = join(user, `report-${copies++}.jsonl`);
      const child = runBundle(args, user, BUNDLE, {
        ...process.env,
        PARALLAX_CODE_CACHE_REPORT: report,
        YOUNG_PROBE: probe,
      });
      assert.equal(child.status, 0, child.stderr);
      const events = JSON.parse(readFileSync(report, "utf8").trim()) as CacheEvent[];
      return events.map((event) => [event.file.slice(BUNDLE.length + 1), event.outcome, event.youngGeneration]);
    };
    assert.deepEqual(withReport(["plan", spec]), [
      ["cli.cjs", "accepted", "default"],
      ["core.cjs", "accepted", "startup"],
    ]);
    assert.deepEqual(withReport(["run", spec, "--out", join(user, "study")]), [
      ["cli.cjs", "accepted", "default"],
      ["core.cjs", "accepted", "startup"],
      ["body.cjs", "accepted", "startup"],
    ]);
    const [planYoung, runYoung] = readFileSync(probe, "utf8")
      .trim()
      .split("\n")
      .map((line) => Number(line.split(" ")[0]));
    // plan keeps V8's initial young generation; run, once the body is loaded, lets it grow.
    assert.ok(planYoung <= 2 * 1024 * 1024, `plan's young generation grew to ${planYoung} bytes`);
    assert.ok(runYoung > 2 * 1024 * 1024, `run's young generation stayed at ${runYoung} bytes`);
  });

  test("a corrupt or foreign cache is rejected, the command runs, and a good cache replaces it", () => {
    const bundle = copyPackage();
    const core = cacheFileOf(bundle, "core.cjs");
    const shell = cacheFileOf(bundle, "cli.cjs");
    const expected = planWithReport(BUNDLE).plan;
    // Corrupt: the core's cache with its bytes reversed. Foreign: the shell's cache holds the core's.
    writeFileSync(core, Buffer.from(readFileSync(core)).reverse());
    copyFileSync(cacheFileOf(BUNDLE, "core.cjs"), shell);
    const spoilt = planWithReport(bundle);
    assert.deepEqual(spoilt.plan, expected);
    for (const name of PLAN_FILES) {
      assert.equal(spoilt.events[name].outcome, "rejected", name);
      assert.equal(spoilt.events[name].written, cacheFileOf(bundle, name), `${name}'s cache rewritten in place`);
    }
    const again = planWithReport(bundle);
    for (const name of PLAN_FILES) assert.equal(again.events[name].outcome, "accepted", name);
  });

  test("without a cache and with no writable folder the command runs; the user's cache folder serves next", () => {
    const bundle = copyPackage();
    rmSync(join(bundle, "code-cache"), { recursive: true });
    // A file where the cache folder would be: as root no permission bit stops a write, this does.
    writeFileSync(join(bundle, "code-cache"), "not a folder");
    const blocked = join(work, "blocked-user-cache");
    writeFileSync(blocked, "not a folder either");
    const expected = planWithReport(BUNDLE).plan;
    const nowhere = planWithReport(bundle, { XDG_CACHE_HOME: blocked });
    assert.deepEqual(nowhere.plan, expected);
    for (const name of PLAN_FILES) {
      assert.equal(nowhere.events[name].outcome, "missing", name);
      assert.equal(nowhere.events[name].written, undefined, name);
    }
    const userCache = join(work, "user-cache");
    const first = planWithReport(bundle, { XDG_CACHE_HOME: userCache });
    for (const name of PLAN_FILES) {
      assert.equal(first.events[name].outcome, "missing", name);
      assert.ok(first.events[name].written?.startsWith(join(userCache, "parallax-eval", "code-cache")), name);
      assert.ok(existsSync(first.events[name].written!), name);
    }
    const second = planWithReport(bundle, { XDG_CACHE_HOME: userCache });
    assert.deepEqual(second.plan, expected);
    for (const name of PLAN_FILES) {
      assert.equal(second.events[name].outcome, "accepted", name);
      assert.equal(second.events[name].cache, first.events[name].written, name);
    }
  });

  test("Node options get a cache of their own, written on the first run and accepted on the next", () => {
    const bundle = copyPackage();
    const quickstart = join(REPO, "examples", "quickstart.yaml");
    const withOption = () => {
      const report = join(work, `flags-report-${copies++}.jsonl`);
      const child = spawnSync(
        process.execPath,
        ["--max-semi-space-size=4", join(bundle, BUNDLED_CLI), "plan", quickstart, "--json"],
        { cwd: REPO, encoding: "utf8", env: { ...process.env, PARALLAX_CODE_CACHE_REPORT: report } },
      );
      assert.equal(child.status, 0, child.stderr);
      return JSON.parse(readFileSync(report, "utf8").trim()) as CacheEvent[];
    };
    const first = withOption();
    for (const event of first) {
      assert.equal(event.outcome, "missing", event.file);
      assert.match(event.written ?? "", /-flags-[0-9a-f]{8}\.bin$/);
    }
    for (const event of withOption()) assert.equal(event.outcome, "accepted", event.file);
    // The build's cache, for no options, is still there and still accepted.
    for (const name of PLAN_FILES) assert.equal(planWithReport(bundle).events[name].outcome, "accepted", name);
  });

  test("PARALLAX_CODE_CACHE=0 compiles without reading or writing a cache", () => {
    const bundle = copyPackage();
    rmSync(join(bundle, "code-cache"), { recursive: true });
    const off = planWithReport(bundle, { PARALLAX_CODE_CACHE: "0" });
    for (const name of PLAN_FILES) assert.equal(off.events[name].outcome, "off", name);
    assert.equal(existsSync(join(bundle, "code-cache")), false);
  });

  test("a script importing the package's subpaths without the CLI gets one copy of each registry", () => {
    const user = join(work, "library-user");
    mkdirSync(join(user, "node_modules"), { recursive: true });
    symlinkSync(PKG, join(user, "node_modules", "parallax-eval"));
    writeFileSync(
      join(user, "main.mjs"),
      [
        'import { scaffolds } from "parallax-eval/scaffolds";',
        'import { datasetLoaders } from "parallax-eval/datasets";',
        'import { pluginApi } from "parallax-eval/run";',
        'import { InputError } from "parallax-eval";',
        "if (pluginApi.scaffolds !== scaffolds || pluginApi.loaders !== datasetLoaders) throw new Error('second copy');",
        "if (typeof InputError !== 'function') throw new Error('no InputError');",
        "console.log(scaffolds.names().includes('direct'));",
        "",
      ].join("\n"),
    );
    const child = spawnSync(process.execPath, [join(user, "main.mjs")], { cwd: user, encoding: "utf8" });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), "true");
  });
});

describe("the bundled CLI on PostgreSQL", () => {
  test("run --workers 2 starts its second worker through the launcher, which accepts the build's cache", {
    skip: skipWithoutPostgres,
  }, async () => {
    const spec = join(work, "workers.yaml");
    const items = Array.from(
      { length: 12 },
      (_, i) =>
        `      - { id: w${i}, stem: "Worker question ${i}?", options: [a${i}, b${i}, c${i}], gold_index: ${i % 3} }`,
    );
    writeFileSync(
      spec,
      `study: bundle-workers\nmodels:\n  - { id: sim-a, provider: sim, model: medium, options: { latency_ms: 20 } }\nbenchmarks:\n  - id: bench\n    loader: inline\n    items:\n${items.join("\n")}\nconditions:\n  facets:\n    format: [mc]\nattempts: 2\nexecution:\n  concurrency: 4\n  cache: false\n`,
    );
    const url = testStoreUrl("bundle_workers");
    const report = join(work, "workers-report.jsonl");
    const run = runBundle(
      ["run", spec, "--out", join(work, "workers-study"), "--store", url, "--workers", "2"],
      REPO,
      BUNDLE,
      {
        ...process.env,
        PARALLAX_CODE_CACHE_REPORT: report,
      },
    );
    assert.equal(run.status, 0, run.stderr);
    const rows = await queryStore<{ status: string; n: string }>(
      url,
      "select status, count(*) as n from trials group by status",
    );
    assert.deepEqual(
      rows.map((row) => [row.status, Number(row.n)]),
      [["finished", 24]],
    );
    // Two processes loaded the body through the loader, each accepting the build's cache.
    const bodyLoads = readFileSync(report, "utf8")
      .trim()
      .split("\n")
      .flatMap((line) => JSON.parse(line) as CacheEvent[])
      .filter((event) => event.file.endsWith("body.cjs"));
    assert.equal(bodyLoads.length, 2);
    for (const event of bodyLoads) assert.equal(event.outcome, "accepted");
  });
});
