/**
 * Checks on a benchmark's loaded items that no loader can be trusted to make: unique item ids
 * (a duplicate would silently replace an item), and a sample no larger than the benchmark.
 */
import type { Item } from "../../contracts/item.js";
import type { BenchmarkSpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { formatPath, SpecError, type SpecSource } from "../../core/spec-loader.js";
import { shown } from "../../datasets/quote.js";
import type { LoadedBenchmark } from "../../datasets/types.js";

/** Throws naming both rows of the first duplicate item id a loader returned. */
export function refuseDuplicateIds(benchmark: BenchmarkSpec, loaded: LoadedBenchmark): void {
  const first = new Map<string, number>();
  loaded.items.forEach((item: Item, index) => {
    const earlier = first.get(item.id);
    if (earlier === undefined) {
      first.set(item.id, index);
      return;
    }
    const where = loaded.sources[item.id];
    const file = where?.file ? `${where.file}: ` : "";
    throw new InputError(
      `${file}benchmark '${benchmark.id}': duplicate item id ${shown(item.id)} at item ${earlier + 1} and item ${index + 1} ` +
        `of the ${benchmark.loader} loader's rows; item ids must be unique within a benchmark (one would be dropped)`,
    );
  });
}

/**
 * A sample larger than the benchmark: an error at the spec's `sample.n`, or with
 * `sample.allow_smaller: true` a warning saying how many items were taken.
 */
export function checkSampleSize(
  benchmark: BenchmarkSpec,
  index: number,
  available: number,
  spec: { path: string; source: SpecSource },
): string | undefined {
  const sample = benchmark.sample;
  if (!sample || sample.n <= available) return undefined;
  const path = ["benchmarks", index, "sample", "n"];
  if (sample.allow_smaller) {
    return `benchmark '${benchmark.id}': sample.n is ${sample.n} but the benchmark has ${available} items; all ${available} were taken`;
  }
  throw new SpecError(spec.path, [
    {
      ...spec.source.locate(path),
      message:
        `at YAML path ${formatPath(path)}: expected at most ${available} (the items benchmark '${benchmark.id}' has), ` +
        `found ${sample.n}; lower n, or set sample.allow_smaller: true to take every item with a warning`,
    },
  ]);
}
