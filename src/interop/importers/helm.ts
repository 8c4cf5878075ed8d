/**
 * HELM run directories: run_spec.json (model, adapter: the generation config), scenario.json
 * (the benchmark's name) and per_instance_stats.json (per instance and train trial, every
 * metric). Where present, instances.json and display_predictions.json / display_requests.json
 * add the inputs, references, prompts and outputs.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as z from "zod";
import type { GenerationParams } from "../../contracts/provider.js";
import type { ImportMapping } from "../mapping.js";
import type { ImportedLog, ImportedSample, Importer } from "../types.js";
import type { ReadLimit } from "../../core/guarded-read.js";
import { anyNumber, checked, filesOf, logError, logReadLimit, parseJson, readText } from "../read.js";

/** The per-instance correctness metrics imported as scores by default (the first present is the run-time outcome). */
export const HELM_DEFAULT_METRICS = [
  "exact_match",
  "quasi_exact_match",
  "prefix_exact_match",
  "quasi_prefix_exact_match",
];

const RunSpecSchema = z.looseObject({
  name: z.string().min(1),
  adapter_spec: z.looseObject({
    model: z.string().min(1),
    temperature: z.number().min(0).nullish(),
    max_tokens: z.number().int().nonnegative().nullish(),
    stop_sequences: z.array(z.string()).nullish(),
  }),
});

const StatSchema = z.looseObject({
  name: z.looseObject({ name: z.string(), split: z.string().nullish() }),
  count: z.number().int().nonnegative(),
  mean: anyNumber.nullish(),
  sum: anyNumber.nullish(),
});

const InstanceStatsSchema = z.array(
  z.looseObject({
    instance_id: z.string().min(1),
    train_trial_index: z.number().int().nonnegative().default(0),
    perturbation: z.looseObject({ name: z.string() }).nullish(),
    stats: z.array(StatSchema),
  }),
);

const InstancesSchema = z.array(
  z.looseObject({
    id: z.string().min(1),
    input: z.looseObject({ text: z.string() }).nullish(),
    references: z
      .array(z.looseObject({ output: z.looseObject({ text: z.string() }), tags: z.array(z.string()).default([]) }))
      .nullish(),
  }),
);

const PredictionsSchema = z.array(
  z.looseObject({
    instance_id: z.string().min(1),
    train_trial_index: z.number().int().nonnegative().default(0),
    predicted_text: z.string().nullish(),
  }),
);

const RequestsSchema = z.array(
  z.looseObject({
    instance_id: z.string().min(1),
    train_trial_index: z.number().int().nonnegative().default(0),
    request: z.looseObject({ prompt: z.string().nullish() }),
  }),
);

export const helmImporter: Importer = {
  name: "helm",
  description: "HELM run directories (run_spec.json, per_instance_stats.json, scenario.json)",
  argument: "RUN_DIR...: HELM run directories, or folders holding them (searched recursively)",
  async read(paths, mapping, options) {
    const seen = options?.onFile ?? (() => {});
    const logs: ImportedLog[] = [];
    for (const { dir, skipped } of runDirs(paths)) {
      if (skipped) {
        seen({ file: dir, read: false, why: skipped });
        continue;
      }
      const log = readRunDir(dir, mapping, options?.split, logReadLimit(options?.zipLimits));
      logs.push(log);
      seen({ file: dir, read: true, why: `HELM run, ${splitLabel(log)}${log.samples.length} instances` });
    }
    if (logs.length === 0)
      throw logError(paths.join(", "), null, "no HELM run directory (per_instance_stats.json) found");
    return logs;
  },
};

const STATS_FILE = "per_instance_stats.json";

function splitLabel(log: ImportedLog): string {
  const split = (log.header as { split: string | null }).split;
  return split ? `split ${split}, ` : "";
}

/**
 * The run directories under the paths: a folder holding per_instance_stats.json is one (a path
 * given may also be that file); the files of the folders searched that are in no run are skipped.
 */
function runDirs(paths: readonly string[]): { dir: string; skipped?: string }[] {
  const runs = new Set<string>();
  const out: { dir: string; skipped?: string }[] = [];
  const found = filesOf(paths);
  for (const { file, given } of found) {
    const dir = dirname(file);
    if (basename(file) === STATS_FILE) {
      if (!runs.has(dir)) out.push({ dir });
      runs.add(dir);
    } else if (given) {
      throw logError(file, null, `not a HELM run directory nor its ${STATS_FILE}`);
    }
  }
  for (const { file } of found)
    if (!runs.has(dirname(file))) out.push({ dir: file, skipped: `not in a HELM run directory (no ${STATS_FILE})` });
  return out;
}

