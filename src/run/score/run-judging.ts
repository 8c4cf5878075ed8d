/**
 * Judging inside `parallax run` (ScaffoldSafety 3.5-3.6, App. Q.2). When the spec has judges,
 * every open-ended free-form trial of a benchmark with a judge rubric (unless the spec names its
 * scorer explicitly) is scored by its judge, and the judge calls are the trial's own sub-calls:
 * recorded in the calls table with the subject's calls, cached like them, charged to `budget`,
 * committed in the trial's transaction (a kill loses only trials in flight; on resume their
 * paid calls come from the cache), exported with the calls and shown on the report's trial page.
 *
 * Blinding, as the paper specifies it:
 * 1. the judge sees only the rubric, item-level reference facts, the prompt and the sanitised
 *    response (sanitiseResponse with the study's redaction list);
 * 2. before the first trial runs, every judged trial gets a UUID v4, and the mapping (UUID ->
 *    trial, model, benchmark, item, condition) is sealed in the store (its SHA-256) and written
 *    to the blinding files; a resumed run reuses the sealed round;
 * 3. a validation judge rates a subsample stratified by benchmark (scoring.validation.fraction);
 * 4. on a subsample stratified by configuration (scoring.blinding.guess_fraction) the primary
 *    judge guesses the configuration;
 * 5. when every judged trial is finished, the verdicts (from the calls' notes, keyed by UUID) are
 *    stored and hashed, kappa per benchmark and the guessing check computed, and the round is
 *    unblinded and logged. The run-time outcome of a judged trial is its primary judge's verdict
 *    (scorer `judge:<id>@<version>`).
 */
import type { ModelSpec, StudySpec } from "../../contracts/spec.js";
import type { CallRecord, PlannedTrial } from "../../contracts/trial.js";
import { InputError } from "../../core/errors.js";
import { datasetLoaders } from "../../datasets/registry.js";
import { sampleStrata } from "../../datasets/sample.js";
import { blindingSensitivity, type GuessedCase, guessingCheck } from "../../scoring/blinding/guessing.js";
import { sanitiseResponse } from "../../scoring/blinding/sanitise.js";
import { type BlindingEntry, newUuid, openSealedMapping, sealMapping } from "../../scoring/blinding/seal.js";
import { guessMessages, judgeMessages } from "../../scoring/judge/prompt.js";
import { type Rubric, rubricFor } from "../../scoring/judge/rubrics.js";
import { parseGuess, parseVerdict } from "../../scoring/judge/verdict.js";
import type { ScoreResult } from "../../scoring/types.js";
import { recordingCall } from "../execute/recording-call.js";
import type { ModelRuntime, TrialAttempt, TrialJudging } from "../execute/types.js";
import { assignJudges } from "./judges.js";
import { trialPages } from "../store/pages.js";
import type { CallFacts, TrialStore, VerdictRecord } from "../store/types.js";
import type { PreparedStudy } from "../prepare/study.js";
import { loaderOf } from "./choose.js";
import { judgedAtRunTime } from "./judged-trials.js";

export { judgedAtRunTime };
import { agreementOf } from "./judge-agreement.js";
import type { Judgeable } from "./judgeables.js";
import { blindedTrial, redactionList } from "./judgeables.js";
import { BLINDING_FILES, blindingSummaryOf, JudgementLog, verdictsSha256, verdictsText } from "./judgements.js";

/** Version of the judge scoring protocol (rubrics, prompt, verdict schema); also judge-study.ts. */
export const RUN_JUDGE_VERSION = "1.0.0";

/** Call roles of judge sub-calls. */
export const JUDGE_ROLES = { primary: "judge", validation: "judge_validation", guess: "judge_guess" } as const;

/** What a judge call's note holds (CallRecord.note.judge). */
export interface JudgeCallNote {
  uuid: string;
  judge: string;
  purpose: "verdict" | "guess";
  role?: VerdictRecord["role"];
  rubric?: string;
  ok?: boolean;
  label?: string | null;
  confidence?: number | null;
  justification?: string | null;
  outcome?: number | null;
  error?: string | null;
  guess?: string | null;
}

/** What judging a trial needs (the rest of its blinding entry is read back from the sealed round by finish). */
interface TrialPlan {
  uuid: string;
  rubric: Rubric;
  primary: ModelSpec;
  validation: ModelSpec | undefined;
  guess: boolean;
}

