/**
 * Inspect AI logs: the `.eval` zip (header.json, samples/<id>_epoch_<n>.json, reductions.json;
 * a log still running has only _journal/start.json) and the older single-file `.json` log.
 * The format is not frozen: zod checks only the fields read here, unknown ones pass.
 */
import { basename, extname } from "node:path";
import { readBoundedBytes } from "../../core/guarded-read.js";
import * as z from "zod";
import type { ChatMessage, GenerationParams, MessageRole } from "../../contracts/provider.js";
import type { ImportedLog, ImportedSample, Importer } from "../types.js";
import { asText, checked, contentText, filesOf, logError, logReadLimit, parseJson, readText } from "../read.js";
import { DEFAULT_ZIP_LIMITS, inflatesCleanly, ZipError, type ZipLimits, ZipReader } from "../zip.js";

const ScoreSchema = z.looseObject({
  value: z.unknown(),
  answer: z.unknown().optional(),
  explanation: z.unknown().optional(),
});

const MessageSchema = z.looseObject({ role: z.string(), content: z.unknown() });

const SampleSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  epoch: z.number().int().positive(),
  input: z.unknown(),
  target: z.union([z.string(), z.array(z.string())]).nullish(),
  choices: z.array(z.string()).nullish(),
  messages: z.array(MessageSchema).nullish(),
  output: z
    .looseObject({
      completion: z.string().nullish(),
      choices: z.array(z.looseObject({ message: MessageSchema })).nullish(),
      usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }).nullish(),
    })
    .nullish(),
  scores: z.record(z.string(), ScoreSchema).nullish(),
  error: z.unknown().optional(),
  total_time: z.number().nullish(),
  attachments: z.record(z.string(), z.string()).nullish(),
});

const HeaderSchema = z.looseObject({
  status: z.string().optional(),
  eval: z.looseObject({
    task: z.string().min(1),
    model: z.string().min(1),
    task_args: z.record(z.string(), z.unknown()).nullish(),
  }),
  plan: z.looseObject({ config: z.record(z.string(), z.unknown()).nullish() }).nullish(),
  results: z.looseObject({ scores: z.array(z.looseObject({ name: z.string() })).nullish() }).nullish(),
});

type Header = z.infer<typeof HeaderSchema>;
type Sample = z.infer<typeof SampleSchema>;

export const inspectImporter: Importer = {
  name: "inspect",
  description: "Inspect AI logs (.eval zip logs and the older .json logs)",
  argument: "LOG...: .eval or .json log files, or folders holding them (searched recursively)",
  async read(paths, _mapping, options) {
    const limits = options?.zipLimits ?? DEFAULT_ZIP_LIMITS;
    const seen = options?.onFile ?? (() => {});
    const logs: ImportedLog[] = [];
    for (const { file, given } of filesOf(paths)) {
      const log = readLog(file, given, limits);
      if (typeof log === "string") seen({ file, read: false, why: log });
      else {
        logs.push(log);
        seen({ file, read: true, why: `Inspect log, ${log.samples.length} samples` });
      }
    }
    if (logs.length === 0) throw logError(paths.join(", "), null, "no Inspect log (.eval or .json) found");
    return logs;
  },
};

/** A log, or why a file found in a folder is not one (a file named on the command line must be one). */
function readLog(file: string, given: boolean, limits: ZipLimits): ImportedLog | string {
  const kind = extname(file).toLowerCase();
  if (kind === ".eval") return readEvalZip(file, limits);
  if (!given && kind !== ".json") return "not an .eval or .json file";
  return readJsonLog(file, given, limits) ?? "JSON but not an Inspect log (no eval.task and eval.model)";
}

function readEvalZip(file: string, limits: ZipLimits): ImportedLog {
  let zip: ZipReader;
  try {
    zip = ZipReader.open(file, limits);
  } catch (error) {
    throw unreadableZip(file, error, limits);
  }
  try {
    const json = (name: string) => parseJson(zip.text(name), file, name);
    const headerName = zip.has("header.json") ? "header.json" : "_journal/start.json";
    if (!zip.has(headerName)) throw logError(file, null, "no header.json (nor _journal/start.json) in the zip");
    const header = checked(HeaderSchema, json(headerName), file, headerName);
    const samples = zip
      .names()
      .filter((name) => /^samples\/[^/]+\.json$/.test(name))
      .sort(byNaturalName)
      .map((name) => toSample(checked(SampleSchema, json(name), file, name), name));
    return toLog(file, header, samples, header);
  } catch (error) {
    if (error instanceof ZipError) throw logError(file, error.entry, error.message);
    throw error;
  } finally {
    zip.close();
  }
}

/** Why a zip could not be opened: a missing file, or (no central directory) the entry a truncation cut. */
function unreadableZip(file: string, error: unknown, limits: ZipLimits): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined) return logError(file, null, code === "ENOENT" ? "no such file" : `cannot read (${code})`);
  if (!(error instanceof ZipError)) return error as Error;
  if (!error.damaged) return logError(file, error.entry, error.message);
  const damaged = damagedEntry(new Uint8Array(readBoundedBytes(file, logReadLimit(limits))), limits.entryBytes);
  return logError(
    file,
    damaged ?? error.entry ?? "zip central directory",
    `not a readable .eval zip (${error.message}): ${damaged ? "this entry is cut off or corrupt" : "the zip's end is missing"}; is the file truncated?`,
  );
}

