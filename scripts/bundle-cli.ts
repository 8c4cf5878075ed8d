/**
 * The bundled build (step two of `npm run build`, after tsc), into dist/bundle/:
 *
 * - `core.cjs`: the `plan` command (CORE_COMMANDS) and every module it imports, with their pure-JS
 *   dependencies, bundled by esbuild as one CommonJS file. Each module is a lazily evaluated init
 *   function (`command(name)`, and `module(path)` for the modules the body takes from it).
 * - `body.cjs`: every package subpath (`parallax-eval`, `/contracts`, `/stats`, ...) and the other
 *   CLI commands (`load(name)`, `command(name)`), without the core's modules: its imports of those
 *   are the core's instances. So each module has one copy: the registries a user's plugin imports
 *   from `parallax-eval/scaffolds` are the ones the CLI runs with.
 * - `cli.cjs`: the CLI's shell (src/cli/main.ts and commander); a command's `import()` loads the
 *   core (`plan`) or the body. `--version` and `--help` load neither.
 * - `errors.cjs`: core/errors.ts, shared by shell, core and body, so `instanceof ParallaxError`
 *   holds across them.
 * - `loader.cjs` (scripts/bundle/code-cache.ts): loads `cli.cjs`, `core.cjs` and `body.cjs`
 *   through `vm.Script` with V8's code cache; `parallax.cjs` (package.json `bin`) calls it. The
 *   three are written already wrapped as Node wraps a module (bundle/module-wrapper.ts), so only
 *   the loader loads them.
 * - `code-cache/`: the caches, written at build time by a warm-up `plan` on the quickstart (shell
 *   and core) and a script that evaluates the other commands (body).
 * - `<subpath>.js` (package.json `exports`): ES module files that re-export the body's subpath,
 *   loaded through the same loader (so through `require.cache`, the same instance).
 * - `bootstrap-worker.js`: the bootstrap's worker thread (stats/parallel-bootstrap.ts starts it
 *   from beside its own module, which in the bundle is this folder).
 *
 * Native packages, the provider SDKs and the chart, browser and server libraries stay external.
 *
 * Why CommonJS: Node 20 has no code cache for ES modules, and compiling was about a sixth of
 * `plan`'s start-up (docs/PERFORMANCE.md, "Startup").
 *
 * Usage: tsx scripts/bundle-cli.ts [--from src|dist] [--outdir DIR] [--no-warm] (defaults: dist, dist/bundle).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type BuildOptions, build, type Metafile, type Plugin } from "esbuild";
import { wrapModule } from "./bundle/module-wrapper.js";

/** Package subpath file name (without .js) -> module path under src/ or dist/ (without extension). */
export const BUNDLE_ENTRIES: Readonly<Record<string, string>> = {
  index: "index",
  contracts: "contracts/index",
  stats: "stats/index",
  models: "models/index",
  datasets: "datasets/index",
  scaffolds: "scaffolds/index",
  scoring: "scoring/index",
  run: "run/index",
  tools: "tools/index",
};

/**
 * Dependencies left out of the bundle: native, large and lazily loaded, or reading their own files.
 * kysely and pg stay out too: bundled into the code-cached body they cut an idle worker's start-up
 * by a further 36% of instructions, but `bench:scale-out` with 4 workers ran slower in three runs
 * (2.4x one worker against 3.0x), for a reason not found yet (docs/PERFORMANCE.md, "Code cache").
 */
export const BUNDLE_EXTERNAL: readonly string[] = [
  "better-sqlite3",
  "pg",
  "kysely",
  "node-llama-cpp",
  "playwright-core",
  "openai",
  "@anthropic-ai/sdk",
  "@google/genai",
  "@observablehq/plot",
  "linkedom",
  "hono",
  "@hono/node-server",
];

/**
 * The commands built into `core.cjs` with every module they import; the other commands and the
 * package subpaths are in `body.cjs`, which takes the modules it shares with them from the core.
 * `plan` is the command whose start-up has a target (within 2x of `--version`): it then reads,
 * and V8 deserialises, less than half of the code.
 */
export const CORE_COMMANDS: readonly string[] = ["plan"];

/** The CLI's file in the bundle (package.json `bin`). */
export const BUNDLED_CLI = "parallax.cjs";
/** The bundle's files that the loader compiles with a code cache. */
export const CODE_CACHED = ["cli.cjs", "core.cjs", "body.cjs"] as const;

