/**
 * The score stage (`parallax score`): scores stored trials without calling the subject model.
 * - rescoreStudy: any registered scorer (or each trial's default) over the stored responses, or
 *   over the stored log-probabilities of log-prob trials; one score row per (trial, scorer,
 *   version), so scorers can be compared on the same responses; per-cell parse failures.
 * - judgeStudy: LLM-as-judge under the blinding protocol (ScaffoldSafety App. Q.2): sanitise,
 *   UUIDs, seal the mapping (SHA-256) before the first judge call, judge by UUID, validation
 *   judge on a subsample, Cohen's kappa per benchmark, the judge-guessing check. Verdicts stay
 *   keyed by UUID (and are hashed) until unblinding.
 * - unblindStudy: the explicit, logged unblinding: verifies the seal and the verdicts' hash, then
 *   links UUIDs to trials and stores the judge scores.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { type Condition, facetLabel, facetName } from "../contracts/condition.js";
import type { Item } from "../contracts/item.js";
import type { TaskInput } from "../contracts/task.js";
import type { ModelSpec, StudySpec } from "../contracts/spec.js";
import type { ParseStatus, ScoreRecord } from "../contracts/trial.js";
import { InputError } from "../core/errors.js";
import { hashValue } from "../core/hash.js";
import { datasetLoaders } from "../datasets/registry.js";
import { renderTrialTask } from "../facets/render.js";
import type { ProviderEnv } from "../models/types.js";
import { type BlindingEntry, newUuid, openSealedMapping, sealMapping, sha256Hex } from "../scoring/blinding/seal.js";
import { type Guess, type GuessingCheck, guessingCheck } from "../scoring/blinding/guessing.js";
import { sanitiseResponse } from "../scoring/blinding/sanitise.js";
import {
  type AgreementRow,
  type AgreementSkip,
  agreementByBenchmark,
  type Rating,
} from "../scoring/judge/agreement.js";
import { guessMessages, judgeMessages } from "../scoring/judge/prompt.js";
import { type Rubric, rubricFor } from "../scoring/judge/rubrics.js";
import { parseGuess, parseVerdict } from "../scoring/judge/verdict.js";
import { ContinuationMismatchError, decodeRaw } from "../scoring/logprob-common.js";
import { classifyCompliance, complianceOutcome } from "../scoring/refusal-pattern.js";
import { defaultScorerName, scorers } from "../scoring/registry.js";
import { type AnyScorer, isLogprobScorer, type LogprobOptions, type ScoreResult } from "../scoring/types.js";
import { conditionLabel } from "./conditions.js";
import { assignJudges, buildJudge, type JudgeRuntime } from "./judge.js";
import { openStore } from "./store/open.js";
import type { RunRecord, TrialRow, TrialStore } from "./store/types.js";
import { type PreparedStudy, prepareStudy } from "./study.js";
import { eachTrial } from "./store/pages.js";

/** Version of the judge scoring protocol (rubrics, prompt, verdict schema). */
export const JUDGE_VERSION = "1.0.0";

export const BLINDING_FILES = {
  mapping: "blinding-mapping.json",
  seal: "blinding-seal.json",
  summary: "blinding.json",
  log: "blinding-log.jsonl",
  verdicts: "judge-verdicts.jsonl",
  calls: "judge-calls.jsonl",
  agreement: "judge-agreement.json",
} as const;

const PAGE = 500;

// ---------------------------------------------------------------------------------------------
// Choosing scorers

export function scoringPathOf(condition: Condition): string {
  return condition.scoring_path === undefined ? "free_form" : facetName(condition.scoring_path);
}

function loaderOf(spec: StudySpec, benchmarkId: string): string {
  return spec.benchmarks.find((b) => b.id === benchmarkId)?.loader ?? "inline";
}