/** A single-file JSON log; null when a file found in a folder is JSON but not an Inspect log (logs.json, say). */
function readJsonLog(file: string, given: boolean, limits: ZipLimits): ImportedLog | null {
  const value = parseJson(readText(file, logReadLimit(limits)), file, null);
  if (!given && !HeaderSchema.safeParse(value).success) return null;
  const log = checked(HeaderSchema.extend({ samples: z.array(z.unknown()).nullish() }), value, file, null);
  const samples = (log.samples ?? []).map((raw, i) => {
    const entry = `samples[${i}]`;
    return toSample(checked(SampleSchema, raw, file, entry), entry);
  });
  const { samples: _samples, ...header } = value as Record<string, unknown>;
  return toLog(file, log, samples, header);
}

function toLog(file: string, header: Header, samples: ImportedSample[], raw: unknown): ImportedLog {
  const notes: string[] = [];
  if (samples.length === 0) notes.push(`${basename(file)}: the log holds no samples (aggregate results only)`);
  if (header.status && header.status !== "success") notes.push(`${basename(file)}: log status is '${header.status}'`);
  const scorers = (header.results?.scores ?? []).map((s) => s.name);
  for (const sample of samples) for (const s of sample.scores) if (!scorers.includes(s.scorer)) scorers.push(s.scorer);
  return {
    file,
    framework: "inspect",
    model: header.eval.model,
    benchmark: header.eval.task,
    header: raw,
    generation: generationOf(header.plan?.config ?? {}),
    scorers,
    samples,
    notes,
  };
}

function toSample(sample: Sample, entry: string): ImportedSample {
  const attachments = sample.attachments ?? {};
  const resolve = (text: string) =>
    text.startsWith("attachment://") ? (attachments[text.slice("attachment://".length)] ?? text) : text;
  const messages: ChatMessage[] = (sample.messages ?? []).map((m) => ({
    role: roleOf(m.role),
    content: resolve(contentText(m.content)),
  }));
  const output =
    sample.output?.completion ??
    (sample.output?.choices?.[0] ? contentText(sample.output.choices[0].message.content) : null);
  // The final assistant message is the output: keep the messages as sent.
  const last = messages.at(-1);
  if (output !== null && last?.role === "assistant" && last.content === resolve(output)) messages.pop();
  const usage = sample.output?.usage;
  return {
    entry,
    item: String(sample.id),
    attempt: sample.epoch,
    input:
      typeof sample.input === "string" ? resolve(sample.input) : resolve(contentText(lastUserContent(sample.input))),
    target: typeof sample.target === "string" ? [sample.target] : (sample.target ?? []),
    choices: sample.choices ?? null,
    messages,
    output: output === null ? null : resolve(output),
    scores: Object.entries(sample.scores ?? {}).map(([scorer, s]) => ({
      scorer,
      value: s.value,
      field: `scores.${scorer}.value`,
      answer: asText(s.answer),
      explanation: asText(s.explanation),
    })),
    usage: usage ? { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens } : null,
    latencyMs: sample.total_time == null ? null : Math.round(sample.total_time * 1000),
    error:
      sample.error == null ? null : (asText((sample.error as { message?: unknown }).message) ?? asText(sample.error)),
  };
}

/**
 * The first entry of a zip that cannot be read, walking its local headers in file order: the
 * entry a truncation cut or whose deflated data is corrupt. Undefined when every entry is whole
 * (then only the central directory at the end is missing).
 */
function damagedEntry(zip: Uint8Array, capBytes: number): string | undefined {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let at = 0;
  while (at + 30 <= zip.length && view.getUint32(at, true) === 0x04034b50) {
    const method = view.getUint16(at + 8, true);
    const size = view.getUint32(at + 18, true);
    const nameLength = view.getUint16(at + 26, true);
    const start = at + 30 + nameLength + view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(zip.subarray(at + 30, Math.min(zip.length, at + 30 + nameLength)));
    if (start + size > zip.length) return name;
    if (method === 8 && !inflatesCleanly(zip.subarray(start, start + size), capBytes)) return name;
    at = start + size;
  }
  return at + 30 > zip.length && at < zip.length ? "a local header cut off" : undefined;
}

/** A sample's input given as a list of messages: the text of the last one. */
function lastUserContent(input: unknown): unknown {
  return Array.isArray(input) ? (input.at(-1) as { content?: unknown } | undefined)?.content : input;
}

function roleOf(role: string): MessageRole {
  return role === "system" || role === "assistant" || role === "tool" ? role : "user";
}

/** Inspect's GenerateConfig fields that Parallax records on a call. */
export function generationOf(config: Record<string, unknown>): GenerationParams {
  const number = (key: string) => (typeof config[key] === "number" ? (config[key] as number) : undefined);
  const params: GenerationParams = {
    temperature: number("temperature"),
    topP: number("top_p"),
    topK: number("top_k"),
    maxTokens: number("max_tokens"),
    seed: number("seed"),
    stop: Array.isArray(config.stop_seqs) ? (config.stop_seqs as string[]) : undefined,
  };
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as GenerationParams;
}

/** samples/2_epoch_1.json before samples/10_epoch_1.json. */
function byNaturalName(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}
