/**
 * One benchmark of a study spec, loaded as `run` loads it (plugins, the spec's folder for
 * relative sources, the spec's sample), for previews such as `parallax items --spec`.
 */
import { dirname, resolve } from "node:path";
import type { BenchmarkSpec } from "../contracts/spec.js";
import { InputError } from "../core/errors.js";
import { datasetLoaders } from "../datasets/registry.js";
import type { LoadedBenchmark } from "../datasets/types.js";
import { loadStudySpec } from "../facets/validate.js";
import { refuseDuplicateIds } from "./benchmark-checks.js";
import { loadSpecPlugins } from "./plugins.js";

export async function loadSpecBenchmark(
  specPath: string,
  benchmarkId: string,
  options: { cacheDir?: string } = {},
): Promise<{ benchmark: BenchmarkSpec; loaded: LoadedBenchmark }> {
  await loadSpecPlugins(specPath);
  const { spec } = loadStudySpec(specPath);
  const benchmark = spec.benchmarks.find((b) => b.id === benchmarkId);
  if (!benchmark) {
    throw new InputError(
      `${specPath}: no benchmark '${benchmarkId}'; the spec's benchmarks: ${spec.benchmarks.map((b) => b.id).join(", ")}`,
    );
  }
  const baseDir = dirname(resolve(specPath));
  const loaded = await datasetLoaders.get(benchmark.loader).load(benchmark, {
    baseDir,
    cacheDir: options.cacheDir ? resolve(options.cacheDir) : resolve(baseDir, ".parallax-cache"),
  });
  refuseDuplicateIds(benchmark, loaded);
  return { benchmark, loaded };
}
