/**
 * Locates a benchmark's published files: a local file or directory (relative paths resolve
 * against ctx.baseDir), or an http(s) URL downloaded once into ctx.cacheDir, verified by
 * SHA-256 and reused. A URL cannot be listed, so a directory URL (ending in "/") needs
 * `options.files`, the relative paths to fetch. `options.files` also narrows a local
 * directory to the named files.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { threadId } from "node:worker_threads";
import { basename, join, relative, resolve, sep } from "node:path";
import type { BenchmarkSpec } from "../contracts/spec.js";
import { InputError } from "../core/errors.js";
import {
  mebibytes,
  overLimitReason,
  type ReadLimit,
  readablePathKind,
  readBoundedText,
  UnreadablePathError,
} from "../core/guarded-read.js";
import { sha256 } from "../core/hash.js";
import { DEFAULT_SOURCE_MB, MAX_SOURCE_MB } from "./options.js";
import type { LoadContext } from "./types.js";

export interface SourceFile {
  /** Local path to read (the cached copy for a URL). */
  path: string;
  /** Path relative to the source root, "/"-separated ("data/Age.jsonl"); the file name for a file source. */
  rel: string;
  /** How the manifest names the file: the source as written, plus `rel` for a directory. */
  display: string;
  /** The most of it that is read (options.max_source_mb). */
  limit: ReadLimit;
}

export interface ResolvedSource {
  isDir: boolean;
  files: SourceFile[];
}

export async function resolveSource(spec: BenchmarkSpec, ctx: LoadContext): Promise<ResolvedSource> {
  const source = spec.source;
  if (source === undefined || source === "") throw new InputError(`benchmark '${spec.id}' needs a source path or URL`);
  const files = stringList(spec, "files");
  const limit = sourceLimit(spec);
  if (isUrl(source)) return resolveUrl(spec, { source, files }, ctx, limit);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source))
    throw new InputError(
      `benchmark '${spec.id}': unsupported source scheme in '${source}' (use a path or an http(s) URL)`,
    );
  const path = resolve(ctx.baseDir, source);
  if (!existsSync(path)) throw new InputError(`benchmark '${spec.id}': source not found: ${path}`);
  if (readablePathKind(path) === "file") {
    return { isDir: false, files: [{ path, rel: basename(path), display: source, limit }] };
  }
  const rels = files ?? listFiles(path);
  for (const rel of rels) {
    if (!existsSync(join(path, rel)))
      throw new InputError(`benchmark '${spec.id}': options.files names a missing file: ${join(path, rel)}`);
  }
  const display = (rel: string) => joinDisplay(source, rel);
  return { isDir: true, files: rels.map((rel) => ({ path: join(path, rel), rel, display: display(rel), limit })) };
}

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** The most read of each of a benchmark's files, with the option that raises it. */
export function sourceLimit(spec: BenchmarkSpec): ReadLimit {
  const mb = spec.options?.max_source_mb;
  const declared = typeof mb === "number" ? mb : DEFAULT_SOURCE_MB;
  return {
    bytes: mebibytes(declared),
    what: `a file of benchmark '${spec.id}'`,
    raise: `options.max_source_mb (at most ${MAX_SOURCE_MB})`,
  };
}

/** The files whose relative path passes `match`, or an error naming what was looked for. */
export function pickFiles(
  src: ResolvedSource,
  spec: BenchmarkSpec,
  what: string,
  match: (rel: string) => boolean,
): SourceFile[] {
  const picked = src.files.filter((file) => match(file.rel));
  if (picked.length === 0) throw new InputError(`benchmark '${spec.id}': no ${what} found in source '${spec.source}'`);
  return picked;
}

/** The first of several candidate relative paths present in a directory source (a file source is used as is). */
export function pickOne(src: ResolvedSource, spec: BenchmarkSpec, candidates: readonly string[]): SourceFile {
  if (!src.isDir) return src.files[0];
  for (const candidate of candidates) {
    const hit = src.files.find((file) => file.rel === candidate);
    if (hit) return hit;
  }
  throw new InputError(`benchmark '${spec.id}': none of ${candidates.join(", ")} found in source '${spec.source}'`);
}

/** A source file's text; a FIFO, a device or a file over its limit is refused (an UnreadablePathError). */
export function readText(file: SourceFile): string {
  return readBoundedText(file.path, file.limit);
}

