/**
 * Imported logs as an ordinary Parallax run: a run record with a spec that describes what was
 * imported (models, benchmarks, the mapping's facets), one trial per sample and epoch (model,
 * benchmark = task, item = sample id, attempt = epoch, condition from the mapping), its outcome
 * from the run-time scorer, one call with the messages and output where the log has them, and
 * every score of every scorer as a stored score. Every sample is built and checked before the
 * store is touched; the trials are then built again and written in batches, so an import need
 * not hold them (nor a streamed log's samples) in memory.
 */
import { basename } from "node:path";
import { SUBJECT_FACET } from "../contracts/analysis.js";
import type { ImportedFrom, StudyProvenance } from "../contracts/provenance.js";
import { DEFAULT_MAX_TRIALS, type StudySpec } from "../contracts/spec.js";
import type { CallRecord, PlannedTrial, ScoreRecord, TrialOutcome } from "../contracts/trial.js";
import { InputError } from "../core/errors.js";
import { visibleText } from "../core/visible-text.js";
import { conditionHash, hashValue, trialId } from "../core/hash.js";
import { PARALLAX_VERSION } from "../core/version.js";
import type { RunRecord, TrialCompletion } from "../run/store/types.js";
import type { FacetSource, ImportMapping } from "./mapping.js";
import { outcomeOf, scoreProblem } from "./outcome.js";
import { valueAt } from "./read.js";
import type { ImportedLog, ImportedSample } from "./types.js";

export interface PreparedImport {
  run: RunRecord;
  trials: PlannedTrial[];
  completions: TrialCompletion[];
  scores: ScoreRecord[];
  notes: string[];
  /** Per log: file, model, benchmark, trials and scores, for the command's summary. */
  logs: LogSummary[];
}

/** One log's line of the command's summary. */
export interface LogSummary {
  file: string;
  model: string;
  benchmark: string;
  trials: number;
  scores: number;
  declared?: number;
}

/** One sample as the store receives it: its trial, its outcome with its call, and its scores. */
export interface BuiltTrial {
  trial: PlannedTrial;
  completion: TrialCompletion;
  scores: ScoreRecord[];
}

/** What an import keeps of each trial once it is written (its call and scores are in the store only). */
export type ImportedTrial = Pick<
  PlannedTrial,
  "id" | "modelId" | "benchmarkId" | "itemId" | "attempt" | "conditionHash"
>;

/** What an import keeps of each trial's outcome. */
export interface ImportedOutcome {
  trialId: string;
  outcome: Pick<TrialOutcome, "status" | "score" | "parseStatus" | "simulated">;
}

/** The facet every trial gets when the mapping declares none: which framework wrote the log. */
export const DEFAULT_FACET = "source";

/**
 * Comparing models: Parallax pairs the levels of a facet on the same (model, item, attempt), so
 * the compared models become the levels of this facet and the trials share one model label.
 */
export { SUBJECT_FACET };
export const COMPARED_MODELS = "compared-models";

const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]*$/;

/** How many samples a log holds (a streamed log counted them when it was read). */
export function sampleCount(log: ImportedLog): number {
  return log.stream ? log.stream.count : log.samples.length;
}

/** Each sample of a log in order: from memory, or read again from its file (a streamed log). */
export async function eachSample(
  log: ImportedLog,
  visit: (sample: ImportedSample) => void | Promise<void>,
): Promise<void> {
  if (!log.stream) {
    for (const sample of log.samples) await visit(sample);
    return;
  }
  let count = 0;
  await log.stream.each(async (sample) => {
    count++;
    await visit(sample);
  });
  if (count !== log.stream.count)
    throw new InputError(
      `${log.file}: changed during the import: it held ${log.stream.count} samples when it was first read and ${count} when it was read again`,
    );
}

/** Per log, what every one of its trials shares. */
interface LogContext {
  log: ImportedLog;
  subject: string;
  model: string;
  benchmark: string;
  facets: Record<string, string>;
  primary: string | null;
}

/**
 * The trials of an import, built one sample at a time. `build` turns a sample into its trial,
 * outcome, call and scores; `check` refuses a duplicate trial or an unreadable score and keeps
 * only what the run record needs (facet levels, attempts, the manifest, counts), so the samples
 * can be built, checked and dropped in any number of passes.
 */
export class ImportBuilder {
  readonly createdAt: string;
  readonly study: string;
  readonly runId: string;
  private readonly compareModels: boolean;
  private readonly facetOrder: string[];
  private readonly contexts = new Map<ImportedLog, LogContext>();
  private readonly seen = new Map<string, { file: string; entry: string }>();
  private readonly levels: Map<string, string[]>;
  private readonly manifest = new Set<string>();
  private readonly tallies = new Map<ImportedLog, { trials: number; scores: number; scored: number }>();
  private readonly hashes = new Map<string, string>();
  private attempts = 1;
  private trialCount = 0;

