/**
 * One benchmark of a study prepared: loaded, sampled, and its few-shot exemplar pool loaded,
 * recorded and (with `setAside`) encoded for the store. Everything it returns is plain data, so a
 * worker thread can prepare a benchmark and hand the result back (benchmark-worker.ts).
 */
import type { Item } from "../../contracts/item.js";
import type { StudySpec } from "../../contracts/spec.js";
import type { SpecSource } from "../../core/spec-loader.js";
import { sampleItems } from "../../datasets/sample.js";
import type { LoadContext, LoadedBenchmark } from "../../datasets/types.js";
import { keptOrSame } from "../../core/kept-or-same.js";
import { checkSampleSize, refuseDuplicateIds } from "./benchmark-checks.js";
import { loadForSpec } from "./benchmark-load.js";
import {
  drawnPools,
  type ExemplarManifest,
  exemplarManifest,
  loadExemplarPool,
  type SetAsidePool,
  setAsidePool,
} from "./exemplars.js";
import { drawFamilyItems } from "./families.js";

export interface BenchmarkRequest {
  spec: StudySpec;
  /** The benchmark's index in `spec.benchmarks`. */
  index: number;
  context: LoadContext;
  /** The spec's file and YAML, where a problem of a benchmark's source is located. */
  located: { path: string; source: SpecSource };
  /** The spec loads plugins: a pool reading the benchmark's own source is loaded again (readsOwnSource). */
  plugins: boolean;
  /** Encode the whole pool for the store and keep only the exemplars the spec's levels draw. */
  setAside: boolean;
}

export interface PreparedBenchmark {
  /** The sampled items, in the source's order; with study families, only those some family draws. */
  sampled: Item[];
  /** With study families: each family's items of the benchmark (drawFamilyItems), in draw order. */
  families?: Map<string, string[]>;
  /** The file and row of each sampled item. */
  sources: LoadedBenchmark["sources"];
  skippedRows: number;
  /** A sample cut to the benchmark's size (`sample.allow_smaller`). */
  warning?: string;
  pool?: {
    manifest: ExemplarManifest;
    /** The whole pool, or with `setAside` only its drawn exemplars. */
    items: Item[];
    aside?: SetAsidePool;
  };
}

export async function prepareBenchmark(request: BenchmarkRequest): Promise<PreparedBenchmark> {
  const { spec, index, context, located } = request;
  const benchmark = spec.benchmarks[index];
  const field = { spec: located, path: ["benchmarks", index, "source"] };
  const loaded = await loadForSpec(benchmark, context, field, (result) => refuseDuplicateIds(benchmark, result));
  const warning = checkSampleSize(benchmark, index, loaded.items.length, located);
  const sampled = benchmark.sample
    ? sampleItems(loaded.items, {
        n: benchmark.sample.n,
        seed: benchmark.sample.seed,
        stratifyBy: benchmark.sample.stratify_by,
        allocation: benchmark.sample.allocation,
      })
    : loaded.items;
  const pool = await loadExemplarPool(
    benchmark,
    sampled,
    context,
    { spec: located, path: ["benchmarks", index, "exemplars", "source"] },
    { items: loaded.items, plugins: request.plugins },
  );
  // The families draw from the whole sample (the exemplar pool was told it whole, above); the
  // study keeps only what they draw, so the rest is never handed on.
  const families = spec.families ? drawFamilyItems(spec, benchmark.id, sampled, located) : undefined;
  const kept = families ? drawnItems(sampled, families) : sampled;
  return {
    sampled: kept,
    ...(families ? { families } : {}),
    sources: sourcesOf(kept, loaded.sources),
    skippedRows: loaded.skippedRows,
    ...(warning ? { warning } : {}),
    ...(pool ? { pool: preparedPool(request, pool) } : {}),
  };
}

/** The items some family draws, in the benchmark's order. */
function drawnItems(sampled: Item[], families: ReadonlyMap<string, readonly string[]>): Item[] {
  const used = new Set([...families.values()].flat());
  return keptOrSame(sampled, (item) => used.has(item.id));
}

function preparedPool(request: BenchmarkRequest, pool: Item[]): NonNullable<PreparedBenchmark["pool"]> {
  const { spec, index } = request;
  const benchmark = spec.benchmarks[index];
  const manifest = exemplarManifest(benchmark, spec, pool);
  if (!request.setAside) return { manifest, items: pool };
  const drawn = drawnPools(spec, new Map([[benchmark.id, pool]])).get(benchmark.id)!;
  return { manifest, items: drawn, aside: setAsidePool(benchmark.id, pool) };
}

/** The sources of the sampled items only: a study never looks up an item it did not sample. */
function sourcesOf(sampled: readonly Item[], all: LoadedBenchmark["sources"]): LoadedBenchmark["sources"] {
  const kept: LoadedBenchmark["sources"] = {};
  for (const item of sampled) if (all[item.id] !== undefined) kept[item.id] = all[item.id];
  return kept;
}
