/** Locating ../shared/datasets (or $PARALLAX_SHARED_DIR/datasets) and loading through the registry. */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchmarkSpec } from "../../src/contracts/spec.js";
import { datasetLoaders } from "../../src/datasets/registry.js";
import type { LoadedBenchmark } from "../../src/datasets/types.js";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const fixtures = join(repoRoot, "tests/fixtures/datasets");
const sharedDir = process.env.PARALLAX_SHARED_DIR ?? resolve(repoRoot, "../shared");
export const datasetsDir = join(sharedDir, "datasets");

/** node:test `skip` option: a reason string when the shared datasets are absent. */
export const sharedSkip: string | false = existsSync(join(datasetsDir, "README.md"))
  ? false
  : `shared datasets not found at ${datasetsDir} (set PARALLAX_SHARED_DIR); skipping real-data loader tests`;

export async function load(
  loader: string,
  source: string,
  options?: Record<string, unknown>,
  ctx: { baseDir?: string; cacheDir?: string } = {},
): Promise<LoadedBenchmark> {
  const spec: BenchmarkSpec = { id: loader, loader, source, ...(options ? { options } : {}) };
  return datasetLoaders.get(loader).load(spec, {
    baseDir: ctx.baseDir ?? datasetsDir,
    cacheDir: ctx.cacheDir ?? join(tmpdir(), "parallax-test-cache"),
  });
}

export function countBy<T>(values: T[], key: (v: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[key(v)] = (out[key(v)] ?? 0) + 1;
  return out;
}