/** The CLI launcher: everything else is in the loader, the shell and the body. */
const LAUNCHER = '#!/usr/bin/env node\n"use strict";\nrequire("./loader.cjs").runCli();\n';

/** Options common to the CommonJS files. `import.meta.url` becomes the file's own URL. */
function commonJs(outfile: string): BuildOptions {
  return {
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    external: [...BUNDLE_EXTERNAL],
    define: { "import.meta.url": "__parallax_import_meta_url" },
    banner: {
      js: [
        'var __parallax_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
        `var ${IMPORT_HELPER} = (specifier) => require("./loader.cjs").importModule(specifier);`,
      ].join("\n"),
    },
    // import.meta.resolve is only used when running from source (tsx), never in the bundle.
    logOverride: { "empty-import-meta": "silent" },
    logLevel: "warning",
    // Whitespace and syntax only: names stay as written, for stack traces. A third less text to
    // read and keep in memory (docs/PERFORMANCE.md, "Startup").
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
  };
}

/** Resolves every import of core/errors to the shared errors.cjs beside the importing file. */
function sharedErrors(errorsModule: string): Plugin {
  return {
    name: "shared-errors",
    setup(build) {
      build.onResolve({ filter: /(^|\/)errors(\.js|\.ts)?$/ }, (args) => {
        const target = resolve(args.resolveDir, args.path).replace(/\.(js|ts)$/, "");
        return target === errorsModule ? { path: "./errors.cjs", external: true } : undefined;
      });
    },
  };
}

/**
 * zod's `locales` namespace (error messages in some 50 languages, a fifth of the code `plan`
 * loads) holds only English in the bundle: Parallax never calls `z.config(z.locales.xx())`, and
 * zod's schemas import English directly as their default.
 */
function englishZodOnly(): Plugin {
  return {
    name: "english-zod-only",
    setup(build) {
      build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
          ? { path: join(args.resolveDir, "..", "locales", "en.js"), namespace: "zod-locales" }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path)};`,
        resolveDir: dirname(args.path),
        loader: "js",
      }));
    },
  };
}

/** In the shell, `import("./commands/NAME.js")` loads that command from the core or the body, through the loader. */
function commandsFromBundle(): Plugin {
  return {
    name: "commands-from-body",
    setup(build) {
      build.onResolve({ filter: /^\.\/commands\/[\w-]+\.js$/ }, (args) => ({
        path: args.path.slice("./commands/".length, -".js".length),
        namespace: "body-command",
      }));
      build.onLoad({ filter: /.*/, namespace: "body-command" }, (args) => ({
        contents: `module.exports = require("./loader.cjs").${CORE_COMMANDS.includes(args.path) ? "core" : "body"}().command(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
      build.onResolve({ filter: /^\.\/loader\.cjs$/, namespace: "body-command" }, () => ({
        path: "./loader.cjs",
        external: true,
      }));
    },
  };
}

/** One exported function of an entry: a switch from a name to a lazily evaluated require(). */
interface EntrySwitch {
  exportName: string;
  cases: [name: string, path: string][];
  /** The error's text before the name, when no case matches. */
  missing: string;
}

/** An entry of the core or the body: its switches, each case evaluated on first use. */
function switchEntry(switches: EntrySwitch[]): string {
  return switches
    .flatMap(({ exportName, cases, missing }) => [
      `exports.${exportName} = function ${exportName}(name) {`,
      "  switch (name) {",
      ...cases.map(([name, path]) => `    case ${JSON.stringify(name)}: return require(${JSON.stringify(path)});`),
      `    default: throw new Error(${JSON.stringify(`${missing} `)} + name);`,
      "  }",
      "};",
    ])
    .concat("")
    .join("\n");
}

function commandSwitch(sources: string, extension: string, commands: readonly string[]): EntrySwitch {
  return {
    exportName: "command",
    cases: commands.map((name) => [name, join(sources, "cli", "commands", name + extension)]),
    missing: "parallax has no command module",
  };
}

