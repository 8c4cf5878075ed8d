/**
 * Every Eval Ever instance-level records (`*_samples.jsonl`, one record per line, schema v0.3):
 * one log per model and evaluation name. The outcome is `evaluation.is_correct`; the attempt
 * and the conditions come from the metadata Parallax writes on export and its sidecar
 * (parallax-sidecar.json in the file's directory or a parent), when they are there.
 *
 * An aggregate record (`eval.schema.json`: one JSON object with `evaluation_results`) given as a
 * file is read for its instance records: those of the samples file its
 * `detailed_evaluation_results` names; an aggregate whose samples file is not found is refused
 * (its score is an aggregate, with no item to analyse).
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import * as z from "zod";
import type { ChatMessage, MessageRole } from "../../contracts/provider.js";
import { SIDECAR_FILE, type Sidecar, SidecarSchema } from "../eee/sidecar.js";
import { scoreProblem } from "../outcome.js";
import type { ImportedLog, ImportedSample, Importer } from "../types.js";
import type { ReadLimit } from "../../core/guarded-read.js";
import { anyNumber, checked, filesOf, forEachLine, logError, logReadLimit, parseJson, readText } from "../read.js";

const InstanceSchema = z.looseObject({
  schema_version: z.string(),
  evaluation_id: z.string(),
  model_id: z.string().min(1),
  evaluation_name: z.string().min(1),
  sample_id: z.string().min(1),
  interaction_type: z.enum(["single_turn", "multi_turn", "agentic"]),
  input: z.looseObject({ raw: z.string(), reference: z.array(z.string()), choices: z.array(z.string()).nullish() }),
  output: z.looseObject({ raw: z.array(z.string()) }).nullish(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.string().nullish() })).nullish(),
  answer_attribution: z.array(z.looseObject({ extracted_value: z.string(), extraction_method: z.string() })),
  evaluation: z.looseObject({ score: anyNumber, is_correct: z.boolean() }),
  token_usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }).nullish(),
  performance: z.looseObject({ latency_ms: z.number().nullish() }).nullish(),
  error: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

type Instance = z.infer<typeof InstanceSchema>;

/** The fields of an aggregate record (eval.schema.json) the import reads. */
const AggregateSchema = z.looseObject({
  schema_version: z.string(),
  evaluation_id: z.string(),
  model_info: z.looseObject({ id: z.string().min(1) }),
  evaluation_results: z.array(
    z.looseObject({
      evaluation_name: z.string().min(1),
      score_details: z.looseObject({ score: z.number() }),
    }),
  ),
  detailed_evaluation_results: z.looseObject({ file_path: z.string().min(1) }).nullish(),
});

type Aggregate = z.infer<typeof AggregateSchema>;

const KINDS =
  "an EEE instance-level record per line (instance_level_eval.schema.json, *_samples.jsonl) or one aggregate record (eval.schema.json, a JSON object with evaluation_results)";

export const eeeImporter: Importer = {
  name: "eee",
  description: "Every Eval Ever v0.3 instance-level records (*_samples.jsonl) and the aggregate records naming them",
  argument: "PATH...: instance-level JSONL files, aggregate records, or folders holding them (searched recursively)",
  async read(paths, _mapping, options) {
    const seen = options?.onFile ?? (() => {});
    const limit = logReadLimit(options?.zipLimits);
    const logs = new Map<string, ImportedLog>();
    const files: string[] = [];
    const queued = new Set<string>();
    const queue = (file: string) => {
      if (queued.has(resolve(file))) return false;
      queued.add(resolve(file));
      files.push(file);
      return true;
    };
    for (const { file, given } of filesOf(paths)) {
      const skipped = skipReason(file, given);
      if (skipped) {
        seen({ file, read: false, why: skipped });
        continue;
      }
      const aggregate = aggregateRecord(file, given, limit);
      if (aggregate === "not eee") seen({ file, read: false, why: `JSON but not an EEE record` });
      else if (aggregate === null) {
        if (queue(file)) seen({ file, read: true, why: "EEE instance records" });
      } else {
        seen({ file, read: true, why: `EEE aggregate record; its instance records: ${aggregate.samples}` });
        if (queue(aggregate.samples)) seen({ file: aggregate.samples, read: true, why: "EEE instance records" });
      }
    }
    for (const file of files) {
      const sidecar = findSidecar(file, limit);
      await forEachLine(file, (line, lineNumber) => {
        const entry = `line ${lineNumber}`;
        const record = checked(InstanceSchema, parseJson(line, file, entry), file, entry);
        const key = `${record.model_id}\u0000${record.evaluation_name}`;
        const log = logs.get(key) ?? newLog(file, record, sidecar);
        log.samples.push(toSample(record, entry, file, sidecar));
        logs.set(key, log);
      });
    }
    if (logs.size === 0) throw logError(paths.join(", "), null, "no EEE instance records found");
    return [...logs.values()];
  },
};

/** Why a file found in a folder is not read (a file named on the command line is always read). */
function skipReason(file: string, given: boolean): string | null {
  if (basename(file) === SIDECAR_FILE) return "the export's sidecar (read with the records under its folder)";
  if (!given && !/\.jsonl?$/i.test(file)) return "not a .json or .jsonl file";
  return null;
}