export function stringList(spec: BenchmarkSpec, key: string): string[] | undefined {
  const value = spec.options?.[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new InputError(`benchmark '${spec.id}': options.${key} must be a list of strings`);
  }
  return value as string[];
}

function listFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith("."))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? listFiles(root, path) : [relative(root, path).split(sep).join("/")];
    })
    .sort();
}

function joinDisplay(source: string, rel: string): string {
  return `${source.replace(/\/+$/, "")}/${rel}`;
}

async function resolveUrl(
  spec: BenchmarkSpec,
  /** The URL and the files named under it (a directory URL cannot be listed). */
  at: { source: string; files: string[] | undefined },
  ctx: LoadContext,
  limit: ReadLimit,
): Promise<ResolvedSource> {
  const { source, files } = at;
  if (source.endsWith("/")) {
    if (!files || files.length === 0) {
      throw new InputError(`benchmark '${spec.id}': a directory URL cannot be listed; name the files in options.files`);
    }
    const resolved: SourceFile[] = [];
    for (const rel of files) {
      const url = new URL(rel, source).href;
      const path = await cachedDownload(url, expectedHash(spec, rel), ctx.cacheDir, limit);
      resolved.push({ path, rel, display: url, limit });
    }
    return { isDir: true, files: resolved };
  }
  const rel = decodeURIComponent(basename(new URL(source).pathname)) || "download";
  const path = await cachedDownload(source, expectedHash(spec, rel), ctx.cacheDir, limit);
  return { isDir: false, files: [{ path, rel, display: source, limit }] };
}

/** options.sha256: one hex digest (single-file source) or a map from relative path to digest. */
function expectedHash(spec: BenchmarkSpec, rel: string): string | undefined {
  const value = spec.options?.sha256;
  if (value === undefined) return undefined;
  if (typeof value === "string") return value.toLowerCase();
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const entry = (value as Record<string, unknown>)[rel];
    if (entry === undefined || typeof entry === "string") return entry?.toLowerCase();
  }
  throw new InputError(`benchmark '${spec.id}': options.sha256 must be a hex digest or a map of file -> digest`);
}

function fileHash(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/**
 * Downloads `url` once into the cache and returns the local path. A digest sidecar written
 * after a verified download lets later loads check the cached bytes; a cached copy that no
 * longer matches (truncated, edited) is fetched again rather than trusted.
 */
export async function cachedDownload(
  url: string,
  expected: string | undefined,
  cacheDir: string,
  limit: ReadLimit,
): Promise<string> {
  const dir = join(cacheDir, "datasets", sha256(url).slice(0, 16));
  const path = join(dir, decodeURIComponent(basename(new URL(url).pathname)) || "download");
  const sidecar = `${path}.sha256`;
  if (existsSync(path) && existsSync(sidecar)) {
    const recorded = readFileSync(sidecar, "utf8").trim();
    if (fileHash(path) === recorded && (expected === undefined || expected === recorded)) return path;
  }
  const bytes = await fetchBytes(url, limit);
  const digest = createHash("sha256").update(bytes).digest("hex");
  if (expected !== undefined && digest !== expected) {
    throw new InputError(`download of ${url}: SHA-256 ${digest} does not match the expected ${expected}`);
  }
  mkdirSync(dir, { recursive: true });
  // Write then rename, so an interrupted download never leaves a partial file under the final name
  // (one temp name per thread: a run prepares its benchmarks on a worker thread).
  const tmp = `${path}.${process.pid}.${threadId}.part`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
  writeFileSync(sidecar, `${digest}\n`);
  return path;
}

async function fetchBytes(url: string, limit: ReadLimit): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new InputError(`download of ${url} failed: ${(error as Error).message}`);
  }
  if (!response.ok) throw new InputError(`download of ${url} failed: HTTP ${response.status}`);
  const bytes = await boundedBody(url, response, limit);
  const declared = response.headers.get("content-length");
  if (declared !== null && response.headers.get("content-encoding") === null && Number(declared) !== bytes.length) {
    throw new InputError(`download of ${url} is incomplete: ${bytes.length} of ${declared} bytes`);
  }
  return bytes;
}

/** The response body, counted as it arrives: a server that sends without end is cut off at the limit. */
async function boundedBody(url: string, response: Response, limit: ReadLimit): Promise<Buffer> {
  const overLimit = () => new UnreadablePathError(url, overLimitReason(limit));
  if (Number(response.headers.get("content-length") ?? 0) > limit.bytes) throw overLimit();
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit.bytes) {
      await reader.cancel();
      throw overLimit();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