  constructor(
    private readonly framework: string,
    private readonly logs: readonly ImportedLog[],
    private readonly mapping: ImportMapping,
    now: Date = new Date(),
  ) {
    this.createdAt = now.toISOString();
    this.study = mapping.study ?? sourceStudy(logs) ?? `import-${framework}`;
    const modelIds = [...new Set(logs.map((l) => idOf(mapping.models[l.model] ?? l.model)))];
    this.compareModels =
      (mapping.compare ??
        (Object.keys(mapping.facets).length === 0 &&
        modelIds.length > 1 &&
        logs.every((l) => l.comparesModels !== false)
          ? "models"
          : "none")) === "models";
    this.facetOrder = this.compareModels
      ? [SUBJECT_FACET, ...facetNames(logs, mapping).filter((f) => f !== DEFAULT_FACET && f !== SUBJECT_FACET)]
      : facetNames(logs, mapping);
    // A source that knows its study's level order (a Parallax table) gives it: the reference stays first.
    this.levels = new Map(this.facetOrder.map((f) => [f, [...new Set(logs.flatMap((l) => l.facetLevels?.[f] ?? []))]]));
    this.runId = `${this.study}-${hashValue([framework, logs.map((l) => [l.file, sampleCount(l)]), mapping]).slice(0, 12)}`;
  }

  /** A condition's hash, computed once per distinct condition (a log's trials mostly share one). */
  private hashOf(condition: Record<string, string>): string {
    const key = JSON.stringify(condition);
    const known = this.hashes.get(key);
    if (known !== undefined) return known;
    if (this.hashes.size >= 10_000) this.hashes.clear();
    const hash = conditionHash(condition);
    this.hashes.set(key, hash);
    return hash;
  }

  private context(log: ImportedLog): LogContext {
    const known = this.contexts.get(log);
    if (known) return known;
    const subject = idOf(this.mapping.models[log.model] ?? log.model);
    const facets: Record<string, string> = Object.fromEntries(
      Object.entries(this.mapping.facets).map(([facet, source]) => [facet, facetValue(log, facet, source)]),
    );
    if (this.compareModels) facets[SUBJECT_FACET] = subject;
    const context: LogContext = {
      log,
      subject,
      model: this.compareModels ? COMPARED_MODELS : subject,
      benchmark: idOf(this.mapping.benchmarks[log.benchmark] ?? log.benchmark),
      facets,
      primary: this.mapping.scorer ?? log.scorers[0] ?? null,
    };
    this.contexts.set(log, context);
    return context;
  }

  /** The sample's trial, its outcome and call, and its scores (nothing checked). */
  build(log: ImportedLog, sample: ImportedSample): BuiltTrial {
    const { model, benchmark, facets, primary } = this.context(log);
    const { framework, mapping, createdAt } = this;
    const condition = Object.fromEntries(
      this.facetOrder.map((f) => [f, facets[f] ?? sample.condition?.[f] ?? (f === DEFAULT_FACET ? framework : "none")]),
    );
    const hash = this.hashOf(condition);
    const id = trialId({
      modelId: model,
      conditionHash: hash,
      benchmarkId: benchmark,
      itemId: sample.item,
      attempt: sample.attempt,
    });
    const where = `${log.file} (${sample.entry})`;
    return {
      trial: {
        id,
        runId: this.runId,
        modelId: model,
        benchmarkId: benchmark,
        itemId: sample.item,
        conditionHash: hash,
        condition,
        attempt: sample.attempt,
      },
      completion: {
        trialId: id,
        outcome: outcomeFor(sample, primary, mapping),
        calls: callsFor(id, log, sample, createdAt),
      },
      scores: sample.scores.map((score) => ({
        trialId: id,
        scorer: score.scorer,
        version: `${log.framework}-import`,
        parsedAnswer: score.answer,
        parseStatus: score.parseStatus ?? parseStatusOf(score.value, outcomeOf(score.value, mapping.outcomes)),
        score: outcomeOf(score.value, mapping.outcomes),
        details: { value: score.value as never, explanation: score.explanation, source: where },
        createdAt,
      })),
    };
  }