/** The run-time scorer of each trial, from the spec's scoring section and the benchmark's loader. */
export function scorerChooser(
  spec: StudySpec,
): (trial: Pick<TrialRow, "benchmarkId" | "condition">, item: Item, task: TaskInput) => AnyScorer {
  const scoring = spec.scoring;
  return (trial, item, task) => {
    const loader = loaderOf(spec, trial.benchmarkId);
    const name = defaultScorerName({
      loader,
      benchmarkScoring: datasetLoaders.has(loader) ? datasetLoaders.get(loader).meta.scoring : "mc",
      format: task.format,
      scoringPath: scoringPathOf(trial.condition),
      override: scoring?.per_benchmark?.[trial.benchmarkId] ?? scoring?.default,
      pairItem: typeof item.metadata.sent_more_index === "number" && item.goldIndex === undefined,
    });
    return scorers.get(name);
  };
}

export function logprobOptionsOf(spec: StudySpec): LogprobOptions {
  return {
    basis: spec.scoring?.logprob_basis ?? "text",
    lengthNormalise: spec.scoring?.length_normalise ?? false,
  };
}

// ---------------------------------------------------------------------------------------------
// Opening a study directory for scoring

export interface ScoringContext {
  dir: string;
  store: TrialStore;
  run: RunRecord;
  study: PreparedStudy;
}

/**
 * Opens the store and re-loads the study's items from its spec (DIR/spec.json unless another is
 * given); the item manifest must hash as it did at run time, so scores use the same items.
 */
export async function openScoringContext(dir: string, specPath?: string): Promise<ScoringContext> {
  const path = specPath ?? join(dir, "spec.json");
  if (!existsSync(path)) throw new InputError(`${path} does not exist; pass --spec with the study's spec`);
  const store = await openStore(dir);
  try {
    const run = await store.getRun();
    if (!run) throw new InputError(`${dir} holds no run yet`);
    const study = await prepareStudy(path);
    if (study.manifestHash !== run.manifestHash) {
      throw new InputError(
        `the items loaded from ${path} differ from those of run '${run.id}' (manifest hash); pass --spec with the spec the run used`,
      );
    }
    return { dir, store, run, study };
  } catch (error) {
    await store.close();
    throw error;
  }
}

function finishedTrials(store: TrialStore, runId: string): AsyncGenerator<TrialRow> {
  return eachTrial(store, runId, { status: ["finished"], pageSize: PAGE });
}

// ---------------------------------------------------------------------------------------------
// Re-scoring

export interface CellParseSummary {
  model: string;
  condition: string;
  benchmark: string;
  scorer: string;
  n: number;
  parseFailures: number;
  parseFailureRate: number;
}

class CellTally {
  private readonly cells = new Map<string, CellParseSummary>();

  add(trial: TrialRow, scorer: string, status: ParseStatus): void {
    const condition = conditionLabel(trial.condition);
    const key = JSON.stringify([trial.modelId, condition, trial.benchmarkId, scorer]);
    const cell = this.cells.get(key) ?? {
      model: trial.modelId,
      condition,
      benchmark: trial.benchmarkId,
      scorer,
      n: 0,
      parseFailures: 0,
      parseFailureRate: 0,
    };
    cell.n++;
    if (status === "failed") cell.parseFailures++;
    cell.parseFailureRate = cell.parseFailures / cell.n;
    this.cells.set(key, cell);
  }

  rows(): CellParseSummary[] {
    return [...this.cells.values()].sort(
      (a, b) =>
        a.model.localeCompare(b.model) ||
        a.benchmark.localeCompare(b.benchmark) ||
        a.condition.localeCompare(b.condition),
    );
  }
}

export interface RescoreResult {
  runId: string;
  scored: number;
  /** Trials the scorer does not apply to (a log-prob scorer on a trial without stored log-probabilities). */
  notApplicable: number;
  cells: CellParseSummary[];
}

/** Scores every finished trial with `scorerName` (default: each trial's run-time default) and stores the scores. */
export async function rescoreStudy(context: ScoringContext, scorerName?: string): Promise<RescoreResult> {
  const { store, run, study } = context;
  const choose = scorerChooser(study.spec);
  const named = scorerName === undefined ? undefined : scorers.get(scorerName);
  const options = logprobOptionsOf(study.spec);
  const tally = new CellTally();
  let scored = 0;
  let notApplicable = 0;
  let batch: ScoreRecord[] = [];
  for await (const trial of finishedTrials(store, run.id)) {
    const item = study.items.get(trial.benchmarkId)?.get(trial.itemId);
    if (!item) continue;
    const task = renderTrialTask(item, trial.condition);
    const scorer = named ?? choose(trial, item, task);
    const result = await scoreStoredTrial(store, run.id, trial, item, task, scorer, options);
    if (!result) {
      notApplicable++;
      continue;
    }
    batch.push(toRecord(trial.id, scorer.name, scorer.version, result));
    tally.add(trial, scorer.name, result.parseStatus);
    scored++;
    if (batch.length >= PAGE) {
      await store.saveScores(batch);
      batch = [];
    }
  }
  await store.saveScores(batch);
  return { runId: run.id, scored, notApplicable, cells: tally.rows() };
}