/**
 * The aggregate record a file holds, with its samples file (null: the file is instance records,
 * JSONL). An aggregate whose samples file is not found is refused, naming it: an aggregate
 * score has no item to analyse. A JSON object that is neither record kind is refused naming
 * both when the file was named, and skipped ("not eee") when it was found in a folder.
 */
function aggregateRecord(
  file: string,
  given: boolean,
  limit: ReadLimit,
): { record: Aggregate; samples: string } | "not eee" | null {
  if (file.endsWith(".jsonl")) return null;
  const text = readText(file, limit).trimStart();
  if (!text.startsWith("{")) return null;
  const firstLine = text.split(/\r?\n/, 1)[0];
  // One record per line is JSONL (instance records); an object spread over lines is one record.
  if (isJsonObject(firstLine)) return null;
  const value = parseJson(text, file, null);
  if (!value || typeof value !== "object" || !("evaluation_results" in value)) {
    if (!given) return "not eee";
    throw logError(file, null, `not an EEE record: expected ${KINDS}`);
  }
  const record = checked(AggregateSchema, value, file, null);
  const named = record.detailed_evaluation_results?.file_path;
  if (!named) {
    throw logError(
      file,
      null,
      "an aggregate record naming no instance records (detailed_evaluation_results.file_path): an aggregate score has no item to analyse",
    );
  }
  const samples = findNamed(file, named);
  if (!samples) {
    throw logError(
      file,
      "detailed_evaluation_results.file_path",
      `its instance records ${named} are not beside it nor under a parent folder; an aggregate score alone has no item to analyse`,
    );
  }
  return { record, samples };
}

function isJsonObject(line: string): boolean {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The samples file an aggregate names (relative to the export's root): beside it or under a parent. */
function findNamed(file: string, named: string): string | null {
  let dir = dirname(resolve(file));
  for (;;) {
    for (const candidate of [join(dir, named), join(dir, basename(named))])
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The export's sidecar: in the file's directory or the nearest parent that has one. */
function findSidecar(file: string, limit: ReadLimit): Sidecar | null {
  let dir = dirname(resolve(file));
  for (;;) {
    const candidate = join(dir, SIDECAR_FILE);
    if (existsSync(candidate))
      return checked(SidecarSchema, parseJson(readText(candidate, limit), candidate, null), candidate, null);
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function newLog(file: string, record: Instance, sidecar: Sidecar | null): ImportedLog {
  return {
    ...(sidecar?.provenance ? { provenance: sidecar.provenance } : {}),
    file,
    framework: "eee",
    model: record.model_id,
    benchmark: record.evaluation_name,
    header: { evaluation_id: record.evaluation_id, schema_version: record.schema_version },
    generation: {},
    scorers: ["is_correct"],
    samples: [],
    notes: [],
  };
}

function toSample(record: Instance, entry: string, file: string, sidecar: Sidecar | null): ImportedSample {
  const meta = record.metadata ?? {};
  const attempt = meta.attempt === undefined ? 1 : Number(meta.attempt);
  if (!Number.isInteger(attempt) || attempt < 1)
    throw logError(file, entry, `field 'metadata.attempt': expected a positive integer, found '${meta.attempt}'`);
  const hash = meta.condition_hash;
  const condition = hash && sidecar ? sidecar.conditions[hash] : undefined;
  if (hash && sidecar && !condition)
    throw logError(file, entry, `field 'metadata.condition_hash': ${hash} is not in the sidecar's conditions`);
  const scoreProblemText = scoreProblem(record.evaluation.score, undefined, { values: {} });
  if (scoreProblemText)
    throw logError(
      file,
      entry,
      `sample ${JSON.stringify(record.sample_id)}, field 'evaluation.score': ${scoreProblemText}`,
    );
  const attribution = record.answer_attribution.at(-1);
  const messages: ChatMessage[] = (record.messages ?? []).map((m) => ({
    role: roleOf(m.role),
    content: m.content ?? "",
  }));
  if (messages.length === 0 && record.input.raw) messages.push({ role: "user", content: record.input.raw });
  // Parallax writes scored=false for a trial without an outcome (EEE's score is then a placeholder).
  const scored = meta.scored !== "false";
  // Parallax writes each record's label; an older export's sidecar may carry the study's only.
  const simulated =
    meta.simulated === undefined ? (sidecar?.provenance?.simulated ?? false) : meta.simulated === "true";
  return {
    entry,
    item: record.sample_id,
    attempt,
    input: record.input.raw,
    target: record.input.reference,
    choices: record.input.choices ?? null,
    messages,
    output: record.output?.raw[0] ?? null,
    scores: scored
      ? [
          {
            scorer: "is_correct",
            value: record.evaluation.is_correct,
            field: "evaluation.is_correct",
            answer: attribution?.extracted_value ?? null,
            explanation: null,
          },
        ]
      : [],
    usage: record.token_usage
      ? { inputTokens: record.token_usage.input_tokens, outputTokens: record.token_usage.output_tokens }
      : null,
    latencyMs: record.performance?.latency_ms ?? null,
    error: record.error ?? null,
    ...(condition ? { condition } : {}),
    simulated,
  };
}

function roleOf(role: string): MessageRole {
  return role === "system" || role === "assistant" || role === "tool" ? role : "user";
}
