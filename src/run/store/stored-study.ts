/**
 * A run's study as its store holds it: the spec in the run record, the items and few-shot pools
 * in run_item_batches, the plugin modules in run_plugins. `parallax run` stores them for every store, so
 * a worker joining by URL, `score` and `analyze` rebuild the study the run used without reading
 * any benchmark source, wherever the study directory is moved.
 */
import { dirname, resolve } from "node:path";
import type { Item } from "../../contracts/item.js";
import type { StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { benchmarkConditions, expandConditions } from "../prepare/conditions.js";
import { splitStoredPools } from "../prepare/exemplars.js";
import type { RunRecord, StoredPlugin, TrialStore } from "./types.js";
import { isPostgresUrl, parsePostgresUrl, storeArgument } from "./url.js";
import { loadStoredPlugins } from "./stored-plugins.js";
import type { PreparedStudy } from "../prepare/study.js";

/** What the store holds of a run's study beside its record. */
export interface StoredStudyParts {
  items: Item[];
  /** Each benchmark's few-shot exemplar pool. */
  pools: Map<string, Item[]>;
  plugins: StoredPlugin[];
}

export async function readStoredParts(store: TrialStore, runId: string): Promise<StoredStudyParts> {
  const { items, pools } = splitStoredPools(await store.listRunItems(runId));
  return { items, pools, plugins: await store.listRunPlugins(runId) };
}

/**
 * What a run recorded before its store kept the study lacks (its items, a few-shot pool, its
 * plugin modules), worded for a message; undefined when the store holds it all.
 */
export function missingFromStore(run: RunRecord, parts: StoredStudyParts): string | undefined {
  if (parts.items.length === 0) return "its items (their metadata, options and gold answers)";
  if (run.spec.benchmarks.some((b) => b.exemplars !== undefined && !parts.pools.has(b.id)))
    return "its few-shot exemplar pools";
  if ((run.spec.plugins ?? []).length !== parts.plugins.length) return "its plugin modules";
  return undefined;
}

/**
 * The study from the run record and its stored items. Relative paths in the spec resolve
 * against the folder of the spec the run was recorded from, as for `run` (the working directory
 * for a run recorded before the store kept that folder). The manifest is not stored (it is the
 * study directory's manifest.json); the run record keeps its hash.
 */
export function storedStudy(run: RunRecord, parts: Pick<StoredStudyParts, "items" | "pools">): PreparedStudy {
  const byBenchmark = new Map<string, Map<string, Item>>();
  for (const item of parts.items) {
    if (!byBenchmark.has(item.benchmark)) byBenchmark.set(item.benchmark, new Map());
    byBenchmark.get(item.benchmark)?.set(item.id, item);
  }
  const conditions = expandConditions(run.spec.conditions);
  return {
    spec: run.spec,
    specPath: resolve(run.specDir ?? ".", "spec.json"),
    specHash: run.specHash,
    manifest: { benchmarks: [] },
    manifestHash: run.manifestHash,
    items: byBenchmark,
    conditions,
    benchmarkConditions: new Map(
      run.spec.benchmarks.map((b) => [b.id, benchmarkConditions(conditions, run.spec.conditions.exclude, b.id)]),
    ),
    exemplars: parts.pools,
    warnings: [],
  };
}

export interface OpenStoredOptions {
  onNote?: (message: string) => void;
  /**
   * Another spec of the same benchmarks to use instead of the run's (`score --spec`: judges added
   * after the run), its plugins already loaded; relative paths resolve against its folder.
   */
  spec?: { spec: StudySpec; specDir: string };
}

/**
 * The stored study of a run, its plugins registered in this process (from the run's spec folder
 * when the file is there with the recorded hash, else the stored copy). `refuse` words the error
 * for a run whose store lacks part of it (given what is missing).
 */
export async function openStoredStudy(
  store: TrialStore,
  run: RunRecord,
  refuse: (missing: string) => Error,
  options: OpenStoredOptions = {},
): Promise<PreparedStudy> {
  const parts = await readStoredParts(store, run.id);
  const missing = missingFromStore(run, parts);
  if (missing !== undefined) throw refuse(missing);
  if (options.spec) return storedStudy({ ...run, ...options.spec }, parts);
  const study = storedStudy(run, parts);
  await loadStoredPlugins(run.id, parts.plugins, dirname(study.specPath), options.onNote);
  return study;
}

/**
 * The one-line refusal of a study directory (or store) whose run was recorded before its store
 * kept the study, naming what it lacks, who reads it and the command that stores it.
 */
export function missingStudyError(target: string, run: RunRecord, missing: string, reader: string): InputError {
  // A PostgreSQL URL is named without its password.
  const shared = isPostgresUrl(target);
  const label = shared ? parsePostgresUrl(target).description : target;
  const where = `${shared ? "--store" : "--out"} ${storeArgument(target)}`;
  return new InputError(
    `${label}: run '${run.id}' was recorded before a study kept ${missing}, which ${reader} reads; ` +
      `store them by resuming the run with its spec: parallax run SPEC ${where} (finished trials are not run again)`,
  );
}
