/**
 * A benchmark's few-shot exemplar pool (`benchmarks[].exemplars`, the `few_shot` facet): loaded
 * with its loader, checked disjoint from the evaluated items (an overlap by id or by question
 * text is an error naming the items, unless `exclude_evaluated` drops them from a pool read from
 * the benchmark's own file), and the draws of every few_shot level the spec asks for, recorded
 * in the item manifest.
 */
import type { Item } from "../../contracts/item.js";
import type { BenchmarkSpec, StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { hashValue } from "../../core/hash.js";
import { datasetLoaders } from "../../datasets/registry.js";
import type { LoadContext } from "../../datasets/types.js";
import { drawExemplars, shotCount, shotSeed } from "../../facets/few-shot.js";
import { loadForSpec, type SourceField } from "./benchmark-load.js";

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
 * How a shared store keeps a benchmark's exemplar pool among the run's items (run_items): under
 * this prefix and the benchmark id, so a worker joining by URL draws the same few-shot examples.
 */
export const STORED_POOL_PREFIX = "exemplars:";

/** The pools as rows for run_items. */
export function storedPoolRows(pools: ReadonlyMap<string, readonly Item[]>): Item[] {
  return [...pools].flatMap(([benchmark, pool]) =>
    pool.map((item) => ({ ...item, benchmark: `${STORED_POOL_PREFIX}${benchmark}` })),
  );
}

/** Splits run_items rows into the evaluated items and the exemplar pools (by benchmark id). */
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

export async function loadExemplarPool(
  benchmark: BenchmarkSpec,
  evaluated: readonly Item[],
  context: LoadContext,
  field?: SourceField,
): Promise<Item[] | undefined> {
  const declared = benchmark.exemplars;
  if (!declared) return undefined;
  const loaderName = declared.items ? "inline" : (declared.loader ?? benchmark.loader);
  if (!datasetLoaders.has(loaderName)) {
    throw new InputError(`benchmark '${benchmark.id}': unknown exemplar loader '${loaderName}'`);
  }
  const loaded = await loadForSpec(
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

/** Pool item ids that are evaluated items: the same id, or the same content (question and options). */
function overlapping(pool: readonly Item[], evaluated: readonly Item[]): string[] {
  const ids = new Set(evaluated.map((item) => item.id));
  const contents = new Set(evaluated.map(content));
  return pool.filter((item) => ids.has(item.id) || contents.has(content(item))).map((item) => item.id);
}

/** An item's question and options (CrowS-Pairs items share one question and differ by their sentences). */
function content(item: Item): string {
  return normalise([item.stem, ...[...(item.options ?? [])].sort()].join("\n"));
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

/** The manifest record of a pool and of the draws the spec's few_shot levels make from it. */
export function exemplarManifest(benchmark: BenchmarkSpec, spec: StudySpec, pool: readonly Item[]): ExemplarManifest {
  const declared = benchmark.exemplars!;
  const levels = (spec.conditions.facets.few_shot ?? []).filter((value) => shotCount(value) > 0);
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
