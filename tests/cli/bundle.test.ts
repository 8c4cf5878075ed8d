/**
 * The bundled CLI (scripts/bundle-cli.ts, package.json `bin` and `exports`): built here from src
 * into a throwaway package, it prints what the unbundled CLI prints, runs the external plugin
 * fixture, and shares its registries with the package subpaths a user's plugin imports (a plugin
 * that registers through `parallax-eval/scaffolds` itself, not through `api`, is seen by `plan`).
 * Each command's module is a chunk of its own, loaded only when that command runs.
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
import Database from "better-sqlite3";
import { BUNDLE_ENTRIES, BUNDLED_CLI, bundleCli } from "../../scripts/bundle-cli.js";
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
    // The worker threads' modules, started from beside the chunks that start them.
    for (const worker of ["bootstrap-worker.js", "spec-curve-worker.js"])
      assert.ok(built.has(worker), `${worker} not built`);
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

/** The bundle's files a command loads (a module hook logs each URL), by file name. */
function bundleFilesLoadedBy(args: string[]): string[] {
  const log = join(work, `loaded-${args[0].replace(/\W/g, "")}.log`);
  const hooks = join(work, "log-hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(log)}, url + "\\n");\n  return next(url, context);\n}\n`,
  );
  const register = join(work, "log-register.mjs");
  writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  const child = spawnSync(process.execPath, ["--import", register, join(BUNDLE, BUNDLED_CLI), ...args], {
    cwd: REPO,
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  const bundleUrl = `file://${BUNDLE}/`;
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url.startsWith(bundleUrl))
    .map((url) => url.slice(bundleUrl.length));
}

/** The chunk esbuild made for a command's module (named after its file), e.g. `plan-XXXXXXXX.js`. */
const commandChunk = (name: string) => new RegExp(`^${name}-[A-Z0-9]{8}\\.js$`);

describe("the bundle's lazily loaded commands", () => {
  test("--version loads no command's module; plan loads its own and no other command's", () => {
    const commands = readdirSync(join(REPO, "src", "cli", "commands"))
      .filter((file) => file.endsWith(".ts"))
      .map((file) => file.slice(0, -".ts".length));
    assert.ok(commands.includes("plan") && commands.includes("run"), commands.join(", "));
    const built = readdirSync(BUNDLE);
    for (const name of commands)
      assert.ok(
        built.some((file) => commandChunk(name).test(file)),
        `no chunk of its own for the ${name} command`,
      );
    const version = bundleFilesLoadedBy(["--version"]);
    assert.ok(version.includes(BUNDLED_CLI), version.join(", "));
    for (const name of commands)
      assert.ok(!version.some((file) => commandChunk(name).test(file)), `--version loaded the ${name} command`);
    const plan = bundleFilesLoadedBy(["plan", join(REPO, "examples", "quickstart.yaml")]);
    for (const name of commands)
      assert.equal(
        plan.some((file) => commandChunk(name).test(file)),
        name === "plan",
        `plan ${name === "plan" ? "did not load" : "loaded"} the ${name} command`,
      );
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

describe("the bundle's worker thread", () => {
  test("the stats subpath's parallel bootstrap starts bootstrap-worker.js and equals the one-thread result", () => {
    const user = join(work, "bootstrap-user");
    mkdirSync(join(user, "node_modules"), { recursive: true });
    symlinkSync(PKG, join(user, "node_modules", "parallax-eval"));
    writeFileSync(
      join(user, "main.mjs"),
      [
        'import { closeBootstrapWorkers, clusterBootstrap, clusterBootstrapParallel, clusteredCellCounts, pairwiseRiskDifferences } from "parallax-eval/stats";',
        "const cluster = [], cell = [], outcome = [];",
        "for (let g = 0; g < 200; g++) for (const c of ['A', 'B']) { cluster.push('g' + g); cell.push(c); outcome.push((g * 7 + (c === 'A' ? 3 : 0)) % 5 < 2 ? 1 : 0); }",
        "const data = clusteredCellCounts({ cluster, cell, outcome }, ['A', 'B']);",
        "const { statistic } = pairwiseRiskDifferences(2);",
        "const options = { resamples: 2000, seed: 7, blockSize: 500 };",
        "const one = clusterBootstrap(data, statistic, options);",
        "const two = await clusterBootstrapParallel(data, statistic, { ...options, threads: 2 });",
        "await closeBootstrapWorkers();",
        "console.log(JSON.stringify({ one: [one.standardError, one.percentileCi], two: [two.standardError, two.percentileCi] }));",
        "",
      ].join("\n"),
    );
    const child = spawnSync(process.execPath, [join(user, "main.mjs")], { cwd: user, encoding: "utf8" });
    assert.equal(child.status, 0, child.stderr);
    const { one, two } = JSON.parse(child.stdout);
    assert.ok(one[0].length === 1 && one[0][0] > 0, `one-thread SE and CI: ${child.stdout}`);
    assert.deepEqual(two, one);
  });
});

describe("the bundle's benchmark preparation thread", () => {
  test("run prepares a benchmark with an exemplar pool on benchmark-worker.js and stores the pool", () => {
    const dir = join(work, "pooled-study");
    mkdirSync(dir, { recursive: true });
    // Our own questions in MMLU's headerless CSV form: question, four options, answer letter.
    const csv = Array.from(
      { length: 60 },
      (_, i) => `Demo dial ${i} reads?,one ${i},two ${i},three ${i},four ${i},${"ABCD"[i % 4]}`,
    );
    writeFileSync(join(dir, "dial_test.csv"), `${csv.join("\n")}\n`);
    writeFileSync(
      join(dir, "study.yaml"),
      [
        "study: bundled-pool",
        "seed: 2",
        "models:",
        "  - { id: sim-a, provider: sim, model: medium, params: { temperature: 0 } }",
        "benchmarks:",
        "  - id: dial",
        "    loader: mmlu",
        "    source: dial_test.csv",
        "    sample: { n: 6, seed: 1 }",
        "    exemplars: { source: dial_test.csv, exclude_evaluated: true }",
        "conditions:",
        "  facets:",
        '    few_shot: ["0", "2"]',
        "",
      ].join("\n"),
    );
    const child = runBundle(["run", join(dir, "study.yaml"), "--out", join(dir, "out")], dir);
    assert.equal(child.status, 0, child.stderr);
    const db = new Database(join(dir, "out", "parallax.db"), { readonly: true });
    const { rows } = db.prepare("select sum(json_array_length(keys)) as rows from run_item_batches").get() as {
      rows: number;
    };
    db.close();
    assert.equal(rows, 60, "the 6 evaluated items and the pool's other 54 are stored");
  });
});

describe("the bundled CLI on PostgreSQL", () => {
  test("run --workers 2 starts its second worker through the bundled CLI", {
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
    const run = runBundle(["run", spec, "--out", join(work, "workers-study"), "--store", url, "--workers", "2"]);
    assert.equal(run.status, 0, run.stderr);
    const rows = await queryStore<{ status: string; n: string }>(
      url,
      "select status, count(*) as n from trials group by status",
    );
    assert.deepEqual(
      rows.map((row) => [row.status, Number(row.n)]),
      [["finished", 24]],
    );
  });
});
