/**
 * lm-evaluation-harness output: a directory (searched recursively) of `results_<time>.json`
 * files and, from `--log_samples`, `samples_<task>_<time>.jsonl` beside them. One log per task
 * of a results file; each JSONL row is one document (its filters' metrics merge into one trial).
 */
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as z from "zod";
import type { GenerationParams } from "../../contracts/provider.js";
import type { ImportMapping } from "../mapping.js";
import { describeValue } from "../outcome.js";
import type { ImportedLog, ImportedSample, ImportedScore, Importer, ReadOptions, StreamedSamples } from "../types.js";
import {
  anyNumber,
  asText,
  checked,
  filesOf,
  forEachLine,
  logError,
  logReadLimit,
  parseJson,
  readText,
} from "../read.js";

/** The generation settings read (others pass unchecked): the types lm-eval writes. */
const GenerationKwargsSchema = z.looseObject({
  temperature: z.number().min(0).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_gen_toks: z.number().int().positive().nullish(),
  until: z.union([z.string(), z.array(z.string())]).nullish(),
});

const ResultsSchema = z.looseObject({
  results: z.record(z.string(), z.record(z.string(), z.unknown())),
  configs: z.record(z.string(), z.looseObject({ generation_kwargs: GenerationKwargsSchema.nullish() })).nullish(),
  model_name: z.string().nullish(),
  "n-samples": z.record(z.string(), z.looseObject({ effective: z.number().int().nonnegative().nullish() })).nullish(),
  config: z.looseObject({ model: z.string().nullish(), model_args: z.unknown() }).nullish(),
});

const RowSchema = z.looseObject({
  doc_id: z.union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().min(1)]),
  target: z.unknown(),
  // lm-eval 0.4 writes {gen_args_0: {arg_0, arg_1}, ...}; older versions a list of argument lists.
  arguments: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  resps: z.array(z.unknown()).optional(),
  filtered_resps: z.array(z.unknown()).optional(),
  filter: z.string().nullish(),
  metrics: z.array(z.string()).min(1),
});

/** A metric's per-document value: a number or boolean (a list for corpus metrics such as BLEU, or null). */
const MetricValueSchema = z.union([anyNumber, z.boolean(), z.array(z.unknown()), z.null()]);

/** Metrics whose per-document value is a share in [0, 1] (a value outside is refused). */
const UNIT_METRICS = new Set(["acc", "acc_norm", "exact_match", "mc1", "mc2", "em", "f1", "contains"]);

export const lmEvalImporter: Importer = {
  name: "lm-eval",
  description: "lm-evaluation-harness results_*.json with their --log_samples samples_*.jsonl",
  argument: "PATH...: results_*.json files, or output folders holding them (searched recursively)",
  async read(paths, mapping, options) {
    const seen = options?.onFile ?? (() => {});
    const found = filesOf(paths);
    const logs: ImportedLog[] = [];
    const samplesRead = new Set<string>();
    for (const { file, given } of found) {
      if (!RESULTS.test(basename(file))) {
        if (given && !SAMPLES.test(basename(file)))
          throw logError(file, null, "not an lm-eval results file (results_<time>.json) nor a folder holding one");
        continue;
      }
      const read = await readResults(file, mapping, options);
      logs.push(...read);
      seen({ file, read: true, why: `lm-eval results, tasks ${read.map((l) => l.benchmark).join(", ")}` });
      for (const log of read)
        if (log.file !== file) {
          samplesRead.add(log.file);
          seen({ file: log.file, read: true, why: `samples of ${log.benchmark}, ${log.stream?.count ?? 0} documents` });
        }
    }
    for (const { file } of found) {
      if (RESULTS.test(basename(file)) || samplesRead.has(file)) continue;
      seen({
        file,
        read: false,
        why: SAMPLES.test(basename(file))
          ? "samples without a results file of the same time stamp beside it"
          : "not an lm-eval results_*.json or samples_*.jsonl file",
      });
    }
    if (logs.length === 0)
      throw logError(paths.join(", "), null, "no results_*.json file found (an lm-eval --output_path folder)");
    return logs;
  },
};

const RESULTS = /^results_.*\.json$/;
const SAMPLES = /^samples_.*\.jsonl$/;