export class RunJudging implements TrialJudging {
  private readonly plans: Map<string, TrialPlan>;
  private readonly judges: Map<string, ModelRuntime>;
  private readonly configurations: string[];
  private readonly redact: string[];
  /** The sealed mapping's SHA-256 (the mapping itself stays in the store until finish reads it). */
  private readonly sealedSha256: string;

  private constructor(round: {
    plans: Map<string, TrialPlan>;
    judges: Map<string, ModelRuntime>;
    configurations: string[];
    redact: string[];
    sealedSha256: string;
  }) {
    this.plans = round.plans;
    this.judges = round.judges;
    this.configurations = round.configurations;
    this.redact = round.redact;
    this.sealedSha256 = round.sealedSha256;
  }

  /**
   * The run's judged trials, their UUIDs (sealed before any trial runs, or the sealed round of an
   * earlier invocation of this run) and subsamples; undefined when nothing is judged. `dir` is
   * the study directory; without it (a worker joining by URL) the round the run sealed is used,
   * and none is sealed. `plan` gives the run's planned trials when they are not all stored yet
   * (the round is sealed over the whole plan, so the first trial need not wait for it to be
   * stored); without it the judged trials are read from the store.
   */
  static async open(
    study: PreparedStudy,
    run: { store: TrialStore; runId: string; dir: string | undefined; plan?: Iterable<PlannedTrial> },
    judges: Map<string, ModelRuntime>,
  ): Promise<RunJudging | undefined> {
    const { store, runId, dir } = run;
    const spec = study.spec;
    if ((spec.scoring?.judges ?? []).length === 0) return undefined;
    const assignments = assignJudges(spec);
    const judged = run.plan ? judgedOfPlan(study, run.plan) : await judgedOfStore(study, store, runId);
    if (judged.length === 0) return undefined;
    const existing = await store.getBlindingRound(runId);
    let entries: BlindingEntry[] | undefined;
    let sealedSha256: string | undefined;
    if (existing) {
      const opened = openSealedMapping(existing.mapping, existing.sealedSha256);
      const ids = new Set(opened.map((e) => e.trialId));
      if (opened.length === judged.length && judged.every((t) => ids.has(t.trialId))) {
        entries = opened;
        sealedSha256 = existing.sealedSha256;
      }
    }
    // Every judged trial finished and the store holds another round (a later `score --scorer
    // judge` re-judging): nothing is left to judge, and that round stands.
    if (existing && !entries && (await allFinished(store, runId, judged))) return undefined;
    if ((!entries || !sealedSha256) && dir === undefined) {
      throw new InputError(
        `run '${runId}' judges ${judged.length} trial(s) at run time, but the store holds no sealed round for ` +
          `them${existing ? ` (its round maps ${openSealedMapping(existing.mapping, existing.sealedSha256).length})` : ""}: ` +
          "`parallax run SPEC --store URL` seals it before any trial runs; start the worker once the run has started",
      );
    }
    if (!entries || !sealedSha256) {
      const log = new JudgementLog(store, runId, dir!);
      entries = judged.map((trial) => ({ uuid: newUuid(), ...trial }));
      const mapping = sealMapping(entries);
      const sealedAt = new Date().toISOString();
      await store.sealBlindingRound(runId, {
        mapping: mapping.text,
        sealedSha256: mapping.sha256,
        sealedAt,
        entries: entries.length,
      });
      log.file(BLINDING_FILES.mapping, mapping.text);
      log.file(BLINDING_FILES.seal, { sha256: mapping.sha256, sealed_at: sealedAt, entries: entries.length });
      await log.event({ event: "sealed", at: sealedAt, sha256: mapping.sha256, entries: entries.length, stage: "run" });
      sealedSha256 = mapping.sha256;
    }
    const seed = spec.scoring?.seed ?? 0;
    const fraction = spec.scoring?.validation?.fraction ?? 0.1;
    const guessFraction = spec.scoring?.blinding.guess_fraction ?? 0.1;
    const configurations = [...new Set(entries.map((e) => e.configuration))].sort();
    const subsample = (stratum: (e: BlindingEntry) => string, share: number, s: number) =>
      new Set(
        sampleStrata(entries, {
          id: (e) => e.trialId,
          stratum,
          count: (size) => Math.max(1, Math.ceil(share * size)),
          seed: s,
        }).map((e) => e.trialId),
      );
    const validated = subsample((e) => e.benchmark, fraction, seed);
    const guessed =
      configurations.length >= 2 && guessFraction > 0
        ? subsample((e) => e.configuration, guessFraction, seed + 1)
        : new Set<string>();
    const plans = new Map<string, TrialPlan>();
    for (const entry of entries) {
      const assignment = assignments.get(entry.model)!;
      const loader = datasetLoaders.get(loaderOf(spec, entry.benchmark));
      plans.set(entry.trialId, {
        uuid: entry.uuid,
        rubric: rubricFor(loader.meta.judgeRubric!, spec.scoring?.rubrics),
        primary: assignment.primary,
        validation: validated.has(entry.trialId) ? assignment.validation : undefined,
        guess: guessed.has(entry.trialId),
      });
    }
    for (const plan of plans.values()) {
      for (const judge of [plan.primary, plan.validation]) {
        if (judge && !judges.has(judge.id)) throw new InputError(`judge '${judge.id}' was not built for the run`);
      }
    }
    const redact = redactionList(spec, study.conditions);
    return new RunJudging({ plans, judges, configurations, redact, sealedSha256 });
  }

