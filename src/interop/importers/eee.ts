/**
 * Every Eval Ever instance-level records (`*_samples.jsonl`, one record per line, schema v0.3):
 * one log per model and evaluation name. The outcome is `evaluation.is_correct`; the attempt
 * and the conditions come from the metadata Parallax writes on export and its sidecar
 * (parallax-sidecar.json in the file's directory or a parent), when they are there.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import type { ChatMessage, MessageRole } from "../../contracts/provider.js";
import { SIDECAR_FILE, type Sidecar, SidecarSchema } from "../eee/sidecar.js";
import type { ImportedLog, ImportedSample, Importer } from "../types.js";
import { checked, logError, parseJson, readText } from "../read.js";

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
  evaluation: z.looseObject({ score: z.number(), is_correct: z.boolean() }),
  token_usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }).nullish(),
  performance: z.looseObject({ latency_ms: z.number().nullish() }).nullish(),
  error: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

type Instance = z.infer<typeof InstanceSchema>;

export const eeeImporter: Importer = {
  name: "eee",
  description: "Every Eval Ever v0.3 instance-level records (*_samples.jsonl)",
  argument: "FILE...: instance-level JSONL files, or directories holding them",
  async read(paths) {
    const logs = new Map<string, ImportedLog>();
    for (const file of paths.flatMap(samplesFiles)) {
      const sidecar = findSidecar(file);
      readText(file)
        .split(/\r?\n/)
        .forEach((line, index) => {
          if (line.trim() === "") return;
          const entry = `line ${index + 1}`;
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

function samplesFiles(path: string): string[] {
  if (!existsSync(path)) throw logError(path, null, "no such file or directory");
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => {
      const full = join(path, name);
      return statSync(full).isDirectory() ? samplesFiles(full) : name.endsWith(".jsonl") ? [full] : [];
    });
}

/** The export's sidecar: in the file's directory or the nearest parent that has one. */
function findSidecar(file: string): Sidecar | null {
  let dir = dirname(resolve(file));
  for (;;) {
    const candidate = join(dir, SIDECAR_FILE);
    if (existsSync(candidate))
      return checked(SidecarSchema, parseJson(readText(candidate), candidate, null), candidate, null);
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