async function readResults(file: string, mapping: ImportMapping, options?: ReadOptions): Promise<ImportedLog[]> {
  const raw = parseJson(readText(file, logReadLimit(options?.zipLimits)), file, null);
  const results = checked(ResultsSchema, raw, file, null);
  const stamp = basename(file)
    .replace(/^results_/, "")
    .replace(/\.json$/, "");
  const model = results.model_name ?? pretrainedOf(results.config?.model_args) ?? results.config?.model ?? "unknown";
  const logs: ImportedLog[] = [];
  for (const task of Object.keys(results.results).sort()) {
    const samplesFile = join(dirname(file), `samples_${task}_${stamp}.jsonl`);
    const exists = existsSync(samplesFile);
    // The documents are read through here (checked and counted), and again, one at a time, when imported.
    const scan = exists ? await scanSamples(samplesFile) : null;
    const count = scan?.count ?? 0;
    const scorers = mapping.metrics ?? metricNames(results.results[task]);
    const declared = results["n-samples"]?.[task]?.effective ?? undefined;
    logs.push({
      file: exists ? samplesFile : file,
      framework: "lm-eval" as const,
      model,
      benchmark: task,
      header: { ...(raw as object), task, task_config: results.configs?.[task] ?? null },
      generation: generationOf(results.configs?.[task]?.generation_kwargs ?? {}),
      scorers: [...new Set([...scorers, ...(scan?.scorers ?? [])])],
      samples: [],
      ...(scan
        ? {
            stream: {
              count,
              each: (visit) => eachDocument(samplesFile, scan.lastLine, visit),
            } satisfies StreamedSamples,
          }
        : {}),
      ...(declared === undefined ? {} : { declaredSamples: declared }),
      notes: exists
        ? declared !== undefined && declared !== count
          ? [
              `${basename(samplesFile)}: ${count} documents, but the results declare ${declared} samples of ${task}; the ${count} are imported`,
            ]
          : []
        : [`${basename(file)}: task ${task} has no samples_${task}_${stamp}.jsonl (run with --log_samples)`],
    });
  }
  return logs;
}

/** "exact_match,none" -> exact_match; "acc,strict-match" -> acc,strict-match; stderr entries skipped. */
function metricNames(taskResults: Record<string, unknown>): string[] {
  return Object.keys(taskResults)
    .filter((k) => k.includes(",") && !k.includes("_stderr,"))
    .map((k) => scorerName(k.split(",")[0], k.split(",").slice(1).join(",")));
}

function scorerName(metric: string, filter: string | null | undefined): string {
  return !filter || filter === "none" ? metric : `${metric},${filter}`;
}

/** What reading a samples file through tells before its documents are imported. */
interface SamplesScan {
  /** Documents (a document's rows of several filters are one). */
  count: number;
  /** The scorers in the order the documents first give them. */
  scorers: string[];
  /** Each document's last row: once it is read, the document is complete. */
  lastLine: Map<string, number>;
}

/**
 * Reads a samples file through, checking every row, and keeps only the documents' count, their
 * scorers and where each document's last row is: the documents themselves are read again, one
 * at a time, by `eachDocument`.
 */