function readJson<S extends z.ZodType>(limit: ReadLimit, dir: string, name: string, schema: S): z.infer<S> {
  const file = join(dir, name);
  return checked(schema, parseJson(readText(file, limit), file, null), file, null);
}

function optionalJson<S extends z.ZodType>(
  limit: ReadLimit,
  dir: string,
  name: string,
  schema: S,
): z.infer<S> | undefined {
  return existsSync(join(dir, name)) ? readJson(limit, dir, name, schema) : undefined;
}

function readRunDir(dir: string, mapping: ImportMapping, requested: string | undefined, limit: ReadLimit): ImportedLog {
  if (!existsSync(join(dir, "per_instance_stats.json"))) {
    throw logError(dir, null, "not a HELM run directory (no per_instance_stats.json)");
  }
  const runSpec = readJson(limit, dir, "run_spec.json", RunSpecSchema);
  const stats = readJson(limit, dir, "per_instance_stats.json", InstanceStatsSchema);
  const scenario = optionalJson(limit, dir, "scenario.json", z.looseObject({ name: z.string().min(1) }));
  const key = (id: string, trial: number) => `${id}\u0000${trial}`;
  const instances = uniqueBy(
    { dir, name: "instances.json" },
    optionalJson(limit, dir, "instances.json", InstancesSchema),
    (i) => i.id,
  );
  const predictions = uniqueBy(
    { dir, name: "display_predictions.json" },
    optionalJson(limit, dir, "display_predictions.json", PredictionsSchema),
    (p) => key(p.instance_id, p.train_trial_index),
    (p) => p.predicted_text ?? null,
  );
  const prompts = uniqueBy(
    { dir, name: "display_requests.json" },
    optionalJson(limit, dir, "display_requests.json", RequestsSchema),
    (r) => key(r.instance_id, r.train_trial_index),
    (r) => r.request.prompt ?? null,
  );
  refuseDuplicateStats(dir, stats);
  const { split, kept, notes: splitNotes } = oneSplit(dir, stats, requested);
  const present = new Set(kept.flatMap(({ entry }) => entry.stats.map((x) => x.name.name)));
  const metrics = (mapping.metrics ?? HELM_DEFAULT_METRICS).filter((m) => present.has(m));
  const samples: ImportedSample[] = kept.map(({ entry, index }) => {
    const value = (name: string) => {
      const stat = entry.stats.find((s) => s.name.name === name);
      return stat ? (stat.mean ?? (stat.count > 0 && stat.sum != null ? stat.sum / stat.count : null)) : undefined;
    };
    const instance = instances.get(entry.instance_id);
    const prompt = prompts.get(key(entry.instance_id, entry.train_trial_index)) ?? null;
    const runtime = value("inference_runtime");
    return {
      entry: `per_instance_stats.json[${index}] (instance ${entry.instance_id})`,
      item: entry.instance_id,
      attempt: entry.train_trial_index + 1,
      input: instance?.input?.text ?? null,
      target: (instance?.references ?? []).filter((r) => r.tags.includes("correct")).map((r) => r.output.text),
      choices: instance?.references?.map((r) => r.output.text) ?? null,
      messages: prompt === null ? [] : [{ role: "user", content: prompt }],
      output: predictions.get(key(entry.instance_id, entry.train_trial_index)) ?? null,
      scores: metrics.flatMap((m) =>
        value(m) === undefined
          ? []
          : [
              {
                scorer: m,
                value: value(m),
                answer: null,
                explanation: null,
                field: `stats[${m}].mean`,
                // HELM's correctness metrics are shares of the instance's references matched.
                ...(HELM_DEFAULT_METRICS.includes(m) ? { range: [0, 1] as const } : {}),
              },
            ],
      ),
      usage: {
        inputTokens: Math.round(value("num_prompt_tokens") ?? 0),
        outputTokens: Math.round(value("num_output_tokens") ?? 0),
      },
      latencyMs: typeof runtime === "number" ? Math.round(runtime * 1000) : null,
      error: null,
      ...(entry.perturbation ? { condition: { perturbation: entry.perturbation.name } } : {}),
    };
  });
  return {
    file: dir,
    framework: "helm",
    model: runSpec.adapter_spec.model,
    benchmark: scenario?.name ?? runSpec.name.split(":")[0],
    header: { run_spec: runSpec, scenario: scenario ?? null, split },
    generation: generationOf(runSpec.adapter_spec),
    scorers: metrics,
    samples,
    notes: [
      ...splitNotes,
      ...(metrics.length === 0
        ? [`${basename(dir)}: none of the metrics ${HELM_DEFAULT_METRICS.join(", ")} is present`]
        : []),
    ],
  };
}

