/**
 * One benchmark of a study spec, loaded as `run` loads it (plugins, the spec's folder for
 * relative sources, the spec's sample), for previews such as `parallax items --spec`.
 */
import { dirname, resolve } from "node:path";
import type { BenchmarkSpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import type { LoadedBenchmark } from "../../datasets/types.js";
import { loadStudySpec } from "../../facets/validate.js";
import { refuseDuplicateIds } from "./benchmark-checks.js";
import { loadForSpec } from "./benchmark-load.js";
import { loadSpecPlugins } from "./plugins.js";

export async function loadSpecBenchmark(
  specPath: string,
  benchmarkId: string,
  options: { cacheDir?: string } = {},
): Promise<{ benchmark: BenchmarkSpec; loaded: LoadedBenchmark }> {
  await loadSpecPlugins(specPath);
  const { spec, source } = loadStudySpec(specPath);
  const index = spec.benchmarks.findIndex((b) => b.id === benchmarkId);
  const benchmark = spec.benchmarks[index];
  if (!benchmark) {
    throw new InputError(
      `${specPath}: no benchmark '${benchmarkId}'; the spec's benchmarks: ${spec.benchmarks.map((b) => b.id).join(", ")}`,
    );
  }
  const baseDir = dirname(resolve(specPath));
  const context = {
    baseDir,
    cacheDir: options.cacheDir ? resolve(options.cacheDir) : resolve(baseDir, ".parallax-cache"),
  };
  const field = { spec: { path: specPath, source }, path: ["benchmarks", index, "source"] };
  const loaded = await loadForSpec(benchmark, context, field, (result) => refuseDuplicateIds(benchmark, result));
  return { benchmark, loaded };
}
