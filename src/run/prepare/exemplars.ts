/**
 * A benchmark's few-shot exemplar pool (`benchmarks[].exemplars`, the `few_shot` facet): loaded
 * with its loader, checked disjoint from the evaluated items (an overlap by id or by question
 * text is an error naming the items, unless `exclude_evaluated` drops them from a pool read from
 * the benchmark's own file), and the draws of every few_shot level the spec asks for, recorded
 * in the item manifest.
 */
import type { Item } from "../../contracts/item.js";
import type { BenchmarkSpec, FacetValue, StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { foldedText } from "../../core/folded-text.js";
import { canonicalJson, hashValue } from "../../core/hash.js";
import { datasetLoaders } from "../../datasets/registry.js";
import type { LoadContext } from "../../datasets/types.js";
import { drawExemplars, shotCount, shotSeed } from "../../facets/few-shot.js";
import { loadForSpec, type SourceField } from "./benchmark-load.js";
import { encodeItemBatch, type ItemBatch, RUN_ITEM_BATCH } from "../store/run-items.js";

export interface ExemplarManifest {
  loader: string;
  source: string | null;
  excludeEvaluated: boolean;
  /** The pool after the disjointness step: ids and content hashes. */
  pool: { id: string; sha256: string }[];
  /** One draw per few_shot level and seed of the spec. */
  draws: { level: number; seed: number; ids: string[] }[];
}

/**
 * How a shared store keeps a benchmark's exemplar pool among the run's items (run_item_batches): under
 * this prefix and the benchmark id, so a worker joining by URL draws the same few-shot examples.
 */
export const STORED_POOL_PREFIX = "exemplars:";

/** The pools as rows for the run's stored items. */
export function storedPoolRows(pools: ReadonlyMap<string, readonly Item[]>): Item[] {
  return [...pools].flatMap(([benchmark, pool]) => pool.map((item) => storedPoolRow(benchmark, item)));
}

function storedPoolRow(benchmark: string, item: Item): Item {
  return { ...item, benchmark: `${STORED_POOL_PREFIX}${benchmark}` };
}

/**
 * A pool set aside until the run stores it: its stored run-item batches (the rows storedPoolRows
 * makes, encoded and deflated as the store keeps them), so preparing a study never holds every
 * pool's items at once, and storing a pool inserts its batches without decoding them (V8 sizes its
 * heap after setup from the largest set of live objects and garbage setup made).
 */
export interface SetAsidePool {
  batches: ItemBatch[];
  count: number;
}

export function setAsidePool(benchmark: string, pool: readonly Item[]): SetAsidePool {
  const batches: ItemBatch[] = [];
  for (let start = 0; start < pool.length; start += RUN_ITEM_BATCH) {
    const rows = pool.slice(start, start + RUN_ITEM_BATCH).map((item) => storedPoolRow(benchmark, item));
    batches.push(encodeItemBatch(rows));
  }
  return { batches, count: pool.length };
}

/** Splits the run's stored item rows into the evaluated items and the exemplar pools (by benchmark id). */
export function splitStoredPools(rows: readonly Item[]): { items: Item[]; pools: Map<string, Item[]> } {
  const items: Item[] = [];
  const pools = new Map<string, Item[]>();
  for (const row of rows) {
    if (!row.benchmark.startsWith(STORED_POOL_PREFIX)) {
      items.push(row);
      continue;
    }
    const benchmark = row.benchmark.slice(STORED_POOL_PREFIX.length);
    if (!pools.has(benchmark)) pools.set(benchmark, []);
    pools.get(benchmark)?.push({ ...row, benchmark });
  }
  return { items, pools };
}

/**
 * Loads a benchmark's exemplar pool. `own` is what the benchmark itself loaded: a pool that reads
 * the same source with the same loader and options (`readsOwnSource`) is taken from it instead
 * of being read and parsed a second time.
 */
export async function loadExemplarPool(
  benchmark: BenchmarkSpec,
  evaluated: readonly Item[],
  context: LoadContext,
  field?: SourceField,
  own?: { items: readonly Item[]; plugins: boolean },
): Promise<Item[] | undefined> {
  const declared = benchmark.exemplars;
  if (!declared) return undefined;
  const loaderName = declared.items ? "inline" : (declared.loader ?? benchmark.loader);
  if (!datasetLoaders.has(loaderName)) {
    throw new InputError(`benchmark '${benchmark.id}': unknown exemplar loader '${loaderName}'`);
  }
  const loaded =
    own && readsOwnSource(benchmark, own.plugins)
      ? { items: own.items }
      : await loadForSpec(
          {
            id: benchmark.id,
            loader: loaderName,
            ...(declared.source === undefined ? {} : { source: declared.source }),
            ...(declared.items === undefined ? {} : { items: declared.items }),
            ...(declared.options === undefined ? {} : { options: declared.options }),
          },
          context,
          declared.source === undefined ? undefined : field,
        );
  const overlap = overlapping(loaded.items, evaluated);
  if (overlap.length > 0 && !declared.exclude_evaluated) {
    const shown = overlap.slice(0, 10).join(", ");
    throw new InputError(
      `benchmark '${benchmark.id}': the exemplar pool (${declared.source ?? "inline items"}) overlaps the evaluated items: ` +
        `${shown}${overlap.length > 10 ? ` and ${overlap.length - 10} more` : ""}; few-shot exemplars must be disjoint from them ` +
        "(use another file, or exclude_evaluated: true to drop them from the pool)",
    );
  }
  const dropped = new Set(overlap);
  return loaded.items.filter((item) => !dropped.has(item.id));
}

/**
 * Whether a benchmark's pool loads exactly what the benchmark loads: the same source, loader and
 * options, neither inline. A built-in loader reads nothing else of its spec; a plugin's loader
 * might (`plugins`: the spec loads plugins), so its pool is always loaded on its own.
 */
export function readsOwnSource(benchmark: BenchmarkSpec, plugins: boolean): boolean {
  const declared = benchmark.exemplars;
  return (
    !plugins &&
    declared !== undefined &&
    declared.items === undefined &&
    benchmark.items === undefined &&
    declared.source !== undefined &&
    declared.source === benchmark.source &&
    (declared.loader ?? benchmark.loader) === benchmark.loader &&
    canonicalJson(declared.options ?? null) === canonicalJson(benchmark.options ?? null)
  );
}

/** Pool item ids that are evaluated items: the same id, or the same content (question and options). */
function overlapping(pool: readonly Item[], evaluated: readonly Item[]): string[] {
  const ids = new Set(evaluated.map((item) => item.id));
  const contents = new Set(evaluated.map(content));
  return pool.filter((item) => ids.has(item.id) || contents.has(content(item))).map((item) => item.id);
}

/** An item's question and options (CrowS-Pairs items share one question and differ by their sentences). */
function content(item: Item): string {
  return foldedText([item.stem, ...[...(item.options ?? [])].sort()].join("\n"));
}

/** The few_shot levels of the spec that draw exemplars (above 0). */
function drawingLevels(spec: StudySpec): FacetValue[] {
  return (spec.conditions.facets.few_shot ?? []).filter((value) => shotCount(value) > 0);
}

/**
 * The pools as the trials read them: each cut to the exemplars the spec's few_shot levels draw.
 * A draw orders the pool's ids by a seeded hash, takes the first `level` and keeps them in pool
 * order, so the cut pool (the drawn items, in pool order) gives every level the same draw, and
 * a run does not hold whole pools (tens of thousands of items) while its trials execute. With
 * plugins the pools stay whole: a plugin's facet may read a pool otherwise.
 */
export function drawnPools(spec: StudySpec, pools: ReadonlyMap<string, Item[]>): Map<string, Item[]> {
  if ((spec.plugins ?? []).length > 0) return new Map(pools);
  const levels = drawingLevels(spec);
  return new Map(
    [...pools].map(([benchmark, pool]) => {
      const drawn = new Set(
        levels.flatMap((value) =>
          drawExemplars(pool, benchmark, shotCount(value), shotSeed(value)).map((item) => item.id),
        ),
      );
      return [benchmark, pool.filter((item) => drawn.has(item.id))];
    }),
  );
}

/** The manifest record of a pool and of the draws the spec's few_shot levels make from it. */
export function exemplarManifest(benchmark: BenchmarkSpec, spec: StudySpec, pool: readonly Item[]): ExemplarManifest {
  const declared = benchmark.exemplars!;
  const levels = drawingLevels(spec);
  return {
    loader: declared.items ? "inline" : (declared.loader ?? benchmark.loader),
    source: declared.source ?? null,
    excludeEvaluated: declared.exclude_evaluated,
    pool: pool.map((item) => ({ id: item.id, sha256: hashValue(item) })),
    draws: levels.map((value) => {
      const level = shotCount(value);
      const seed = shotSeed(value);
      return { level, seed, ids: drawExemplars(pool, benchmark.id, level, seed).map((item) => item.id) };
    }),
  };
}
