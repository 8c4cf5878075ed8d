/**
 * Locates the real logs of ../shared/interop ($PARALLAX_SHARED_DIR/interop if set) for the interop
 * tests, and counts what they hold straight from the raw files (the tests compare the imported
 * store with these counts, never with constants).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sharedDir } from "../helpers/llama-model.js";
import { readZip } from "../helpers/zip.js";

export const interopDir = join(sharedDir, "interop");

/** Why the interop tests skip, or undefined when the logs are there. */
export const interopSkip = existsSync(join(interopDir, "inspect"))
  ? undefined
  : `${interopDir} not found (set PARALLAX_SHARED_DIR to the shared materials folder)`;

export function filesIn(sub: string, suffix: string): string[] {
  return readdirSync(join(interopDir, sub))
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => join(interopDir, sub, f));
}

export interface RawCounts {
  /** (sample, epoch) pairs. */
  trials: number;
  /** Score entries over all samples and scorers. */
  scores: number;
  /** The largest epoch. */
  maxEpoch: number;
  /** Sample ids. */
  items: Set<string>;
}

type RawSample = { id: string | number; epoch: number; scores?: Record<string, unknown> | null };

function countSamples(samples: RawSample[]): RawCounts {
  return {
    trials: samples.length,
    scores: samples.reduce((n, s) => n + Object.keys(s.scores ?? {}).length, 0),
    maxEpoch: Math.max(0, ...samples.map((s) => s.epoch)),
    items: new Set(samples.map((s) => String(s.id))),
  };
}

/** An Inspect .eval zip: its samples/ entries, read with the tests' own zip reader. */
export function countEval(file: string): RawCounts {
  const zip = readZip(file);
  const samples = [...zip.entries()]
    .filter(([name]) => name.startsWith("samples/") && name.endsWith(".json"))
    .map(([, bytes]) => JSON.parse(bytes.toString("utf8")) as RawSample);
  return countSamples(samples);
}

/** An Inspect .json log: its samples array. */
export function countInspectJson(file: string): RawCounts {
  const log = JSON.parse(readFileSync(file, "utf8")) as { samples?: RawSample[] };
  return countSamples(log.samples ?? []);
}

/** lm-eval --log_samples JSONL: one row per document and filter; each row scores its `metrics`. */
export function countLmEvalSamples(file: string): RawCounts {
  const rows = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { doc_id: number; metrics: string[] });
  const docs = new Set(rows.map((r) => String(r.doc_id)));
  return {
    trials: docs.size,
    scores: rows.reduce((n, r) => n + r.metrics.length, 0),
    maxEpoch: 1,
    items: docs,
  };
}

/** A HELM run directory: (instance, train trial) pairs of one split, and the stats of the given metrics. */
export function countHelm(dir: string, metrics: readonly string[], split = helmDefaultSplit(dir)): RawCounts {
  const stats = helmStats(dir).filter((s) => s.stats.some((x) => x.name.split === split));
  return {
    trials: new Set(stats.map((s) => `${s.instance_id}/${s.train_trial_index}`)).size,
    scores: stats.reduce((n, s) => n + s.stats.filter((x) => metrics.includes(x.name.name)).length, 0),
    maxEpoch: Math.max(...stats.map((s) => s.train_trial_index + 1)),
    items: new Set(stats.map((s) => s.instance_id)),
  };
}

type HelmStats = {
  instance_id: string;
  train_trial_index: number;
  stats: { name: { name: string; split?: string }; mean?: number }[];
}[];

export function helmStats(dir: string): HelmStats {
  return JSON.parse(readFileSync(join(dir, "per_instance_stats.json"), "utf8")) as HelmStats;
}

/** The split a HELM run is imported in by default: test, else its only split. */
export function helmDefaultSplit(dir: string): string {
  const splits = new Set(helmStats(dir).flatMap((s) => s.stats.map((x) => x.name.split ?? "")));
  return splits.has("test") ? "test" : [...splits][0];
}
