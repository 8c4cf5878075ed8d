/**
 * The bundled build (step two of `npm run build`, after tsc): the CLI and every package subpath
 * (`parallax-eval`, `/contracts`, `/stats`, ...) bundled together by esbuild into dist/bundle/,
 * with their pure-JS dependencies, as ESM with code splitting. One build for all entries means one
 * copy of each module: the registries a user's plugin imports from `parallax-eval/scaffolds` are
 * the ones the bundled CLI runs with. Lazy `import()`s stay lazy (each is its own chunk), so a
 * command loads only what it uses. Native packages, the provider SDKs and the store, chart and
 * server libraries stay external: they are loaded lazily anyway, and some find files of their own.
 *
 * Why: `plan` loaded about 200 module files (our ~90 and zod's ~95); resolving and reading them
 * was a large part of its start-up (docs/PERFORMANCE.md, "Startup").
 *
 * Usage: tsx scripts/bundle-cli.ts [--from src|dist] [--outdir DIR] (defaults: dist, dist/bundle).
 */
import { chmodSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";

/** Output name -> module path under src/ or dist/ (without extension). */
export const BUNDLE_ENTRIES: Readonly<Record<string, string>> = {
  parallax: "cli/main",
  index: "index",
  contracts: "contracts/index",
  stats: "stats/index",
  models: "models/index",
  datasets: "datasets/index",
  scaffolds: "scaffolds/index",
  scoring: "scoring/index",
  run: "run/index",
  tools: "tools/index",
  // parallel-bootstrap.ts starts its worker from "./bootstrap-worker.js" beside its own module: in
  // the bundle that is this entry, since entries and chunks share one folder.
  "bootstrap-worker": "stats/bootstrap-worker",
};

/** Dependencies left out of the bundle: native, large and lazily loaded, or reading their own files. */
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

/** The CLI's file in the bundle (package.json `bin`). */
export const BUNDLED_CLI = "parallax.js";

/**
 * Bundles from `root`/src (TypeScript, for tests) or `root`/dist (tsc's output) into `outdir`.
 * `outdir` must be two folders below the package root: core/version.ts reads "../../package.json".
 */
export async function bundleCli(options: { root: string; from: "src" | "dist"; outdir: string }): Promise<void> {
  const extension = options.from === "src" ? ".ts" : ".js";
  const entryPoints = Object.fromEntries(
    Object.entries(BUNDLE_ENTRIES).map(([name, path]) => [name, join(options.root, options.from, path + extension)]),
  );
  // Chunk names are content hashes: an old build's chunks would otherwise stay beside the new ones.
  rmSync(options.outdir, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir: options.outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: "chunk-[hash]",
    external: [...BUNDLE_EXTERNAL],
    // CommonJS dependencies (commander, yaml) call require() for Node's built-ins.
    banner: {
      js: 'import { createRequire as __parallaxCreateRequire } from "node:module";\nconst require = __parallaxCreateRequire(import.meta.url);',
    },
    logLevel: "warning",
  });
  // No V8 flags in its shebang: a young generation started at 8 or 16 MB (--min-semi-space-size)
  // spares plan's eight scavenges, but touching the larger space costs more CPU than they did
  // (docs/PERFORMANCE.md, "Startup").
  chmodSync(join(options.outdir, BUNDLED_CLI), 0o755);
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({
    options: { from: { type: "string", default: "dist" }, outdir: { type: "string", default: "dist/bundle" } },
  });
  const root = resolve(import.meta.dirname, "..");
  if (values.from !== "src" && values.from !== "dist")
    throw new Error(`--from: expected src or dist, found ${values.from}`);
  await bundleCli({ root, from: values.from, outdir: resolve(root, values.outdir) });
}