  /**
   * Refuses a trial another sample already gave and a score that cannot be read (naming the
   * log, the sample and the field), and counts the trial into the run record.
   */
  check(log: ImportedLog, sample: ImportedSample, built: BuiltTrial): void {
    const { trial } = built;
    // An imported condition's values are its levels' labels (build makes them text).
    for (const [f, v] of Object.entries(trial.condition as Record<string, string>))
      if (!this.levels.get(f)!.includes(v)) this.levels.get(f)!.push(v);
    const where = `${log.file} (${sample.entry})`;
    const earlier = this.seen.get(trial.id);
    if (earlier) {
      throw new InputError(
        `${where}: the same trial (model ${trial.modelId}, benchmark ${trial.benchmarkId}, item ${visibleText(sample.item)}, attempt ${sample.attempt}, condition ${JSON.stringify(trial.condition)}) is also in ${earlier.file} (${earlier.entry}); give the logs different facet values in the mapping (facets: NAME: logs: {FILE: VALUE}) or import them into separate studies`,
      );
    }
    this.seen.set(trial.id, { file: log.file, entry: sample.entry });
    for (const score of sample.scores) {
      const problem = scoreProblem(score.value, score.range, this.mapping.outcomes);
      if (problem)
        throw new InputError(
          `${where}: sample ${visibleText(JSON.stringify(sample.item))}, field '${score.field ?? `scores.${score.scorer}`}': ${problem}`,
        );
    }
    const tally = this.tallies.get(log) ?? { trials: 0, scores: 0, scored: 0 };
    tally.trials++;
    tally.scores += built.scores.length;
    if (built.completion.outcome.score !== null) tally.scored++;
    this.tallies.set(log, tally);
    this.manifest.add(`${trial.benchmarkId}\u0000${trial.itemId}`);
    this.attempts = Math.max(this.attempts, trial.attempt);
    this.trialCount++;
  }

  /** The run record, the notes and the per-log summary, once every sample has been checked. */
  finish(): { run: RunRecord; notes: string[]; logs: LogSummary[] } {
    const { framework, logs, mapping } = this;
    const summary: LogSummary[] = [];
    const unscored: string[] = [];
    for (const log of logs) {
      const { subject, benchmark, primary } = this.context(log);
      const tally = this.tallies.get(log) ?? { trials: 0, scores: 0, scored: 0 };
      summary.push({
        file: log.file,
        model: subject,
        benchmark,
        trials: tally.trials,
        scores: tally.scores,
        ...(log.declaredSamples === undefined ? {} : { declared: log.declaredSamples }),
      });
      if (tally.trials > 0 && tally.scored === 0)
        unscored.push(
          `${basename(log.file)}: not scored: none of its ${tally.trials} trials has an outcome (${tally.scores} scores${primary ? `; run-time scorer '${primary}'` : ""})`,
        );
    }
    const spec = specOf({ study: this.study, framework, mapping }, logs, Object.fromEntries(this.levels), {
      attempts: this.attempts,
      trials: this.trialCount,
      compareModels: this.compareModels,
    });
    const run: RunRecord = {
      id: this.runId,
      study: this.study,
      specHash: hashValue(spec),
      manifestHash: hashValue([...this.manifest].sort()),
      spec,
      createdAt: this.createdAt,
      parallaxVersion: PARALLAX_VERSION,
      imported: { format: framework, origins: originsOf(logs), ...countsOf(logs) },
    };
    const notes = [...logs.flatMap((l) => l.notes), ...unscored];
    for (const log of logs) {
      if (mapping.scorer && sampleCount(log) > 0 && !log.scorers.includes(mapping.scorer)) {
        notes.push(
          `${basename(log.file)}: no scorer '${mapping.scorer}' (scorers: ${log.scorers.join(", ") || "none"}); its trials are unscored`,
        );
      }
    }
    return { run, notes, logs: summary };
  }
}

/** Every trial, outcome, call and score of logs held in memory, checked, with the run record. */
export function prepareImport(
  framework: string,
  logs: readonly ImportedLog[],
  mapping: ImportMapping,
  now: Date = new Date(),
): PreparedImport {
  if (logs.some((l) => l.stream)) throw new Error("prepareImport: a streamed log is imported with planImport");
  const builder = new ImportBuilder(framework, logs, mapping, now);
  const trials: PlannedTrial[] = [];
  const completions: TrialCompletion[] = [];
  const scores: ScoreRecord[] = [];
  for (const log of logs) {
    for (const sample of log.samples) {
      const built = builder.build(log, sample);
      builder.check(log, sample, built);
      trials.push(built.trial);
      completions.push(built.completion);
      for (const score of built.scores) scores.push(score);
    }
  }
  return { ...builder.finish(), trials, completions, scores };
}

/**
 * An import planned without holding its trials: every sample is built and checked once (a
 * streamed log read through), keeping only the run record and each trial's id, item and
 * outcome; `batches` builds the samples again, in bounded batches, for the store.
 */