  /** The judge models the spec names (built by the caller before the run starts). */
  static judgeSpecsOf(spec: StudySpec): ModelSpec[] {
    if ((spec.scoring?.judges ?? []).length === 0) return [];
    const out = new Map<string, ModelSpec>();
    for (const a of assignJudges(spec).values()) {
      out.set(a.primary.id, a.primary);
      if (a.validation) out.set(a.validation.id, a.validation);
    }
    return [...out.values()];
  }

  get size(): number {
    return this.plans.size;
  }

  applies(trialId: string): boolean {
    return this.plans.has(trialId);
  }

  async judge(attempt: TrialAttempt, finalText: string): Promise<{ scored: ScoreResult; scorer: string }> {
    const plan = this.plans.get(attempt.trial.id)!;
    const { item, task } = attempt;
    const response = sanitiseResponse(finalText, this.redact);
    const messages = judgeMessages(plan.rubric, {
      prompt: task.question,
      response,
      reference: plan.rubric.reference(item),
    });
    const primary = await this.verdict(attempt, plan, { judge: plan.primary, role: "primary" }, messages);
    if (plan.validation) await this.verdict(attempt, plan, { judge: plan.validation, role: "validation" }, messages);
    if (plan.guess) {
      const guessing = guessMessages({ prompt: task.question, response }, this.configurations);
      const reply = await this.call(attempt, plan.primary, JUDGE_ROLES.guess, guessing);
      note(attempt.calls, {
        uuid: plan.uuid,
        judge: plan.primary.id,
        purpose: "guess",
        guess: parseGuess(reply, this.configurations),
      });
    }
    return {
      scored: {
        parsedAnswer: primary.label ?? null,
        // A malformed verdict is the judge's parse failure: recorded, with no score.
        parseStatus: primary.ok ? "ok" : "failed",
        score: primary.ok ? (primary.outcome ?? null) : null,
      },
      scorer: `judge:${plan.primary.id}@${RUN_JUDGE_VERSION}`,
    };
  }

  private async call(
    attempt: TrialAttempt,
    judge: ModelSpec,
    role: string,
    messages: ReturnType<typeof judgeMessages>,
  ): Promise<string> {
    const model = this.judges.get(judge.id)!;
    const call = recordingCall({ ...attempt, model }, { audit: false });
    return (await call(role, messages)).text;
  }

  private async verdict(
    attempt: TrialAttempt,
    plan: TrialPlan,
    asked: { judge: ModelSpec; role: VerdictRecord["role"] },
    messages: ReturnType<typeof judgeMessages>,
  ): Promise<JudgeCallNote> {
    const { judge, role } = asked;
    const reply = await this.call(attempt, judge, JUDGE_ROLES[role], messages);
    const parsed = parseVerdict(reply, plan.rubric);
    const base = { uuid: plan.uuid, judge: judge.id, purpose: "verdict" as const, role, rubric: plan.rubric.id };
    const record: JudgeCallNote = parsed.ok
      ? {
          ...base,
          ok: true,
          label: parsed.verdict.label,
          confidence: parsed.verdict.confidence,
          justification: parsed.verdict.justification,
          outcome: plan.rubric.outcome(parsed.verdict.label, attempt.item),
          error: null,
        }
      : { ...base, ok: false, label: null, confidence: null, justification: null, outcome: null, error: parsed.error };
    note(attempt.calls, record);
    return record;
  }