type InstanceStats = z.infer<typeof InstanceStatsSchema>[number];

/** The split an instance was evaluated in, from its stats' names (null when HELM names none). */
function splitOf(entry: InstanceStats): string | null {
  return entry.stats.find((s) => s.name.split)?.name.split ?? null;
}

/**
 * The instances of one split: splits are never pooled (HELM reports each on its own). The split
 * asked for, else test, else the run's only split; a run with several and no test is refused.
 */
function oneSplit(
  dir: string,
  stats: readonly InstanceStats[],
  requested: string | undefined,
): { split: string | null; kept: { entry: InstanceStats; index: number }[]; notes: string[] } {
  const all = stats.map((entry, index) => ({ entry, index, split: splitOf(entry) }));
  const splits = [...new Set(all.map((s) => s.split).filter((s): s is string => s !== null))].sort();
  const named = splits.map((s) => `${s} (${all.filter((x) => x.split === s).length})`).join(", ");
  if (splits.length === 0) return { split: null, kept: all, notes: [] };
  let split: string;
  if (requested !== undefined) {
    if (!splits.includes(requested))
      throw logError(dir, STATS_FILE, `no instance of split '${requested}' (splits and instances: ${named})`);
    split = requested;
  } else if (splits.includes("test")) split = "test";
  else if (splits.length === 1) split = splits[0];
  else
    throw logError(dir, STATS_FILE, `instances of several splits and none of test: ${named}; choose one with --split`);
  const kept = all.filter((s) => s.split === split);
  const notes: string[] = [];
  if (kept.length < all.length)
    notes.push(
      `${basename(dir)}: split ${split}: ${kept.length} instances imported; not pooled with the other splits (${named}; --split NAME imports another)`,
    );
  if (requested === undefined && split !== "test")
    notes.push(`${basename(dir)}: no test split; its only split '${split}' imported`);
  return { split, kept, notes };
}

/** The entries by key; two entries with one key are refused, naming both. */
function uniqueBy<T, V = T>(
  /** The run directory and the file the entries come from (named when two share a key). */
  file: { dir: string; name: string },
  entries: readonly T[] | undefined,
  keyOf: (entry: T) => string,
  pick: (entry: T) => V = (entry) => entry as unknown as V,
): Map<string, V> {
  const { dir, name } = file;
  const out = new Map<string, V>();
  const at = new Map<string, number>();
  (entries ?? []).forEach((entry, index) => {
    const key = keyOf(entry);
    const earlier = at.get(key);
    if (earlier !== undefined) {
      throw logError(
        join(dir, name),
        `${name}[${index}]`,
        `the same entry (${key.replace("\u0000", ", train trial ")}) is also at ${name}[${earlier}]`,
      );
    }
    at.set(key, index);
    out.set(key, pick(entry));
  });
  return out;
}

/** One stats entry per instance, train trial and perturbation; a second is refused, naming both. */
function refuseDuplicateStats(dir: string, stats: z.infer<typeof InstanceStatsSchema>): void {
  const at = new Map<string, number>();
  stats.forEach((entry, index) => {
    const key = `${entry.instance_id}, train trial ${entry.train_trial_index}, perturbation ${entry.perturbation?.name ?? "none"}`;
    const earlier = at.get(key);
    if (earlier !== undefined) {
      throw logError(
        join(dir, "per_instance_stats.json"),
        `per_instance_stats.json[${index}]`,
        `the same instance (${key}) is also at per_instance_stats.json[${earlier}]`,
      );
    }
    at.set(key, index);
  });
}

function generationOf(adapter: z.infer<typeof RunSpecSchema>["adapter_spec"]): GenerationParams {
  const params: GenerationParams = {};
  if (typeof adapter.temperature === "number") params.temperature = adapter.temperature;
  if (typeof adapter.max_tokens === "number" && adapter.max_tokens > 0) params.maxTokens = adapter.max_tokens;
  if (adapter.stop_sequences?.length) params.stop = adapter.stop_sequences;
  return params;
}