async function scanSamples(file: string): Promise<SamplesScan> {
  // A document appears once per filter; the same document and filter twice is a duplicate row.
  const seen = new Map<string, number>();
  const lastLine = new Map<string, number>();
  const documents = new Map<string, number>();
  // The scorers in the order of (document, row, metric) where each first appears.
  const firstOf = new Map<string, [number, number, number]>();
  await forEachLine(file, (line, lineNumber) => {
    const { row, item, scores } = readRow(file, line, lineNumber);
    const key = `${item}\u0000${row.filter ?? "none"}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw logError(
        file,
        `line ${lineNumber}`,
        `doc_id ${JSON.stringify(row.doc_id)} with filter '${row.filter ?? "none"}' is also at line ${earlier}: one row per document and filter`,
      );
    }
    seen.set(key, lineNumber);
    lastLine.set(item, lineNumber);
    if (!documents.has(item)) documents.set(item, documents.size);
    const doc = documents.get(item)!;
    scores.forEach((score, index) => {
      const at: [number, number, number] = [doc, lineNumber, index];
      const first = firstOf.get(score.scorer);
      if (
        !first ||
        at[0] < first[0] ||
        (at[0] === first[0] && (at[1] < first[1] || (at[1] === first[1] && at[2] < first[2])))
      )
        firstOf.set(score.scorer, at);
    });
  });
  const scorers = [...firstOf].sort(([, a], [, b]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]).map(([name]) => name);
  return { count: documents.size, scorers, lastLine };
}

/**
 * The file's documents, each given to `visit` as soon as its last row is read (at once when the
 * file has one row per document): a document is held only until its rows are merged.
 */
async function eachDocument(
  file: string,
  lastLine: ReadonlyMap<string, number>,
  visit: (sample: ImportedSample) => void | Promise<void>,
): Promise<void> {
  const open = new Map<string, ImportedSample>();
  await forEachLine(file, (line, lineNumber) => {
    const { row, item, entry, scores } = readRow(file, line, lineNumber);
    const sample = open.get(item) ?? newSample(row, entry);
    for (const score of scores) sample.scores.push(score);
    if (lastLine.get(item) !== lineNumber) {
      open.set(item, sample);
      return;
    }
    open.delete(item);
    return visit(sample);
  });
  const [left] = open.values();
  if (left)
    throw logError(
      file,
      left.entry,
      `changed during the import: doc_id ${JSON.stringify(left.item)} was not there, or not last there, when the file was first read`,
    );
}

/** One row of a samples file, checked: its document and the scores of its metrics. */
function readRow(
  file: string,
  line: string,
  lineNumber: number,
): { row: z.infer<typeof RowSchema>; item: string; entry: string; scores: ImportedScore[] } {
  const entry = `line ${lineNumber}`;
  const row = checked(RowSchema, parseJson(line, file, entry), file, entry);
  const scores: ImportedScore[] = [];
  for (const metric of row.metrics) {
    if (!(metric in row)) throw logError(file, entry, `field '${metric}': listed in metrics but missing`);
    if (!MetricValueSchema.safeParse(row[metric]).success) {
      throw logError(
        file,
        entry,
        `field '${metric}': expected a number, a boolean, a list or null, found ${describeValue(row[metric])}`,
      );
    }
    scores.push({
      scorer: scorerName(metric, row.filter),
      value: row[metric],
      field: metric,
      ...(UNIT_METRICS.has(metric) ? { range: [0, 1] as const } : {}),
      answer: firstText(row.filtered_resps),
      explanation: null,
    });
  }
  return { row, item: String(row.doc_id), entry, scores };
}

function newSample(row: z.infer<typeof RowSchema>, entry: string): ImportedSample {
  const prompt = firstText(Object.values((row.arguments as Record<string, Record<string, unknown>>) ?? {})[0]?.arg_0);
  const output = firstText(row.resps) ?? firstText(row.filtered_resps);
  return {
    entry,
    item: String(row.doc_id),
    attempt: 1,
    input: prompt,
    target: Array.isArray(row.target) ? row.target.map(String) : [String(asText(row.target) ?? "")],
    choices: null,
    messages: prompt === null ? [] : [{ role: "user", content: prompt }],
    output,
    scores: [],
    usage: null,
    latencyMs: null,
    error: null,
  };
}

/** The first string of a (nested) list, or the value itself as text. */
function firstText(value: unknown): string | null {
  if (Array.isArray(value)) return value.length === 0 ? null : firstText(value[0]);
  return asText(value);
}

function pretrainedOf(modelArgs: unknown): string | undefined {
  if (typeof modelArgs === "string") return /(?:^|,)pretrained=([^,]+)/.exec(modelArgs)?.[1];
  if (modelArgs && typeof modelArgs === "object") {
    const pretrained = (modelArgs as Record<string, unknown>).pretrained;
    return typeof pretrained === "string" ? pretrained : undefined;
  }
  return undefined;
}

function generationOf(kwargs: z.infer<typeof GenerationKwargsSchema>): GenerationParams {
  const params: GenerationParams = {};
  if (typeof kwargs.temperature === "number") params.temperature = kwargs.temperature;
  if (typeof kwargs.top_p === "number") params.topP = kwargs.top_p;
  if (typeof kwargs.max_gen_toks === "number") params.maxTokens = kwargs.max_gen_toks;
  if (kwargs.until !== undefined && kwargs.until !== null)
    params.stop = typeof kwargs.until === "string" ? [kwargs.until] : kwargs.until;
  return params;
}
