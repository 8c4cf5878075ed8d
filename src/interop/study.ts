/**
 * Imported logs as an ordinary Parallax run: a run record with a spec that describes what was
 * imported (models, benchmarks, the mapping's facets), one trial per sample and epoch (model,
 * benchmark = task, item = sample id, attempt = epoch, condition from the mapping), its outcome
 * from the run-time scorer, one call with the messages and output where the log has them, and
 * every score of every scorer as a stored score. Everything is built and checked in memory
 * before the store is touched.
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
  logs: { file: string; model: string; benchmark: string; trials: number; scores: number; declared?: number }[];
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

export function prepareImport(
  framework: string,
  logs: readonly ImportedLog[],
  mapping: ImportMapping,
  now: Date = new Date(),
): PreparedImport {
  const createdAt = now.toISOString();
  const study = mapping.study ?? sourceStudy(logs) ?? `import-${framework}`;
  const modelIds = [...new Set(logs.map((l) => idOf(mapping.models[l.model] ?? l.model)))];
  const compareModels =
    (mapping.compare ??
      (Object.keys(mapping.facets).length === 0 && modelIds.length > 1 && logs.every((l) => l.comparesModels !== false)
        ? "models"
        : "none")) === "models";
  const facetOrder = compareModels
    ? [SUBJECT_FACET, ...facetNames(logs, mapping).filter((f) => f !== DEFAULT_FACET && f !== SUBJECT_FACET)]
    : facetNames(logs, mapping);
  const seen = new Map<string, string>();
  const trials: PlannedTrial[] = [];
  const completions: TrialCompletion[] = [];
  const scores: ScoreRecord[] = [];
  // A source that knows its study's level order (a Parallax table) gives it: the reference stays first.
  const levels = new Map<string, string[]>(
    facetOrder.map((f) => [f, [...new Set(logs.flatMap((l) => l.facetLevels?.[f] ?? []))]]),
  );
  const summary: PreparedImport["logs"] = [];
  const unscored: string[] = [];
  const runId = `${study}-${hashValue([framework, logs.map((l) => [l.file, l.samples.length]), mapping]).slice(0, 12)}`;
  for (const log of logs) {
    const subject = idOf(mapping.models[log.model] ?? log.model);
    const model = compareModels ? COMPARED_MODELS : subject;
    const benchmark = idOf(mapping.benchmarks[log.benchmark] ?? log.benchmark);
    const logFacets: Record<string, string> = Object.fromEntries(
      Object.entries(mapping.facets).map(([facet, source]) => [facet, facetValue(log, facet, source)]),
    );
    if (compareModels) logFacets[SUBJECT_FACET] = subject;
    const primary = mapping.scorer ?? log.scorers[0] ?? null;
    let logScores = 0;
    for (const sample of log.samples) {
      const condition = Object.fromEntries(
        facetOrder.map((f) => [f, logFacets[f] ?? sample.condition?.[f] ?? (f === DEFAULT_FACET ? framework : "none")]),
      );
      for (const [f, v] of Object.entries(condition)) if (!levels.get(f)!.includes(v)) levels.get(f)!.push(v);
      const hash = conditionHash(condition);
      const id = trialId({
        modelId: model,
        conditionHash: hash,
        benchmarkId: benchmark,
        itemId: sample.item,
        attempt: sample.attempt,
      });
      const where = `${log.file} (${sample.entry})`;
      const earlier = seen.get(id);
      if (earlier) {
        throw new InputError(
          `${where}: the same trial (model ${model}, benchmark ${benchmark}, item ${visibleText(sample.item)}, attempt ${sample.attempt}, condition ${JSON.stringify(condition)}) is also in ${earlier}; give the logs different facet values in the mapping (facets: NAME: logs: {FILE: VALUE}) or import them into separate studies`,
        );
      }
      seen.set(id, where);
      trials.push({
        id,
        runId,
        modelId: model,
        benchmarkId: benchmark,
        itemId: sample.item,
        conditionHash: hash,
        condition,
        attempt: sample.attempt,
      });
      completions.push({
        trialId: id,
        outcome: outcomeFor(sample, primary, mapping),
        calls: callsFor(id, log, sample, createdAt),
      });
      for (const score of sample.scores) {
        const problem = scoreProblem(score.value, score.range, mapping.outcomes);
        if (problem)
          throw new InputError(
            `${where}: sample ${visibleText(JSON.stringify(sample.item))}, field '${score.field ?? `scores.${score.scorer}`}': ${problem}`,
          );
        scores.push({
          trialId: id,
          scorer: score.scorer,
          version: `${log.framework}-import`,
          parsedAnswer: score.answer,
          parseStatus: score.parseStatus ?? parseStatusOf(score.value, outcomeOf(score.value, mapping.outcomes)),
          score: outcomeOf(score.value, mapping.outcomes),
          details: { value: score.value as never, explanation: score.explanation, source: where },
          createdAt,
        });
        logScores++;
      }
    }
    summary.push({
      file: log.file,
      model: subject,
      benchmark,
      trials: log.samples.length,
      scores: logScores,
      ...(log.declaredSamples === undefined ? {} : { declared: log.declaredSamples }),
    });
    const outcomes = completions.slice(completions.length - log.samples.length).filter((c) => c.outcome.score !== null);
    if (log.samples.length > 0 && outcomes.length === 0)
      unscored.push(
        `${basename(log.file)}: not scored: none of its ${log.samples.length} trials has an outcome (${logScores} scores${primary ? `; run-time scorer '${primary}'` : ""})`,
      );
  }
  const spec = specOf(study, framework, logs, mapping, Object.fromEntries(levels), trials, compareModels);
  const manifest = trials.map((t) => `${t.benchmarkId}\u0000${t.itemId}`).sort();
  const run: RunRecord = {
    id: runId,
    study,
    specHash: hashValue(spec),
    manifestHash: hashValue([...new Set(manifest)]),
    spec,
    createdAt,
    parallaxVersion: PARALLAX_VERSION,
    imported: { format: framework, origins: originsOf(logs), ...countsOf(logs) },
  };
  const notes = [...logs.flatMap((l) => l.notes), ...unscored];
  for (const log of logs) {
    if (mapping.scorer && log.samples.length > 0 && !log.scorers.includes(mapping.scorer)) {
      notes.push(
        `${basename(log.file)}: no scorer '${mapping.scorer}' (scorers: ${log.scorers.join(", ") || "none"}); its trials are unscored`,
      );
    }
  }
  return { run, trials, completions, scores, notes, logs: summary };
}

/** Both counts of every log whose results declare another number of samples than it holds. */
function countsOf(logs: readonly ImportedLog[]): Pick<ImportedFrom, "counts"> {
  const counts = logs.flatMap((log) =>
    log.declaredSamples !== undefined && log.declaredSamples !== log.samples.length
      ? [{ log: log.file, benchmark: log.benchmark, declared: log.declaredSamples, present: log.samples.length }]
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

/** The mapping's facets, then those the samples carry themselves; `source` when there are none. */
function facetNames(logs: readonly ImportedLog[], mapping: ImportMapping): string[] {
  const names = Object.keys(mapping.facets);
  for (const log of logs)
    for (const sample of log.samples)
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
  study: string,
  framework: string,
  logs: readonly ImportedLog[],
  mapping: ImportMapping,
  facets: Record<string, string[]>,
  trials: readonly PlannedTrial[],
  compareModels: boolean,
): StudySpec {
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
    benchmarks: [...benchmarks].map(([id, files]) => ({ id, loader: `import:${framework}`, source: files.join(", ") })),
    conditions: { facets: nonEmpty, exclude: [] },
    attempts: trials.reduce((most, t) => Math.max(most, t.attempt), 1),
    execution: {
      concurrency: 1,
      max_trials: Math.max(DEFAULT_MAX_TRIALS, trials.length),
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