  /**
   * Step 5, once every judged trial is finished: the verdicts (read from the stored judge calls)
   * are stored by UUID and hashed, kappa and the guessing check computed, and the round unblinded
   * and logged. Returns false while judged trials remain unfinished (a later run finishes it).
   */
  async finish(study: PreparedStudy, store: TrialStore, runId: string, dir: string): Promise<boolean> {
    const round = await store.getBlindingRound(runId);
    if (!round || round.sealedSha256 !== this.sealedSha256) return false;
    if (round.judged) return true;
    // Only the judged trials are read, a page at a time, and only what the round needs of each is
    // kept: a large run's rows are not held whole.
    const trials = new Map<string, FinishedTrial>();
    const judgedIds = [...this.plans.keys()];
    for (let i = 0; i < judgedIds.length; i += JUDGED_PAGE) {
      for (const t of await store.trialsAmong(runId, judgedIds.slice(i, i + JUDGED_PAGE))) {
        if (t.status !== "finished") return false;
        trials.set(t.id, { executions: t.executions, attempt: t.attempt, raw: t.outcome?.finalAnswer ?? "" });
      }
    }
    // A run stopped before its plan was all stored has judged trials not in the store yet.
    if (trials.size < this.plans.size) return false;
    const mapping = openSealedMapping(round.mapping, round.sealedSha256);
    const verdicts: VerdictRecord[] = [];
    const guesses: GuessedCase[] = [];
    const judgeables: Judgeable[] = [];
    // A page of entries at a time: the calls' facts (their notes, without their messages and
    // responses) of a page are read, turned into records and let go before the next.
    for (let i = 0; i < mapping.length; i += JUDGED_PAGE) {
      const page = mapping.slice(i, i + JUDGED_PAGE);
      const callsOf = await store.listCallFactsOf(
        runId,
        page.map((e) => e.trialId),
      );
      for (const entry of page) {
        const trial = trials.get(entry.trialId)!;
        const notes = judgeNotes(callsOf.get(entry.trialId) ?? [], trial.executions);
        this.recordEntry(study, entry, trial, notes, { verdicts, guesses, judgeables });
      }
    }
    const log = new JudgementLog(store, runId, dir);
    await store.saveVerdicts(runId, verdicts);
    log.file(BLINDING_FILES.verdicts, verdictsText(verdicts));
    const sha = verdictsSha256(verdicts);
    const at = new Date().toISOString();
    await log.event({ event: "judged", at, verdicts: verdicts.length, sha256: sha, stage: "run" });
    const agreement = agreementOf(judgeables, verdicts);
    log.file(BLINDING_FILES.agreement, agreement);
    const check = guessingCheck(guesses, this.configurations);
    const guessing = check && { ...check, sensitivity: blindingSensitivity(guesses, check, this.configurations) };
    const primaries = [...new Set([...this.plans.values()].map((p) => p.primary.id))].sort();
    const judged = {
      judge: primaries.join(","),
      verdictsSha256: sha,
      responses: mapping.length,
      guessingCheck: guessing,
      agreement,
    };
    await store.finishBlindingRound(runId, judged);
    // The run-time outcomes already carry the verdicts; unblinding links the stored verdicts.
    await store.unblindRound(runId, at, new Map(mapping.map((e) => [e.uuid, e.trialId])));
    await log.event({
      event: "unblinded",
      at,
      sealed_sha256: round.sealedSha256,
      verdicts_sha256: sha,
      scores: verdicts.filter((v) => v.role === "primary").length,
      stage: "run",
    });
    log.file(BLINDING_FILES.summary, blindingSummaryOf({ ...round, judged, unblindedAt: at }));
    return true;
  }