export interface PlannedImport {
  run: RunRecord;
  notes: string[];
  logs: LogSummary[];
  trials: ImportedTrial[];
  completions: ImportedOutcome[];
  /** How many scores the import stores. */
  scores: number;
  /** Gives the trials again, at most `size` at a time, in the logs' order. */
  batches(size: number, write: (batch: BuiltTrial[]) => Promise<void>): Promise<void>;
}

export async function planImport(
  framework: string,
  logs: readonly ImportedLog[],
  mapping: ImportMapping,
  now: Date = new Date(),
): Promise<PlannedImport> {
  const builder = new ImportBuilder(framework, logs, mapping, now);
  const trials: ImportedTrial[] = [];
  const completions: ImportedOutcome[] = [];
  let scores = 0;
  for (const log of logs) {
    await eachSample(log, (sample) => {
      const built = builder.build(log, sample);
      builder.check(log, sample, built);
      const { id, modelId, benchmarkId, itemId, attempt, conditionHash } = built.trial;
      const { status, score, parseStatus, simulated } = built.completion.outcome;
      trials.push({ id, modelId, benchmarkId, itemId, attempt, conditionHash });
      completions.push({ trialId: id, outcome: { status, score, parseStatus, simulated } });
      scores += built.scores.length;
    });
  }
  const finished = builder.finish();
  return {
    ...finished,
    trials,
    completions,
    scores,
    async batches(size, write) {
      let batch: BuiltTrial[] = [];
      for (const log of logs) {
        await eachSample(log, async (sample) => {
          batch.push(builder.build(log, sample));
          if (batch.length >= size) {
            const full = batch;
            batch = [];
            await write(full);
          }
        });
      }
      if (batch.length > 0) await write(batch);
    },
  };
}

/** Both counts of every log whose results declare another number of samples than it holds. */
function countsOf(logs: readonly ImportedLog[]): Pick<ImportedFrom, "counts"> {
  const counts = logs.flatMap((log) =>
    log.declaredSamples !== undefined && log.declaredSamples !== sampleCount(log)
      ? [{ log: log.file, benchmark: log.benchmark, declared: log.declaredSamples, present: sampleCount(log) }]
      : [],
  );
  return counts.length > 0 ? { counts } : {};
}

/** The study the logs were exported from, when they all name the same one (a re-imported Parallax export). */
function sourceStudy(logs: readonly ImportedLog[]): string | undefined {
  const studies = new Set(logs.map((l) => l.provenance?.study));
  const [only] = studies;
  return studies.size === 1 && only && IDENTIFIER.test(only) ? only : undefined;
}

/** The distinct provenances the logs carried (Parallax exports), each once. */
function originsOf(logs: readonly ImportedLog[]): StudyProvenance[] {
  const byRun = new Map<string, StudyProvenance>();
  for (const log of logs)
    if (log.provenance) byRun.set(`${log.provenance.run_id}\u0000${log.provenance.spec_hash}`, log.provenance);
  return [...byRun.values()];
}

/**
 * The mapping's facets, then those the samples carry themselves; `source` when there are none.
 * A streamed log's samples carry none (only the mapping gives their facets).
 */
function facetNames(logs: readonly ImportedLog[], mapping: ImportMapping): string[] {
  const names = Object.keys(mapping.facets);
  for (const log of logs)
    for (const sample of log.stream ? [] : log.samples)
      for (const f of Object.keys(sample.condition ?? {})) if (!names.includes(f)) names.push(f);
  return names.length > 0 ? names : [DEFAULT_FACET];
}

/** A facet's value for one log: its entry under `logs` (file name or path), else the header field, else the default. */
function facetValue(log: ImportedLog, facet: string, source: FacetSource): string {
  const byLog = source.logs?.[log.file] ?? source.logs?.[basename(log.file)];
  if (byLog !== undefined) return byLog;
  if (source.field !== undefined) {
    const value = valueAt(log.header, source.field);
    if (value !== undefined && value !== null && value !== "")
      return typeof value === "string" ? value : JSON.stringify(value);
  }
  if (source.default !== undefined) return source.default;
  throw new InputError(
    `${log.file}: no value for facet '${facet}': the mapping's facets.${facet} has no entry for ${basename(log.file)}${
      source.field ? `, the log has no field ${source.field}` : ""
    } and no default`,
  );
}