/** The body's entry: the package subpaths and the commands outside the core. */
function bodyEntry(sources: string, extension: string, commands: string[]): string {
  const subpaths: EntrySwitch = {
    exportName: "load",
    cases: Object.entries(BUNDLE_ENTRIES).map(([name, path]) => [name, join(sources, path + extension)]),
    missing: "parallax-eval has no subpath",
  };
  const outsideCore = commands.filter((name) => !CORE_COMMANDS.includes(name));
  return switchEntry([subpaths, commandSwitch(sources, extension, outsideCore)]);
}

/**
 * The core's entry: its commands, and (by their path from the package root) the modules of the
 * core that the body imports.
 */
function coreEntry(root: string, sources: string, extension: string, shared: readonly string[]): string {
  const modules: EntrySwitch = {
    exportName: "module",
    cases: [...shared].sort().map((key) => [key, join(root, key)]),
    missing: "the bundle's core has no module",
  };
  return switchEntry([commandSwitch(sources, extension, CORE_COMMANDS), modules]);
}

/** The body's view of a core module: an ES module over `CORE_EXPORTS` (for an ES module), or that itself. */
const CORE_MODULE = "core-module";
/** The core's instance of a module, as CommonJS: `module.exports = core().module(path)`. */
const CORE_EXPORTS = "core-exports";

/**
 * In the body, an import of a module that the core holds becomes the core's instance of it
 * (`core().module(path)`), so each module is in one file and has one state: the registries
 * that plan fills are the ones the subpaths and the other commands use. `shared` collects the
 * paths the body imports this way.
 *
 * An ES module of the core reaches the body through an ES module that re-exports it from a
 * CommonJS stub outside any package: there esbuild reads `default` as the ES module's default
 * export, where an importer in a `"type": "module"` package would take the whole exports object
 * as Node does for CommonJS. A CommonJS module of the core is the stub itself, so its importer
 * reads it as it would the module.
 */