  /** One sealed entry's verdicts, guess and judgeable, from its trial and its judge calls' notes. */
  private recordEntry(
    study: PreparedStudy,
    entry: BlindingEntry,
    trial: FinishedTrial,
    notes: JudgeCallNote[],
    into: { verdicts: VerdictRecord[]; guesses: GuessedCase[]; judgeables: Judgeable[] },
  ): void {
    const { verdicts, guesses, judgeables } = into;
    const plan = this.plans.get(entry.trialId)!;
    for (const n of notes) {
      if (n.purpose === "guess") {
        const primary = notes.find((p) => p.purpose === "verdict" && (p.role ?? "primary") === "primary");
        const outcome = primary?.ok ? (primary.outcome ?? null) : null;
        guesses.push({ truth: entry.configuration, guess: n.guess ?? null, outcome });
        continue;
      }
      verdicts.push({
        uuid: entry.uuid,
        benchmark: entry.benchmark,
        rubric: n.rubric ?? plan.rubric.id,
        judge: n.judge,
        role: n.role ?? "primary",
        ok: n.ok ?? false,
        label: n.label ?? null,
        confidence: n.confidence ?? null,
        justification: n.justification ?? null,
        outcome: n.outcome ?? null,
        error: n.error ?? null,
      });
    }
    const item = study.items.get(entry.benchmark)?.get(entry.itemId);
    if (item) {
      judgeables.push({
        entry,
        attempt: trial.attempt,
        item,
        rubric: plan.rubric,
        prompt: "",
        raw: trial.raw,
        response: "",
      });
    }
  }
}

/** Judged trials read per store query when the round finishes. */
const JUDGED_PAGE = 500;

/** What finish reads of a judged trial: the execution that finished it, its attempt and its answer. */
interface FinishedTrial {
  executions: number;
  attempt: number;
  raw: string;
}

/** The judge notes of the calls of the execution that finished the trial, in call order. */
function judgeNotes(calls: readonly CallFacts[], execution: number): JudgeCallNote[] {
  return calls
    .filter((c) => c.execution === execution)
    .map((c) => c.note?.judge as JudgeCallNote | undefined)
    .filter((n): n is JudgeCallNote => n !== undefined);
}

/** Puts a judge note on the latest call (the judge call just recorded). */
function note(calls: CallRecord[], judge: JudgeCallNote): void {
  const last = calls[calls.length - 1];
  if (last) last.note = { ...last.note, judge };
}

/** A judged trial as its blinding entry records it (in the entry's key order). */
type JudgedTrial = Omit<BlindingEntry, "uuid">;

/**
 * The plan's judged trials in id order (the order the store pages them in, so the sealed mapping
 * is the same whether the plan is stored first or not). Only what the round records of each
 * judged trial is kept: a large plan is not held whole.
 */
function judgedOfPlan(study: PreparedStudy, plan: Iterable<PlannedTrial>): JudgedTrial[] {
  const judged: JudgedTrial[] = [];
  // Whether a trial is judged depends on its task alone (condition, benchmark, item), which every
  // model and attempt shares: each task is rendered once, not once per trial.
  const decided = new Map<string, boolean>();
  for (const trial of plan) {
    const task = `${trial.conditionHash}\u0000${trial.benchmarkId}\u0000${trial.itemId}`;
    let isJudgedTask = decided.get(task);
    if (isJudgedTask === undefined) {
      isJudgedTask = isJudged(study, trial);
      decided.set(task, isJudgedTask);
    }
    if (isJudgedTask) judged.push(blindedTrial(trial));
  }
  return judged.sort((a, b) => (a.trialId < b.trialId ? -1 : a.trialId > b.trialId ? 1 : 0));
}

/** The stored trials that are judged, in id order. */
async function judgedOfStore(study: PreparedStudy, store: TrialStore, runId: string): Promise<JudgedTrial[]> {
  const judged: JudgedTrial[] = [];
  for await (const page of trialPages(store, runId)) {
    for (const trial of page) if (isJudged(study, trial)) judged.push(blindedTrial(trial));
  }
  return judged;
}

function isJudged(study: PreparedStudy, trial: PlannedTrial): boolean {
  const item = study.items.get(trial.benchmarkId)?.get(trial.itemId);
  return item !== undefined && judgedAtRunTime(study.spec, trial, item);
}

/** Whether every judged trial is stored and finished. */
async function allFinished(store: TrialStore, runId: string, judged: readonly JudgedTrial[]): Promise<boolean> {
  let finished = 0;
  for (let i = 0; i < judged.length; i += JUDGED_PAGE) {
    const ids = judged.slice(i, i + JUDGED_PAGE).map((t) => t.trialId);
    for (const trial of await store.trialsAmong(runId, ids)) {
      if (trial.status !== "finished") return false;
      finished++;
    }
  }
  return finished === judged.length;
}