function outcomeFor(sample: ImportedSample, primary: string | null, mapping: ImportMapping): TrialOutcome {
  const score = sample.scores.find((s) => s.scorer === primary);
  const outcome = score ? outcomeOf(score.value, mapping.outcomes) : null;
  return {
    status: sample.error ? "errored" : "finished",
    finalAnswer: sample.output,
    parsedAnswer: score?.answer ?? null,
    parseStatus: score ? (score.parseStatus ?? parseStatusOf(score.value, outcome)) : "not_applicable",
    score: sample.error ? null : outcome,
    scorer: score ? score.scorer : null,
    failureBucket: sample.error ? "other" : null,
    errorMessage: sample.error,
    usage: sample.usage ?? { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    latencyMs: sample.latencyMs ?? 0,
    droppedParams: [],
    simulated: sample.simulated ?? false,
  };
}

/** Inspect's N (no answer) is a parse failure; a value the mapping leaves unscored is not applicable. */
function parseStatusOf(value: unknown, outcome: 0 | 1 | null): TrialOutcome["parseStatus"] {
  if (value === "N") return "failed";
  return outcome === null ? "not_applicable" : "ok";
}

function callsFor(id: string, log: ImportedLog, sample: ImportedSample, at: string): CallRecord[] {
  if (sample.messages.length === 0 && sample.output === null) return [];
  return [
    {
      trialId: id,
      execution: 1,
      seq: 0,
      role: "answer",
      messages: sample.messages,
      paramsUsed: log.generation,
      droppedParams: [],
      responseText: sample.output,
      usage: sample.usage ?? { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      latencyMs: sample.latencyMs ?? 0,
      cached: false,
      error: sample.error ? { bucket: "other", message: sample.error } : null,
      startedAt: at,
      note: {
        imported_from: log.file,
        entry: sample.entry,
        input: sample.input,
        target: sample.target,
        choices: sample.choices,
      },
    },
  ];
}

/** A spec describing the import: what `analyze` and `report` read from a run (facets and their levels, models, benchmarks). */
function specOf(
  source: { study: string; framework: string; mapping: ImportMapping },
  logs: readonly ImportedLog[],
  facets: Record<string, string[]>,
  { attempts, trials, compareModels }: { attempts: number; trials: number; compareModels: boolean },
): StudySpec {
  const { study, framework, mapping } = source;
  const models = new Map<string, StudySpec["models"][number]>();
  const benchmarks = new Map<string, string[]>();
  for (const log of logs) {
    const id = idOf(mapping.models[log.model] ?? log.model);
    if (!models.has(id))
      models.set(id, { id, provider: `import:${framework}`, model: log.model, params: specParams(log) });
    const benchmark = idOf(mapping.benchmarks[log.benchmark] ?? log.benchmark);
    benchmarks.set(benchmark, [...(benchmarks.get(benchmark) ?? []), log.file]);
  }
  const modelList = compareModels
    ? [{ id: COMPARED_MODELS, provider: `import:${framework}`, model: [...models.keys()].join(", "), params: {} }]
    : [...models.values()];
  const nonEmpty = Object.fromEntries(
    Object.entries(facets).map(([f, v]) => [f, v.length > 0 ? v : [f === DEFAULT_FACET ? framework : "none"]]),
  );
  return {
    study,
    description: `imported from ${framework} logs by parallax import`,
    seed: 0,
    models: modelList,
    benchmarks: [...benchmarks].map(([id, files]) => ({
      id,
      loader: `import:${framework}`,
      source: files.join(", "),
      ...(mapping.benchmark_audit[id] ?? {}),
    })),
    conditions: { facets: nonEmpty, exclude: [] },
    attempts,
    execution: {
      concurrency: 1,
      max_trials: Math.max(DEFAULT_MAX_TRIALS, trials),
      max_retries: 0,
      timeout_s: 120,
      backoff_base_ms: 500,
      backoff_max_ms: 60_000,
      cache: false,
    },
    budget: {},
  };
}

function specParams(log: ImportedLog): StudySpec["models"][number]["params"] {
  const g = log.generation;
  const params: Record<string, unknown> = {
    temperature: g.temperature,
    top_p: g.topP,
    top_k: g.topK,
    max_tokens: g.maxTokens,
    seed: g.seed,
    stop: g.stop,
  };
  return Object.fromEntries(
    Object.entries(params).filter(([, v]) => v !== undefined),
  ) as StudySpec["models"][number]["params"];
}

/** A name usable as a Parallax id (models, benchmarks): characters outside the id alphabet become _. */
function idOf(name: string): string {
  if (IDENTIFIER.test(name)) return name;
  const cleaned = name.replace(/[^A-Za-z0-9_.:@/-]/g, "_").replace(/^[^A-Za-z0-9]+/, "");
  return cleaned || "unnamed";
}
