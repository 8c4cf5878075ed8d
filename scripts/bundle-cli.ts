/**
 * The bundled build (step two of `npm run build`, after tsc): one esbuild run writes dist/bundle/,
 * ES modules with code splitting.
 *
 * - `parallax.js`: the CLI (src/cli/main.ts, package.json `bin`). Each command's module is a
 *   dynamic `import()`, so it is a chunk of its own, loaded only when that command runs:
 *   `--version` and `--help` load the shell and commander alone.
 * - `<subpath>.js`: the package's subpaths (package.json `exports`: `parallax-eval`,
 *   `/contracts`, `/stats`, ...).
 * - `bootstrap-worker.js`, `spec-curve-worker.js` and `benchmark-worker.js`: the worker threads of
 *   the bootstrap (stats/parallel-bootstrap.ts), of the specification curve's permutation test
 *   (analysis/conditions/spec-curve.ts) and of a run's benchmark preparation
 *   (run/prepare/benchmark-thread.ts); each is started from beside the module that starts it, so
 *   every chunk sits in the same folder.
 * - `chunk-*.js`: the modules shared between entries and commands. Each module is in exactly one
 *   file, so the registries a user's plugin imports from `parallax-eval/scaffolds` are the ones
 *   the CLI runs with.
 *
 * Native packages, most provider SDKs and the chart, browser, server and database drivers stay
 * external: they are loaded from node_modules when a command needs them. kysely (the store's query
 * builder) and the openai SDK are bundled, each into the chunk that loads it lazily: as ES modules
 * from node_modules they were about 260 and 150 files, each resolved, read and compiled apart,
 * about a third of the CPU time of a short `parallax run`.
 *
 * Usage: tsx scripts/bundle-cli.ts [--from src|dist] [--outdir DIR] (defaults: dist, dist/bundle).
 */
import { chmodSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";

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

/** Dependencies left out of the bundle: native, large and loaded only by some commands, or reading their own files. */
export const BUNDLE_EXTERNAL: readonly string[] = [
  "better-sqlite3",
  "pg",
  "node-llama-cpp",
  "playwright-core",
  "@anthropic-ai/sdk",
  "@google/genai",
  "@observablehq/plot",
  "linkedom",
  "hono",
  "@hono/node-server",
];

/** The CLI's file in the bundle (package.json `bin`). */
export const BUNDLED_CLI = "parallax.js";

/**
 * Bundled CommonJS dependencies call `require` for Node's built-in modules; an ES module has no
 * `require`, so each output file makes one.
 */
const REQUIRE_BANNER =
  'import { createRequire as __parallaxCreateRequire } from "node:module";\n' +
  "const require = __parallaxCreateRequire(import.meta.url);";

/**
 * Bundles from `root`/src (TypeScript, for tests) or `root`/dist (tsc's output) into `outdir`.
 * `outdir` must be two folders below the package root: core/version.ts reads "../../package.json"
 * from beside its own module.
 */
export async function bundleCli(options: { root: string; from: "src" | "dist"; outdir: string }): Promise<void> {
  const { root, outdir } = options;
  const extension = options.from === "src" ? ".ts" : ".js";
  const sources = join(root, options.from);
  const entryPoints: Record<string, string> = {
    [BUNDLED_CLI.replace(/\.js$/, "")]: join(sources, "cli", "main" + extension),
    "bootstrap-worker": join(sources, "stats", "bootstrap-worker" + extension),
    "spec-curve-worker": join(sources, "analysis", "conditions", "spec-curve-worker" + extension),
    "benchmark-worker": join(sources, "run", "prepare", "benchmark-worker" + extension),
  };
  for (const [name, path] of Object.entries(BUNDLE_ENTRIES)) entryPoints[name] = join(sources, path + extension);
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir,
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: [...BUNDLE_EXTERNAL],
    banner: { js: REQUIRE_BANNER },
    // Whitespace and syntax only: names stay as written, for stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    logLevel: "warning",
  });
  chmodSync(join(outdir, BUNDLED_CLI), 0o755);
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      from: { type: "string", default: "dist" },
      outdir: { type: "string", default: "dist/bundle" },
    },
  });
  const root = resolve(import.meta.dirname, "..");
  if (values.from !== "src" && values.from !== "dist")
    throw new Error(`--from: expected src or dist, found ${values.from}`);
  await bundleCli({ root, from: values.from, outdir: resolve(root, values.outdir) });
}