/** One trial's score from what is stored: its final text, or its recorded log-probabilities. */
async function scoreStoredTrial(
  store: TrialStore,
  runId: string,
  trial: TrialRow,
  item: Item,
  task: TaskInput,
  scorer: AnyScorer,
  options: LogprobOptions,
): Promise<ScoreResult | undefined> {
  if (!isLogprobScorer(scorer)) return scorer.score(item, task, trial.outcome?.finalAnswer ?? "");
  const calls = await store.listCalls(runId, trial.id);
  const stored = calls.filter((c) => c.role === "logprob" && c.error === null && c.note?.logprob).at(-1);
  if (!stored) return undefined;
  try {
    return scorer.score(item, task, decodeRaw(stored.note!.logprob), options);
  } catch (error) {
    // Log-probabilities stored for another scorer's continuations: this scorer does not apply.
    if (error instanceof ContinuationMismatchError) return undefined;
    throw error;
  }
}

function toRecord(trialId: string, scorer: string, version: string, result: ScoreResult): ScoreRecord {
  return {
    trialId,
    scorer,
    version,
    parsedAnswer: result.parsedAnswer,
    parseStatus: result.parseStatus,
    score: result.score,
    details: result.details ?? null,
    createdAt: new Date().toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Judging under blinding

interface Judgeable {
  entry: BlindingEntry;
  item: Item;
  rubric: Rubric;
  prompt: string;
  /** The response as the subject gave it (the pattern classifier reads this). */
  raw: string;
  /** The sanitised response (all a judge sees of it). */
  response: string;
}

export interface VerdictRecord {
  uuid: string;
  benchmark: string;
  rubric: string;
  judge: string;
  role: "primary" | "validation";
  ok: boolean;
  label: string | null;
  confidence: number | null;
  justification: string | null;
  outcome: number | null;
  error: string | null;
}

export interface BlindingSummary {
  blinded: true;
  sealed_sha256: string;
  sealed_at: string;
  judge: string;
  guessing_check: GuessingCheck | null;
  unblinded_at: string | null;
  verdicts_sha256: string;
  responses: number;
}

export interface JudgeStudyOptions {
  env: ProviderEnv;
  /** Builds a judge from its spec (tests inject fakes); default: the provider registry. */
  judgeFor?: (spec: ModelSpec) => JudgeRuntime;
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface JudgeStudyResult {
  responses: number;
  verdicts: number;
  judgeParseFailures: number;
  agreement: { per_benchmark: AgreementRow[]; skipped: AgreementSkip[] };
  blinding: BlindingSummary;
  cells: CellParseSummary[];
}

/** Which trials a judge scores: open-ended, free-form responses (MC and log-prob trials are scored deterministically). */
function judgedTrial(trial: TrialRow, spec: StudySpec, task: TaskInput): boolean {
  return (
    task.format !== "mc" &&
    scoringPathOf(trial.condition) === "free_form" &&
    loaderOf(spec, trial.benchmarkId) !== "gaia"
  );
}

/** Strings that would identify the model or configuration: removed from responses before judging. */
export function redactionList(spec: StudySpec, conditions: readonly Condition[]): string[] {
  const terms = spec.models.flatMap((m) => [m.id, m.model, basename(m.model), m.provider]);
  for (const condition of conditions) {
    for (const value of Object.values(condition)) terms.push(facetLabel(value), facetName(value));
    terms.push(hashValue(condition).slice(0, 12));
  }
  return [...terms, ...(spec.scoring?.blinding.redact ?? [])];
}

export async function judgeStudy(context: ScoringContext, options: JudgeStudyOptions): Promise<JudgeStudyResult> {
  const { study, dir } = context;
  const spec = study.spec;
  const assignments = assignJudges(spec);
  if (assignments.size === 0) throw new InputError("no judges: add scoring.judges to the spec");
  const judgeables = await collectJudgeables(context);
  if (judgeables.length === 0) throw new InputError("no finished open-ended trials to judge");

  // Steps 1-2: sanitised responses by UUID; the mapping is sealed before any judge call.
  const sealed = sealMapping(judgeables.map((j) => j.entry));
  const sealedAt = new Date().toISOString();
  writeFileSync(join(dir, BLINDING_FILES.mapping), sealed.text);
  writeFileSync(
    join(dir, BLINDING_FILES.seal),
    `${JSON.stringify({ sha256: sealed.sha256, sealed_at: sealedAt, entries: judgeables.length }, null, 2)}\n`,
  );
  appendLog(dir, { event: "sealed", at: sealedAt, sha256: sealed.sha256, entries: judgeables.length });

  const runtimes = new Map<string, JudgeRuntime>();
  const runtime = (s: ModelSpec): JudgeRuntime => runtimes.get(s.id)!;
  try {
    // Step 3: blinded assessment, plus the validation judge on a stratified subsample.
    const fraction = spec.scoring?.validation?.fraction ?? 0.1;
    const validated = new Set(
      stratifiedSample(judgeables, (j) => j.entry.benchmark, fraction, spec.scoring?.seed ?? 0),
    );
    const tasks = judgeables.flatMap((j) => {
      const assignment = assignments.get(j.entry.model)!;
      const out: { judgeable: Judgeable; judge: ModelSpec; role: VerdictRecord["role"] }[] = [
        { judgeable: j, judge: assignment.primary, role: "primary" },
      ];
      if (assignment.validation && validated.has(j))
        out.push({ judgeable: j, judge: assignment.validation, role: "validation" });
      return out;
    });
    // The judges the tasks use are built first: building one imports its provider's SDK.
    for (const { judge } of tasks) {
      if (runtimes.has(judge.id)) continue;
      runtimes.set(judge.id, options.judgeFor ? options.judgeFor(judge) : await buildJudge(judge, spec, options.env));
    }
    writeFileSync(join(dir, BLINDING_FILES.calls), "");
    let done = 0;
    const verdicts = await mapPool(tasks, options.concurrency ?? spec.execution.concurrency, async (t) => {
      const verdict = await judgeOne(dir, runtime(t.judge), t.judgeable, t.role);
      options.onProgress?.(++done, tasks.length);
      return verdict;
    });
    const verdictText = verdicts.map((v) => JSON.stringify(v)).join("\n") + (verdicts.length > 0 ? "\n" : "");
    writeFileSync(join(dir, BLINDING_FILES.verdicts), verdictText);
    const verdictsSha = sha256Hex(verdictText);
    appendLog(dir, { event: "judged", at: new Date().toISOString(), verdicts: verdicts.length, sha256: verdictsSha });

    const agreement = agreementOf(judgeables, verdicts);
    writeFileSync(join(dir, BLINDING_FILES.agreement), `${JSON.stringify(agreement, null, 2)}\n`);

    // Step 4: the guessing check, after verdicts are locked; reads the mapping through its seal.
    const mapping = openSealedMapping(readFileSync(join(dir, BLINDING_FILES.mapping), "utf8"), sealed.sha256);
    const guessing = await guessingRound(dir, judgeables, mapping, assignments, runtime, spec);
    const primaries = [...new Set([...assignments.values()].map((a) => a.primary.id))].sort();
    const blinding: BlindingSummary = {
      blinded: true,
      sealed_sha256: sealed.sha256,
      sealed_at: sealedAt,
      judge: primaries.join(","),
      guessing_check: guessing,
      unblinded_at: null,
      verdicts_sha256: verdictsSha,
      responses: judgeables.length,
    };
    writeFileSync(join(dir, BLINDING_FILES.summary), `${JSON.stringify(blinding, null, 2)}\n`);
    return {
      responses: judgeables.length,
      verdicts: verdicts.length,
      judgeParseFailures: verdicts.filter((v) => !v.ok).length,
      agreement,
      blinding,
      cells: judgeCells(judgeables, verdicts),
    };
  } finally {
    await Promise.all([...runtimes.values()].map((r) => r.close()));
  }
}

async function collectJudgeables(context: ScoringContext): Promise<Judgeable[]> {
  const { store, run, study } = context;
  const redact = redactionList(study.spec, study.conditions);
  const out: Judgeable[] = [];
  for await (const trial of finishedTrials(store, run.id)) {
    const item = study.items.get(trial.benchmarkId)?.get(trial.itemId);
    if (!item) continue;
    const task = renderTrialTask(item, trial.condition);
    if (!judgedTrial(trial, study.spec, task)) continue;
    const rubric = rubricFor(loaderOf(study.spec, trial.benchmarkId));
    // Reference-answer grading needs a reference; without one the item cannot be judged.
    if (rubric.id === "factual_oe" && rubric.reference(item) === "") continue;
    const raw = trial.outcome?.finalAnswer ?? "";
    out.push({
      entry: {
        uuid: newUuid(),
        trialId: trial.id,
        model: trial.modelId,
        benchmark: trial.benchmarkId,
        itemId: trial.itemId,
        conditionHash: trial.conditionHash,
        configuration: conditionLabel(trial.condition),
      },
      item,
      rubric,
      prompt: task.question,
      raw,
      response: sanitiseResponse(raw, redact),
    });
  }
  return out;
}

async function judgeOne(
  dir: string,
  judge: JudgeRuntime,
  j: Judgeable,
  role: VerdictRecord["role"],
): Promise<VerdictRecord> {
  const messages = judgeMessages(j.rubric, {
    prompt: j.prompt,
    response: j.response,
    reference: j.rubric.reference(j.item),
  });
  const base = { uuid: j.entry.uuid, benchmark: j.entry.benchmark, rubric: j.rubric.id, judge: judge.id, role };
  const started = Date.now();
  try {
    const reply = await judge.call(messages);
    logCall(dir, {
      ...base,
      purpose: "verdict",
      messages,
      response: reply.text,
      usage: reply.usage,
      cost_usd: judge.cost(reply.usage),
      latency_ms: Date.now() - started,
      error: null,
    });
    const parsed = parseVerdict(reply.text, j.rubric);
    if (!parsed.ok)
      return {
        ...base,
        ok: false,
        label: null,
        confidence: null,
        justification: null,
        outcome: null,
        error: parsed.error,
      };
    const { label, confidence, justification } = parsed.verdict;
    return {
      ...base,
      ok: true,
      label,
      confidence,
      justification,
      outcome: j.rubric.outcome(label, j.item),
      error: null,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logCall(dir, {
      ...base,
      purpose: "verdict",
      messages,
      response: null,
      usage: null,
      cost_usd: 0,
      latency_ms: Date.now() - started,
      error: message,
    });
    return {
      ...base,
      ok: false,
      label: null,
      confidence: null,
      justification: null,
      outcome: null,
      error: `judge call failed: ${message}`,
    };
  }
}

/** Kappa per benchmark: primary vs validation judge, and the refusal patterns vs the primary judge. */
function agreementOf(judgeables: Judgeable[], verdicts: VerdictRecord[]): JudgeStudyResult["agreement"] {
  const rows: AgreementRow[] = [];
  const skipped: AgreementSkip[] = [];
  const rating = (v: VerdictRecord): Rating | undefined =>
    v.ok && v.outcome !== null ? { benchmark: v.benchmark, key: v.uuid, outcome: v.outcome } : undefined;
  const primaries = verdicts.filter((v) => v.role === "primary");
  const validations = verdicts.filter((v) => v.role === "validation");
  const primaryOf = new Map(primaries.map((v) => [v.uuid, v]));
  const pairs = new Map<string, { names: [string, string]; a: Rating[]; b: Rating[] }>();
  for (const v of validations) {
    const p = primaryOf.get(v.uuid);
    const [ra, rb] = [p && rating(p), rating(v)];
    if (!p || !ra || !rb) continue;
    const key = `${p.judge}\u0000${v.judge}`;
    const pair = pairs.get(key) ?? { names: [p.judge, v.judge] as [string, string], a: [], b: [] };
    pair.a.push(ra);
    pair.b.push(rb);
    pairs.set(key, pair);
  }
  // The pattern classifier on every compliance-rubric response the primary judge rated.
  const patternPairs = new Map<string, { names: [string, string]; a: Rating[]; b: Rating[] }>();
  for (const j of judgeables) {
    if (j.rubric.id !== "compliance") continue;
    const p = primaryOf.get(j.entry.uuid);
    const rp = p && rating(p);
    const outcome = complianceOutcome(classifyCompliance(j.raw), j.item.metadata.expected_behavior);
    if (!p || !rp || outcome === null) continue;
    const pair = patternPairs.get(p.judge) ?? { names: ["refusal_pattern", p.judge] as [string, string], a: [], b: [] };
    pair.a.push({ benchmark: j.entry.benchmark, key: j.entry.uuid, outcome });
    pair.b.push(rp);
    patternPairs.set(p.judge, pair);
  }
  for (const pair of [...pairs.values(), ...patternPairs.values()]) {
    const result = agreementByBenchmark(pair.names, pair.a, pair.b);
    rows.push(...result.rows);
    skipped.push(...result.skipped);
  }
  return { per_benchmark: rows, skipped };
}

/** Step 4 of App. Q.2: a stratified subsample's judges guess the configuration. */
async function guessingRound(
  dir: string,
  judgeables: Judgeable[],
  mapping: BlindingEntry[],
  assignments: Map<string, { primary: ModelSpec }>,
  runtime: (spec: ModelSpec) => JudgeRuntime,
  spec: StudySpec,
): Promise<GuessingCheck | null> {
  const fraction = spec.scoring?.blinding.guess_fraction ?? 0.1;
  const truth = new Map(mapping.map((e) => [e.uuid, e.configuration]));
  const configurations = [...new Set(mapping.map((e) => e.configuration))].sort();
  if (configurations.length < 2 || fraction === 0) return null;
  const sample = stratifiedSample(
    judgeables,
    (j) => truth.get(j.entry.uuid) ?? "",
    fraction,
    (spec.scoring?.seed ?? 0) + 1,
  );
  const guesses: Guess[] = [];
  for (const j of sample) {
    const judge = runtime(assignments.get(j.entry.model)!.primary);
    const messages = guessMessages({ prompt: j.prompt, response: j.response }, configurations);
    let guess: string | null = null;
    try {
      const reply = await judge.call(messages);
      logCall(dir, {
        uuid: j.entry.uuid,
        judge: judge.id,
        purpose: "guess",
        messages,
        response: reply.text,
        usage: reply.usage,
        cost_usd: judge.cost(reply.usage),
        error: null,
      });
      guess = parseGuess(reply.text, configurations);
    } catch (error) {
      logCall(dir, {
        uuid: j.entry.uuid,
        judge: judge.id,
        purpose: "guess",
        messages,
        response: null,
        error: String(error),
      });
    }
    guesses.push({ truth: truth.get(j.entry.uuid)!, guess });
  }
  return guessingCheck(guesses, configurations);
}

function judgeCells(judgeables: Judgeable[], verdicts: VerdictRecord[]): CellParseSummary[] {
  const byUuid = new Map(judgeables.map((j) => [j.entry.uuid, j.entry]));
  const cells = new Map<string, CellParseSummary>();
  for (const v of verdicts) {
    const e = byUuid.get(v.uuid)!;
    const key = JSON.stringify([e.model, e.configuration, e.benchmark, v.judge]);
    const cell = cells.get(key) ?? {
      model: e.model,
      condition: e.configuration,
      benchmark: e.benchmark,
      scorer: `judge:${v.judge}`,
      n: 0,
      parseFailures: 0,
      parseFailureRate: 0,
    };
    cell.n++;
    if (!v.ok) cell.parseFailures++;
    cell.parseFailureRate = cell.parseFailures / cell.n;
    cells.set(key, cell);
  }
  return [...cells.values()];
}

// ---------------------------------------------------------------------------------------------
// Unblinding

export interface UnblindResult {
  scores: number;
  unblindedAt: string;
}

function readJson<T>(path: string, what: string): T {
  if (!existsSync(path)) throw new InputError(`${path} not found: ${what}`);
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/**
 * The explicit unblinding step: verifies the mapping against its seal and the verdicts against
 * their recorded hash (any edit is detected and refused), links UUIDs to trials, stores one score
 * per verdict (scorer "judge:<id>"), and logs the step.
 */
export async function unblindStudy(context: ScoringContext): Promise<UnblindResult> {
  const { dir, store } = context;
  const summaryPath = join(dir, BLINDING_FILES.summary);
  const summary = readJson<BlindingSummary>(summaryPath, "run 'parallax score DIR --scorer judge' first");
  if (summary.unblinded_at) throw new InputError(`already unblinded at ${summary.unblinded_at}`);
  const seal = readJson<{ sha256: string }>(join(dir, BLINDING_FILES.seal), "the blinding seal is missing");
  if (seal.sha256 !== summary.sealed_sha256) {
    throw new InputError("blinding-seal.json and blinding.json disagree on the sealed hash: the seal was modified");
  }
  let mapping: BlindingEntry[];
  try {
    mapping = openSealedMapping(readFileSync(join(dir, BLINDING_FILES.mapping), "utf8"), summary.sealed_sha256);
  } catch (error) {
    appendLog(dir, { event: "unblind_refused", at: new Date().toISOString(), reason: (error as Error).message });
    throw new InputError((error as Error).message);
  }
  const verdictText = readFileSync(join(dir, BLINDING_FILES.verdicts), "utf8");
  if (sha256Hex(verdictText) !== summary.verdicts_sha256) {
    appendLog(dir, { event: "unblind_refused", at: new Date().toISOString(), reason: "verdicts modified" });
    throw new InputError(
      "judge-verdicts.jsonl does not match its recorded hash: the verdicts were modified after judging",
    );
  }
  const trialOf = new Map(mapping.map((e) => [e.uuid, e.trialId]));
  const createdAt = new Date().toISOString();
  const records: ScoreRecord[] = verdictText
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as VerdictRecord)
    .map((v) => ({
      trialId: trialOf.get(v.uuid)!,
      scorer: `judge:${v.judge}`,
      version: JUDGE_VERSION,
      parsedAnswer: v.label,
      // A judge's malformed verdict is the judge's parse failure: recorded, with no score.
      parseStatus: v.ok ? "ok" : "failed",
      score: v.ok ? v.outcome : null,
      details: {
        uuid: v.uuid,
        rubric: v.rubric,
        role: v.role,
        confidence: v.confidence,
        justification: v.justification,
        judge_error: v.error,
      },
      createdAt,
    }));
  await store.saveScores(records);
  const updated: BlindingSummary = { ...summary, unblinded_at: createdAt };
  writeFileSync(summaryPath, `${JSON.stringify(updated, null, 2)}\n`);
  appendLog(dir, {
    event: "unblinded",
    at: createdAt,
    sealed_sha256: summary.sealed_sha256,
    verdicts_sha256: summary.verdicts_sha256,
    scores: records.length,
  });
  return { scores: records.length, unblindedAt: createdAt };
}

// ---------------------------------------------------------------------------------------------
// Helpers

function appendLog(dir: string, event: Record<string, unknown>): void {
  appendFileSync(join(dir, BLINDING_FILES.log), `${JSON.stringify(event)}\n`);
}

function logCall(dir: string, record: Record<string, unknown>): void {
  appendFileSync(join(dir, BLINDING_FILES.calls), `${JSON.stringify(record)}\n`);
}

/**
 * A seeded stratified subsample: ceil(fraction * size) of each stratum (at least one), chosen by
 * a hash of the seed and the trial id, so the same study and seed give the same subsample.
 */
export function stratifiedSample<T extends { entry: BlindingEntry }>(
  rows: readonly T[],
  stratum: (row: T) => string,
  fraction: number,
  seed: number,
): T[] {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(stratum(row), [...(groups.get(stratum(row)) ?? []), row]);
  const out: T[] = [];
  for (const group of groups.values()) {
    const ordered = [...group].sort((a, b) =>
      hashValue([seed, a.entry.trialId]).localeCompare(hashValue([seed, b.entry.trialId])),
    );
    out.push(...ordered.slice(0, Math.max(1, Math.ceil(fraction * group.length))));
  }
  return out;
}

async function mapPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return out;
}