function modulesFromCore(root: string, coreModules: ReadonlyMap<string, ModuleFormat>, shared: Set<string>): Plugin {
  return {
    name: "modules-from-core",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === CORE_MODULE || args.namespace === CORE_MODULE || args.namespace === CORE_EXPORTS)
          return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: CORE_MODULE,
        });
        const format = coreModules.get(resolved.path);
        if (resolved.errors.length > 0 || resolved.external || format === undefined) return undefined;
        const key = relative(root, resolved.path);
        shared.add(key);
        return { path: key, namespace: format === "esm" ? CORE_MODULE : CORE_EXPORTS };
      });
      build.onLoad({ filter: /.*/, namespace: CORE_MODULE }, (args) => {
        const exports = JSON.stringify(`${CORE_EXPORTS}:${args.path}`);
        return {
          contents: `import * as core from ${exports};\nexport * from ${exports};\nexport default core.default;\n`,
          loader: "js",
        };
      });
      build.onResolve({ filter: new RegExp(`^${CORE_EXPORTS}:`), namespace: CORE_MODULE }, (args) => ({
        path: args.path.slice(CORE_EXPORTS.length + 1),
        namespace: CORE_EXPORTS,
      }));
      build.onLoad({ filter: /.*/, namespace: CORE_EXPORTS }, (args) => ({
        contents: `module.exports = require("./loader.cjs").core().module(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
      build.onResolve({ filter: /^\.\/loader\.cjs$/, namespace: CORE_EXPORTS }, () => ({
        path: "./loader.cjs",
        external: true,
      }));
    },
  };
}

type ModuleFormat = "esm" | "cjs" | "none";

/** The source files an esbuild build took in (absolute paths), each with its module format. */
function inputsOf(root: string, metafile: Metafile | undefined): Map<string, ModuleFormat> {
  if (!metafile) throw new Error("esbuild returned no metafile");
  return new Map(
    Object.entries(metafile.inputs)
      .filter(([input]) => !input.includes(":") && !input.startsWith("<"))
      .map(([input, { format }]): [string, ModuleFormat] => [resolve(root, input), format ?? "none"]),
  );
}

/** An ES module file re-exporting one subpath of the body (package.json `exports`). */
function subpathModule(name: string, exportNames: string[]): string {
  const named = exportNames.filter((key) => key !== "default" && /^[A-Za-z_$][\w$]*$/.test(key));
  return [
    "// Generated by scripts/bundle-cli.ts: this subpath of the bundle's body, the instance the CLI uses.",
    'import { createRequire } from "node:module";',
    `const subpath = createRequire(import.meta.url)("./loader.cjs").body().load(${JSON.stringify(name)});`,
    ...(named.length > 0 ? [`export const { ${named.join(", ")} } = subpath;`] : []),
    ...(exportNames.includes("default") ? ["export default subpath.default;"] : []),
    "",
  ].join("\n");
}

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/**
 * A dynamic `import()` in code that `vm.Script` compiled with a code cache fails in Node 20
 * ("A dynamic import callback was not specified": the deserialised script loses Node's import
 * callback; a callback function needs --experimental-vm-modules). So each `import(` that esbuild
 * left in the output (external packages, user plugins) calls the loader's `importModule`, a normally
 * loaded module whose `import()` is Node's own. Skipped: `import(` after a backtick or a name
 * character (a comment's code span, a name such as `dynamicImport(`) and `import(${` (a template
 * string, in code that runs only from source).
 */
const DYNAMIC_IMPORT = /(?<![\w$.`])import\((?!\$\{)/g;
const IMPORT_HELPER = "__parallax_import";

/**
 * Post-processes a CommonJS file the loader compiles: dynamic imports through the loader, ASCII
 * only, and wrapped as Node wraps a module (module-wrapper.ts), so the file is only loaded
 * through the loader. The loader reads the file as latin1, which is faster than UTF-8 and keeps
 * V8's source a one-byte string; esbuild already escapes non-ASCII characters in strings, regular
 * expressions and names, so what is left is in comments, where an escape changes nothing.
 */
function prepareForCodeCache(file: string): void {
  const text = readFileSync(file, "utf8");
  // An external package that the file also require()s (kysely: the store's modules import it
  // statically, its opener dynamically) is loaded by require for both, so one copy of it runs
  // (an import() would load its ES build beside the CommonJS one).
  const required = new Set([...text.matchAll(/\brequire\("([^".][^"]*)"\)/g)].map((match) => match[1]));
  const prepared = text
    .replace(DYNAMIC_IMPORT, `${IMPORT_HELPER}(`)
    .replace(new RegExp(`${IMPORT_HELPER}\\("([^".][^"]*)"\\)`, "g"), (call, id: string) =>
      required.has(id) ? `Promise.resolve().then(() => require(${JSON.stringify(id)}))` : call,
    )
    .replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  writeFileSync(file, wrapModule(prepared));
}

/**
 * Bundles from `root`/src (TypeScript, for tests) or `root`/dist (tsc's output) into `outdir`,
 * then (unless `warm` is false) runs `plan` on the quickstart once to write the code caches.
 * `outdir` must be two folders below the package root: core/version.ts reads "../../package.json".
 */
export async function bundleCli(options: {
  root: string;
  from: "src" | "dist";
  outdir: string;
  warm?: boolean;
}): Promise<void> {
  const { root, outdir } = options;
  const extension = options.from === "src" ? ".ts" : ".js";
  const sources = join(root, options.from);
  const errorsModule = join(sources, "core", "errors");
  const commands = readdirSync(join(sources, "cli", "commands"))
    .filter((file) => file.endsWith(extension) && !file.endsWith(".d.ts"))
    .map((file) => file.slice(0, -extension.length));
  rmSync(outdir, { recursive: true, force: true });
  await build({ ...commonJs(join(outdir, "errors.cjs")), entryPoints: [errorsModule + extension] });
  // The core is built twice: first to learn which modules it holds, then with a switch over those
  // the body imports (requiring them adds no module, so both builds hold the same modules).
  const coreBuild = (shared: readonly string[], write: boolean) =>
    build({
      ...commonJs(join(outdir, "core.cjs")),
      absWorkingDir: root,
      stdin: { contents: coreEntry(root, sources, extension, shared), resolveDir: root, sourcefile: "core-entry.cjs" },
      plugins: [sharedErrors(errorsModule), englishZodOnly()],
      metafile: true,
      write,
    });
  const coreModules = inputsOf(root, (await coreBuild([], false)).metafile);
  const shared = new Set<string>();
  await build({
    ...commonJs(join(outdir, "body.cjs")),
    absWorkingDir: root,
    stdin: { contents: bodyEntry(sources, extension, commands), resolveDir: root, sourcefile: "body-entry.cjs" },
    plugins: [sharedErrors(errorsModule), englishZodOnly(), modulesFromCore(root, coreModules, shared)],
  });
  const core = inputsOf(root, (await coreBuild([...shared], true)).metafile);
  const added = [...core.keys()].filter((file) => !coreModules.has(file));
  if (added.length > 0)
    throw new Error(`the core's second build took in modules the first did not: ${added.join(", ")}`);
  await build({
    ...commonJs(join(outdir, "cli.cjs")),
    entryPoints: [join(sources, "cli", "main" + extension)],
    plugins: [sharedErrors(errorsModule), commandsFromBundle()],
  });
  for (const name of CODE_CACHED) prepareForCodeCache(join(outdir, name));
  const hashes = Object.fromEntries(CODE_CACHED.map((name) => [name, sha256(join(outdir, name))]));
  await build({
    ...commonJs(join(outdir, "loader.cjs")),
    entryPoints: [join(root, "scripts", "bundle", "code-cache.ts")],
    define: { __PARALLAX_BUNDLE_HASHES__: JSON.stringify(hashes) },
    banner: {},
  });
  await build({
    entryPoints: [join(sources, "stats", "bootstrap-worker" + extension)],
    outfile: join(outdir, "bootstrap-worker.js"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
  writeFileSync(join(outdir, BUNDLED_CLI), LAUNCHER);
  chmodSync(join(outdir, BUNDLED_CLI), 0o755);
  writeSubpathModules(outdir);
  if (options.warm !== false) warmCodeCache(root, outdir, commands);
}

/** Writes the subpath files, with the export names the body's subpaths have. */
function writeSubpathModules(outdir: string): void {
  // Loaded in a child process: evaluating the subpaths here would leave their state in the build.
  const names = Object.keys(BUNDLE_ENTRIES);
  const listing = spawnSync(
    process.execPath,
    [
      "-e",
      `const body = require(${JSON.stringify(join(outdir, "loader.cjs"))}).body();` +
        `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, Object.keys(body.load(n))]))));`,
    ],
    { encoding: "utf8", env: { ...process.env, PARALLAX_CODE_CACHE: "0" } },
  );
  if (listing.status !== 0) throw new Error(`listing the subpaths' exports failed: ${listing.stderr}`);
  const exportsOf = JSON.parse(listing.stdout) as Record<string, string[]>;
  for (const name of names) writeFileSync(join(outdir, `${name}.js`), subpathModule(name, exportsOf[name]));
}

/**
 * Writes the code caches into outdir/code-cache/: `plan` on the quickstart with the fresh bundle
 * caches the shell and the core (with every function that plan compiled); then a script that
 * evaluates every other command's modules caches the body.
 */
function warmCodeCache(root: string, outdir: string, commands: string[]): void {
  const warmUp = (label: string, args: string[]) => {
    // A script file, not `node -e`: Node options would key the caches for themselves.
    const warm = spawnSync(process.execPath, args, {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, PARALLAX_CODE_CACHE: "1" },
    });
    if (warm.status !== 0) throw new Error(`the code-cache warm-up (${label}) failed: ${warm.stderr}`);
  };
  warmUp("plan examples/quickstart.yaml", [
    join(outdir, BUNDLED_CLI),
    "plan",
    join(root, "examples", "quickstart.yaml"),
  ]);
  const script = join(mkdtempSync(join(tmpdir(), "parallax-warm-")), "warm-body.cjs");
  const others = commands.filter((name) => !CORE_COMMANDS.includes(name));
  writeFileSync(
    script,
    `const body = require(${JSON.stringify(join(outdir, "loader.cjs"))}).body();\n` +
      `for (const name of ${JSON.stringify(others)}) body.command(name);\n`,
  );
  try {
    warmUp("the body's commands", [script]);
  } finally {
    rmSync(dirname(script), { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      from: { type: "string", default: "dist" },
      outdir: { type: "string", default: "dist/bundle" },
      "no-warm": { type: "boolean", default: false },
    },
  });
  const root = resolve(import.meta.dirname, "..");
  if (values.from !== "src" && values.from !== "dist")
    throw new Error(`--from: expected src or dist, found ${values.from}`);
  await bundleCli({ root, from: values.from, outdir: resolve(root, values.outdir), warm: !values["no-warm"] });
}
