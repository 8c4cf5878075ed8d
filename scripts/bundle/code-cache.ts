/**
 * The code-cache loader of the bundled CLI (built by scripts/bundle-cli.ts into
 * dist/bundle/loader.cjs). It loads a CommonJS file of the bundle through `vm.Script` with V8's
 * code cache (`cachedData`): V8 then skips parsing and compiling what the cache holds. Node 20 has
 * no code cache for ES modules (no `module.enableCompileCache`), which is why the bundle is
 * CommonJS.
 *
 * A cache file is keyed by the bundled file's content hash (given at build time), V8's version,
 * the CPU architecture and Node's command-line options. It is read from dist/bundle/code-cache/ (written at build time by a
 * warm-up run) or else from the user's cache folder. A missing or rejected cache (other Node
 * flags, a corrupt file) only means compiling as usual; the cache is then written when the
 * process exits, from the functions that the run compiled, where a folder is writable. Nothing
 * here ever fails a command. PARALLAX_CODE_CACHE=0 turns the cache off.
 *
 * A loaded file is entered in `require.cache`, so a later `require` of it (the package's subpath
 * files do that) gets the same module, and with it the same registries.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import vm from "node:vm";
import { setYoungGeneration, type YoungGeneration, youngGeneration } from "./young-generation.js";

/** File name -> SHA-256 of its content, filled in by the build (esbuild `define`). */
declare const __PARALLAX_BUNDLE_HASHES__: Record<string, string>;
const hashes: Record<string, string> = __PARALLAX_BUNDLE_HASHES__;

/** What happened to one file's cache in this process (read by the tests through PARALLAX_CODE_CACHE_REPORT). */
export interface CacheEvent {
  file: string;
  cache: string | undefined;
  /** "accepted", "rejected" (V8 refused it), "missing", or "off". */
  outcome: "accepted" | "rejected" | "missing" | "off";
  written?: string;
  /** The young-generation setting the file was compiled in (young-generation.ts). */
  youngGeneration: YoungGeneration;
}

const events: CacheEvent[] = [];
const pendingWrites: { script: vm.Script; event: CacheEvent; key: string }[] = [];

function cacheEnabled(): boolean {
  const setting = process.env.PARALLAX_CODE_CACHE;
  return setting !== "0" && setting !== "off" && setting !== "false";
}

/** Folders searched for a cache file, in order: the bundle's own, then the user's. */
function cacheDirs(bundleDir: string): string[] {
  const userBase = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return [join(bundleDir, "code-cache"), join(userBase, "parallax-eval", "code-cache")];
}

/** A short hash of a string (FNV-1a): it names a cache file; node:crypto would cost `--version` its load. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, "0");
}

/**
 * V8 rejects a cache made under other V8 flags, so Node options (`node --max-old-space-size=...`,
 * or the same in NODE_OPTIONS) get caches of their own instead of rewriting the common one on
 * every run.
 */
function cacheKey(file: string): string {
  const name = basename(file);
  const hash = hashes[name] ?? "unhashed";
  const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ? [process.env.NODE_OPTIONS] : [])];
  const flags = options.length === 0 ? "" : `-flags-${fnv1a(options.join("\0"))}`;
  return `${name}-${hash.slice(0, 16)}-v8-${process.versions.v8}-${process.arch}${flags}.bin`;
}

function readCache(dirs: string[], key: string): { path: string; data: Buffer } | undefined {
  for (const dir of dirs) {
    const path = join(dir, key);
    try {
      return { path, data: readFileSync(path) };
    } catch {
      // not there: try the next folder
    }
  }
  return undefined;
}

/** Writes atomically (a whole file or none) to the first writable folder; returns the path or undefined. */
function writeCache(dirs: string[], key: string, data: Buffer): string | undefined {
  for (const dir of dirs) {
    const path = join(dir, key);
    const temporary = `${path}.${process.pid}.tmp`;
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(temporary, data);
      renameSync(temporary, path);
      return path;
    } catch {
      // read-only install or full disk: try the user's folder, else go without a cache
    }
  }
  return undefined;
}

function writePendingCaches(): void {
  for (const { script, event, key } of pendingWrites.splice(0)) {
    try {
      // The cache carries V8's flags: those the file was compiled under.
      setYoungGeneration(event.youngGeneration);
      event.written = writeCache(cacheDirs(dirname(event.file)), key, script.createCachedData());
    } catch {
      // a cache is an optimisation: never fail the command for it
    }
  }
  const report = process.env.PARALLAX_CODE_CACHE_REPORT;
  if (report) {
    try {
      writeFileSync(report, `${JSON.stringify(events)}\n`, { flag: "a" });
    } catch {
      // the report is for tests only
    }
  }
}

let exitHookInstalled = false;
function onExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", writePendingCaches);
}

/**
 * Loads a CommonJS file of the bundle as `require` would, compiling it with the code cache.
 * A file already loaded (by this or by `require`) is returned from `require.cache`.
 */
export function requireCached(file: string, young: YoungGeneration = youngGeneration()): unknown {
  const cached = createRequire(file).cache[file];
  if (cached) return cached.exports;
  setYoungGeneration(young);
  // Wrapped at build time (module-wrapper.ts): V8 compiles the text as read, without a copy.
  const source = readFileSync(file, "latin1");
  const enabled = cacheEnabled();
  const key = cacheKey(file);
  const dirs = cacheDirs(dirname(file));
  const found = enabled ? readCache(dirs, key) : undefined;
  const script = new vm.Script(source, {
    filename: file,
    cachedData: found?.data,
  });
  const outcome = !enabled ? "off" : !found ? "missing" : script.cachedDataRejected ? "rejected" : "accepted";
  const event: CacheEvent = { file, cache: found?.path, outcome, youngGeneration: youngGeneration() };
  events.push(event);
  if (enabled && outcome !== "accepted") {
    pendingWrites.push({ script, event, key });
  }
  if (enabled || process.env.PARALLAX_CODE_CACHE_REPORT) onExit();
  const module = new Module(file);
  module.filename = file;
  const moduleRequire = createRequire(file);
  module.paths = moduleRequire.resolve.paths("parallax-eval") ?? [];
  moduleRequire.cache[file] = module;
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  try {
    run.call(module.exports, module.exports, moduleRequire, module, file, dirname(file));
  } catch (error) {
    delete moduleRequire.cache[file];
    throw error;
  }
  module.loaded = true;
  return module.exports;
}

/** The bundle's core (`plan` and the modules it imports), loaded once per process, in the start-up setting. */
export function core(): { command(name: string): unknown; module(path: string): unknown } {
  return requireCached(join(__dirname, "core.cjs"), "startup") as ReturnType<typeof core>;
}

type Body = { load(name: string): unknown; command(name: string): unknown };

/**
 * The bundle's body (every package subpath and the other commands), loaded once per process
 * after the core, whose modules it imports; then V8's default young generation comes back for
 * the body's long-running commands.
 */
export function body(): Body {
  const file = join(__dirname, "body.cjs");
  if (createRequire(file).cache[file]) return requireCached(file) as Body;
  core();
  const loaded = requireCached(file, "startup") as Body;
  setYoungGeneration("default");
  return loaded;
}

/** Runs the CLI: its small shell (commander and the command list), which loads the core or the body on demand. */
export function runCli(): void {
  requireCached(join(__dirname, "cli.cjs"));
}

/**
 * The bundle's dynamic `import()`s call this (scripts/bundle-cli.ts rewrites them): code compiled
 * by `vm.Script` from a code cache has no working `import()` in Node 20, this module does.
 */
export function importModule(specifier: string): Promise<unknown> {
  return import(specifier);
}
