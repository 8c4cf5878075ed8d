/**
 * Prepares a study from its spec: loads and samples every benchmark, builds the item
 * manifest and expands the condition grid. Nothing here calls a model.
 */
import { dirname, resolve } from "node:path";
import type { Condition } from "../../contracts/condition.js";
import type { Item } from "../../contracts/item.js";
import type { StudySpec } from "../../contracts/spec.js";
import { hashValue } from "../../core/hash.js";
import { readSpecFile, type SpecFile, type SpecSource } from "../../core/spec-loader.js";
import type { LoadedBenchmark } from "../../datasets/types.js";
import { loadStudySpec } from "../../facets/validate.js";
import { refuseConstraintViolations } from "../../facets/constraints.js";
import { prepareBenchmark } from "./benchmark-preparation.js";
import { benchmarkThread } from "./benchmark-thread.js";
import { benchmarkConditions, expandConditions } from "./conditions.js";
import type { ExemplarManifest, SetAsidePool } from "./exemplars.js";
import {
  type CellCoverage,
  cellCoverage,
  type FamilyManifest,
  familyManifest,
  type PreparedFamily,
  prepareFamilies,
  refuseBenchmarksWithoutFamily,
} from "./families.js";
import { loadSpecPlugins } from "./plugins.js";

export interface ManifestEntry {
  id: string;
  sha256: string;
  file: string;
  row: number;
}

export interface ItemManifest {
  benchmarks: {
    id: string;
    loader: string;
    source: string | null;
    sample: StudySpec["benchmarks"][number]["sample"] | null;
    skippedRows: number;
    items: ManifestEntry[];
    /** The few-shot exemplar pool and its draws (only for a benchmark that declares one). */
    exemplars?: ExemplarManifest;
  }[];
  /** The study's families, each with its items (only for a spec that declares families). */
  families?: Record<string, FamilyManifest>;
}

export interface PreparedStudy {
  spec: StudySpec;
  specPath: string;
  /** The spec's YAML with its positions, where design checks locate their problems (absent: a stored study). */
  specSource?: SpecSource;
  specHash: string;
  manifest: ItemManifest;
  manifestHash: string;
  /** Items by benchmark id, then item id. */
  items: Map<string, Map<string, Item>>;
  conditions: Condition[];
  /** The conditions each benchmark runs: `conditions` minus the exclude entries naming it. */
  benchmarkConditions: Map<string, Condition[]>;
  /** Each benchmark's few-shot exemplar pool (benchmarks that declare one); see `poolsAside`. */
  exemplars: Map<string, Item[]>;
  /**
   * With prepareStudy's `setPoolsAside` (and no plugins): each whole pool as its stored run-item rows,
   * `exemplars` then holding only the exemplars the spec's levels draw (the same draws, drawnPools).
   */
  poolsAside?: Map<string, SetAsidePool>;
  /** Problems the study can run with, for the user to see (e.g. a sample cut to the benchmark's size). */
  warnings: string[];
  /** The declared families with their items (absent: every cell runs every item of its benchmark). */
  families?: PreparedFamily[];
  /** The items of each (model, condition, benchmark) cell: the union of the families' (with families only). */
  coverage?: CellCoverage;
}

export async function prepareStudy(
  specOrFile: string | SpecFile,
  options: { cacheDir?: string; setPoolsAside?: boolean } = {},
): Promise<PreparedStudy> {
  // Read and parsed once for the steps below (or already, by the caller).
  const file = typeof specOrFile === "string" ? readSpecFile(specOrFile) : specOrFile;
  const specPath = file.path;
  await loadSpecPlugins(file); // before the spec is checked against the registries
  // Facet values and plugin settings are checked here, before any benchmark file is read.
  const { spec, source } = loadStudySpec(file);
  const located = { path: specPath, source };
  const warnings: string[] = [];
  const baseDir = dirname(resolve(specPath));
  const items = new Map<string, Map<string, Item>>();
  const manifest: ItemManifest = { benchmarks: [] };
  const exemplars = new Map<string, Item[]>();
  const plugins = (spec.plugins ?? []).length > 0;
  const poolsAside = options.setPoolsAside && !plugins ? new Map<string, SetAsidePool>() : undefined;
  const drawn = new Map<string, Map<string, string[]>>();
  const context = { baseDir, cacheDir: options.cacheDir ?? resolve(baseDir, ".parallax-cache") };
  // A run prepares its benchmarks on a worker thread (benchmark-thread.ts); a plugin's loader is
  // registered on this thread only.
  const thread = poolsAside ? benchmarkThread({ spec, specPath, specText: file.text, context }) : undefined;
  try {
    for (const [index, benchmark] of spec.benchmarks.entries()) {
      const prepared = thread
        ? await thread.prepare(index)
        : await prepareBenchmark({ spec, index, context, located, plugins, setAside: false });
      if (prepared.warning) warnings.push(prepared.warning);
      const { sampled, pool } = prepared;
      items.set(benchmark.id, new Map(sampled.map((item) => [item.id, item])));
      if (prepared.families) drawn.set(benchmark.id, prepared.families);
      if (pool) exemplars.set(benchmark.id, pool.items);
      if (pool?.aside) poolsAside?.set(benchmark.id, pool.aside);
      manifest.benchmarks.push({
        id: benchmark.id,
        loader: benchmark.loader,
        source: benchmark.source ?? null,
        sample: benchmark.sample ?? null,
        skippedRows: prepared.skippedRows,
        // With families, only the items some family draws (a benchmark's pool is not hashed whole).
        items: sampled.map((item) => manifestEntry(item, prepared.sources)),
        ...(pool ? { exemplars: pool.manifest } : {}),
      });
    }
  } finally {
    await thread?.close();
  }
  const conditions = expandConditions(spec.conditions);
  const byBenchmark = new Map(
    spec.benchmarks.map((b) => [b.id, benchmarkConditions(conditions, spec.conditions.exclude, b.id)]),
  );
  // The validity constraints the facets and loaders declare (SafetyRepro App. T), before any trial exists.
  refuseConstraintViolations(spec, (id) => byBenchmark.get(id) ?? []);
  const families = spec.families
    ? prepareFamilies(spec, drawn, { conditions, studyConditions: (id) => byBenchmark.get(id) ?? [] }, located)
    : undefined;
  if (families) {
    refuseBenchmarksWithoutFamily(spec, families, located);
    manifest.families = Object.fromEntries(families.map((f) => [f.name, familyManifest(f)]));
  }
  return {
    spec,
    specPath,
    specSource: source,
    specHash: hashValue(spec),
    manifest,
    manifestHash: hashValue(manifest),
    items,
    conditions,
    benchmarkConditions: byBenchmark,
    exemplars,
    ...(poolsAside ? { poolsAside } : {}),
    warnings,
    ...(families ? { families, coverage: cellCoverage(families) } : {}),
  };
}

function manifestEntry(item: Item, sources: LoadedBenchmark["sources"]): ManifestEntry {
  return { id: item.id, sha256: itemHash(item), file: sources[item.id]?.file ?? "", row: sources[item.id]?.row ?? 0 };
}

/** SHA-256 of an item's content (not its position or source), as the manifest records it. */
export function itemHash(item: Item): string {
  // The whole item, metadata included: gold sets (e.g. MC2's gold_indices) live there too.
  return hashValue(item);
}

export function allItems(study: PreparedStudy): Item[] {
  return [...study.items.values()].flatMap((byId) => [...byId.values()]);
}
