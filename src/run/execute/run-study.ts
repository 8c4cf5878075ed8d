/**
 * `parallax run`: prepare the study, record the run and its planned trials, execute what is
 * unfinished. Running the same spec into the same directory again resumes.
 */
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ProviderEnv } from "../../models/types.js";
import { EXIT_INTERRUPTED, InputError, ParallaxError } from "../../core/errors.js";
import { ensureDirectory } from "../../core/output-files.js";
import type { PlannedTrial } from "../../contracts/trial.js";
import { refuseUnrunnableDesign } from "../prepare/design-checks.js";
import type { SpecFile } from "../../core/spec-loader.js";
import { agentRuntimeOf, refuseWithoutSandbox } from "./agent-runtime.js";
import { executeTrials } from "./execute-trials.js";
import { type BatchedModels, batchConcurrency, batchModels } from "./batch/batch-models.js";
import { isBatchMode } from "./batch/settings.js";
import { stampGridRules } from "../prepare/grid-rules.js";
import { LeasedTrialSource, type LeaseOptions } from "./leased-source.js";
import type { AgentRuntime, ExecuteSummary, ModelRuntime, TrialEvent } from "./types.js";
import { buildJudgeModel } from "../score/judges.js";
import { buildModels, closeModels, refuseCells } from "../prepare/model-runtimes.js";
import { planTrials, runIdFor } from "../plan/plan.js";
import { openStore } from "../store/open.js";
import { isPostgresUrl, parsePostgresUrl } from "../store/url.js";
import type { RunRecord, TrialStore } from "../store/types.js";
import { acquireStudyLock, type StudyLock } from "./study-lock.js";
import { describeWorkersAtWork } from "./live-workers.js";
import { allItems, type PreparedStudy, prepareStudy } from "../prepare/study.js";
import { PARALLAX_VERSION } from "../../core/version.js";
import { drawnPools, storedPoolRows } from "../prepare/exemplars.js";
import { pluginsToStore, refuseChangedPlugins } from "../store/stored-plugins.js";
import type { RunJudging } from "../score/run-judging.js";
import { hasJudges } from "../score/judges.js";
import { PLAN_BATCH, PlanningTrialSource, type TrialSource } from "./trial-source.js";
import type { LookRecord, SequentialOutcome } from "../sequential/run-looks.js";

export interface RunStudyOptions {
  specPath: string;
  /** The spec file already read and parsed from specPath (the CLI reads it once). */
  specFile?: SpecFile;
  /**
   * The study directory (spec and manifest copies, judging files; the trials too without `store`).
   * Default runs/RUN_ID: named after the run, so two specs of one study name never share one.
   */
  outDir?: string;
  /**
   * Where trials are stored: a PostgreSQL URL (several machines can share it) or a SQLite
   * path; default the study directory's parallax.db. The spec and manifest copies stay in outDir.
   */
  store?: string;
  env: ProviderEnv;
  concurrency?: number;
  stopSignal?: AbortSignal;
  abortSignal?: AbortSignal;
  onStart?: (info: { runId: string; total: number; pending: number; alreadyFinished: number }) => void;
  onTrialDone?: (event: TrialEvent) => void;
  /** Hears how far planning the trials into the store got, about once a second while it takes. */
  onPlanning?: (progress: { planned: number; total: number }) => void;
  /** Hears notes for the user, such as a stale directory lock taken over. */
  onNote?: (message: string) => void;
  /** Scale-out (PostgreSQL stores): the lease of a claimed trial, and which errored trials this pass retries. */
  lease?: LeaseOptions;
  /** Workers sharing each model's API key: each keeps 1/rateShare of its declared rate limit. */
  rateShare?: number;
  /** Called once the run and its trials are in the store, before executing (starts other workers). */
  onRecorded?: (runId: string) => void | Promise<void>;
  /** Trials stored per planning step (default PLAN_BATCH); smaller in tests. */
  planBatch?: number;
}

export interface RunStudyResult {
  runId: string;
  outDir: string;
  summary: ExecuteSummary;
  counts: Record<"pending" | "finished" | "errored", number>;
  /** Run-time judging: how many trials are judged, and whether the judge round is finished (unblinded). */
  judging?: { trials: number; finished: boolean };
  /** A sequential run's analysed looks (all of them, recorded ones included) and whether it stopped early. */
  sequential?: { looks: LookRecord[]; stoppedEarly: boolean };
}

/** How often planning reports its progress (a large design takes minutes to plan). */
const PLANNING_REPORT_MS = 1_000;

export async function runStudy(options: RunStudyOptions): Promise<RunStudyResult> {
  // Replaced by the study as its trials read it once the run is recorded (recordRun).
  let study = await prepareStudy(options.specFile ?? options.specPath, { setPoolsAside: true });
  for (const warning of study.warnings) options.onNote?.(`warning: ${warning}`);
  // Everything `plan` refuses is refused here too, before anything is written.
  const plannedTrials = refuseUnrunnableDesign(study);
  refuseSequentialOnSharedStore(study, options.store);
  await refuseWithoutSandbox(study);
  // Providers, judges and the agents' web backend are built first, so a bad model entry
  // (unknown provider, missing key) writes nothing.
  const models = await buildModels(study, options.env, { rateShare: options.rateShare });
  const judges = new Map<string, ModelRuntime>();
  let agents: AgentRuntime;
  try {
    refuseCells(study, models);
    await buildJudges(study, options.env, judges);
    agents = agentRuntimeOf(study.spec, { specDir: dirname(resolve(study.specPath)), env: options.env });
  } catch (error) {
    await closeModels(models);
    await closeModels(judges);
    throw error;
  }
  const outDir = resolve(options.outDir ?? join("runs", runIdFor(study)));
  let lock: StudyLock;
  try {
    ensureDirectory(outDir, "study directory");
    lock = await acquireStudyLock(outDir, {
      onNote: options.onNote,
      // On PostgreSQL a dead run's worker may still be claiming (and paying for) trials: its
      // lock is not taken over while one is.
      stillAtWork:
        options.store && isPostgresUrl(options.store)
          ? () => describeWorkersAtWork(options.store!, runIdFor(study))
          : undefined,
    });
  } catch (error) {
    await closeModels(models);
    await closeModels(judges);
    throw error;
  }
  let batching: BatchedModels | undefined;
  let store: TrialStore;
  try {
    store = await openStore(options.store ?? outDir);
  } catch (error) {
    lock.release();
    await closeModels(models);
    await closeModels(judges);
    throw error;
  }
  try {
    const recorded = await recordRun(
      store,
      study,
      { outDir, label: storeLabel(options.store ?? outDir) },
      {
        total: plannedTrials,
        batchSize: options.planBatch ?? PLAN_BATCH,
        onPlanning: options.onPlanning,
        stopSignal: options.stopSignal,
      },
    );
    const { runId, allStored } = recorded;
    study = recorded.study;
    // Judges of open-ended answers (spec scoring.judges): the mapping is sealed over the whole
    // plan before any trial runs, and before other workers start (they judge under the sealed
    // round). A plan not all stored yet is read from planTrials, not the store.
    let judging: RunJudging | undefined;
    if (hasJudges(study.spec)) {
      const { RunJudging } = await import("../score/run-judging.js");
      const plan = allStored ? undefined : planTrials(study, runId);
      judging = await RunJudging.open(study, { store, runId, dir: outDir, plan }, judges);
    }
    await options.onRecorded?.(runId);
    // Trials not stored yet (planned as the run goes) count as pending.
    const before = await store.countByStatus(runId);
    const total = plannedTrials;
    options.onStart?.({ runId, total, pending: total - before.finished, alreadyFinished: before.finished });
    const { execution } = study.spec;
    // Loaded here, not with the module: score.js brings the judging statistics (@stdlib), which
    // `plan` (through checkCells) never needs.
    const { logprobOptionsOf, scorerChooser } = await import("../score/choose.js");
    // Batch mode: calls of providers with a batch API go through it (src/run/execute/batch/).
    batching = isBatchMode(execution)
      ? batchModels(models, { store, runId, execution, prices: study.spec.prices, signal: options.abortSignal })
      : undefined;
    const executeFrom = (source: TrialSource | undefined) =>
      executeTrials({
        store,
        runId,
        items: study.items,
        exemplars: study.exemplars,
        models: batching?.models ?? models,
        scorerFor: scorerChooser(study.spec),
        logprobOptions: logprobOptionsOf(study.spec),
        concurrency: options.concurrency ?? (batching ? batchConcurrency(execution) : execution.concurrency),
        cache: execution.cache,
        stopSignal: options.stopSignal,
        abortSignal: options.abortSignal,
        budget: {
          maxCostUsd: study.spec.budget.max_cost_usd,
          maxCalls: study.spec.budget.max_calls,
        },
        onTrialDone: options.onTrialDone,
        judging,
        source,
        agents,
      });
    const { sequential: sequentialSpec } = execution;
    let sequential: SequentialOutcome | undefined;
    if (sequentialSpec) {
      // Loaded only for a sequential run: its boundaries bring the statistics (@stdlib).
      const { runSequential } = await import("../sequential/run-looks.js");
      sequential = await runSequential(study, sequentialSpec, { store, runId }, executeFrom);
    }
    const source =
      (await sharedSource(store, runId, options.lease)) ??
      (allStored
        ? undefined
        : new PlanningTrialSource(store, runId, planTrials(study, runId), options.planBatch ?? PLAN_BATCH));
    const summary = sequential?.summary ?? (await executeFrom(source));
    const judged = judging ? await judging.finish(study, store, runId, outDir) : undefined;
    await store.finishWrites();
    const counts = await store.countByStatus(runId);
    // A run stopped before its plan was all stored: the rest is pending too.
    counts.pending += Math.max(0, plannedTrials - counts.pending - counts.finished - counts.errored);
    return {
      runId,
      outDir,
      summary,
      counts,
      ...(judging ? { judging: { trials: judging.size, finished: judged! } } : {}),
      ...(sequential ? { sequential: { looks: sequential.looks, stoppedEarly: sequential.stoppedEarly } } : {}),
    };
  } finally {
    try {
      await batching?.close();
      await closeModels(models);
      await closeModels(judges);
      await store.close();
    } finally {
      lock.release();
    }
  }
}

/**
 * Judges of open-ended answers (spec scoring.judges), built before anything is written.
 * Loaded only for a spec with judges: judging brings its statistics (@stdlib, ~1,000 modules).
 */
async function buildJudges(study: PreparedStudy, env: ProviderEnv, judges: Map<string, ModelRuntime>): Promise<void> {
  if (!hasJudges(study.spec)) return;
  const { RunJudging } = await import("../score/run-judging.js");
  for (const spec of RunJudging.judgeSpecsOf(study.spec)) {
    judges.set(
      spec.id,
      await buildJudgeModel(spec, study.spec, env, {
        items: allItems(study),
        specDir: dirname(resolve(study.specPath)),
      }),
    );
  }
}

/** A sequential run executes look by look in one process: refused on a shared store before anything is written. */
function refuseSequentialOnSharedStore(study: PreparedStudy, store: string | undefined): void {
  if (study.spec.execution.sequential && store !== undefined && isPostgresUrl(store)) {
    throw new InputError(
      "execution.sequential: a sequential run executes look by look in one process; use a SQLite study directory",
    );
  }
}

/** How messages name a store: the directory, or a PostgreSQL URL without its password. */
export function storeLabel(target: string): string {
  return isPostgresUrl(target) ? parsePostgresUrl(target).description : target;
}

/**
 * A PostgreSQL store may be shared by workers on several machines: trials are claimed under
 * leases there. A SQLite store has one process at a time (the study lock): it is paged.
 */
async function sharedSource(store: TrialStore, runId: string, lease: LeaseOptions | undefined) {
  return store.dialect === "postgres" ? LeasedTrialSource.open(store, runId, lease) : undefined;
}

/**
 * Saves the run, its spec and item manifest. A directory holds one run: a changed spec or item
 * set needs a new directory, so results of different designs are never mixed.
 *
 * A run that needs every trial stored before it executes inserts its whole plan here (batches,
 * idempotent): on PostgreSQL (other workers claim from the store and judge under the round
 * sealed over the stored trials), sequential (looks select stored trials) and in batch mode.
 * Otherwise (`allStored` false) the plan is stored batch by batch while the run executes
 * (PlanningTrialSource); run-time judges seal their round over the plan itself.
 * Returns the study as the trials read it (forTrials).
 */
async function recordRun(
  store: TrialStore,
  study: PreparedStudy,
  /** Where the run's folder is, and how messages name its store. */
  at: { outDir: string; label: string },
  planning: PlanningOptions,
): Promise<{ runId: string; allStored: boolean; study: PreparedStudy }> {
  const { outDir, label } = at;
  const runId = runIdFor(study);
  const existing = await store.getRun();
  if (existing && existing.id !== runId) {
    throw new InputError(
      `${label} already holds run '${existing.id}' of a different spec or item set (this spec is run '${runId}'); ` +
        "use another --out directory (or another --store)",
    );
  }
  if (existing && store.dialect === "postgres") refuseOtherVersion(existing, label);
  const run: RunRecord = {
    id: runId,
    study: study.spec.study,
    specHash: study.specHash,
    manifestHash: study.manifestHash,
    spec: study.spec,
    createdAt: new Date().toISOString(),
    parallaxVersion: PARALLAX_VERSION,
    specDir: dirname(resolve(study.specPath)),
  };
  await store.saveRun(run);
  // The study as the run loaded it: workers on other machines, `score` and `analyze` read it
  // from the store, never from the benchmark sources. Resuming a run recorded before the store
  // kept it stores it now (the rows are keyed, so a second save adds nothing).
  await saveStudyItems(store, runId, study);
  const plugins = pluginsToStore(study.spec, run.specDir!);
  if (existing) refuseChangedPlugins(runId, await store.listRunPlugins(runId), plugins);
  await store.saveRunPlugins(runId, plugins);
  writeFileSync(join(outDir, "manifest.json"), `${JSON.stringify(study.manifest, null, 2)}\n`);
  writeFileSync(join(outDir, "spec.json"), `${JSON.stringify(study.spec, null, 2)}\n`);
  stampGridRules(study.spec, study.specPath, outDir);
  const trials = forTrials(study);
  if (existing && (await storedTrials(store, runId)) === planning.total)
    return { runId, allStored: true, study: trials };
  if (!plansFirst(trials, store)) return { runId, allStored: false, study: trials };
  await addPlannedTrials(store, planTrials(trials, runId), planning);
  return { runId, allStored: true, study: trials };
}

/** The items, then each pool's rows, in that order (a few-shot draw depends on a pool's order). */
async function saveStudyItems(store: TrialStore, runId: string, study: PreparedStudy): Promise<void> {
  const items = allItems(study);
  if (!study.poolsAside) {
    await store.saveRunItems(runId, [...items, ...storedPoolRows(study.exemplars)]);
    return;
  }
  await store.saveRunItems(runId, items);
  // Each pool is stored after the last (a few-shot draw depends on a pool's order).
  for (const pool of study.poolsAside.values()) await store.saveRunItemBatches(runId, pool.batches);
}

/**
 * The study as its trials read it once the run is recorded: the manifest and the whole exemplar
 * pools are in manifest.json and the store, so the run keeps only the pools' drawn exemplars
 * (the same draws, drawnPools) and no manifest, as a study read back from its store has none.
 */
function forTrials(study: PreparedStudy): PreparedStudy {
  const { poolsAside, ...rest } = study;
  return {
    ...rest,
    manifest: { benchmarks: [] },
    exemplars: poolsAside ? study.exemplars : drawnPools(study.spec, study.exemplars),
  };
}

/** Whether the run stores its whole plan before executing (see recordRun). */
function plansFirst(study: PreparedStudy, store: TrialStore): boolean {
  const { execution } = study.spec;
  return store.dialect === "postgres" || Boolean(execution.sequential) || isBatchMode(execution);
}

async function storedTrials(store: TrialStore, runId: string): Promise<number> {
  const counts = await store.countByStatus(runId);
  return counts.pending + counts.finished + counts.errored;
}

interface PlanningOptions {
  total: number;
  batchSize: number;
  onPlanning?: RunStudyOptions["onPlanning"];
  /** Stops planning between two batches (Ctrl-C); the run resumes planning where it stopped. */
  stopSignal?: AbortSignal;
}

/**
 * Inserts the planned trials in batches of `batchSize` (each batch one transaction; a batch
 * already stored is skipped by its trial ids, so planning interrupted anywhere resumes without
 * losing or duplicating a trial), reporting progress at most every PLANNING_REPORT_MS.
 */
async function addPlannedTrials(store: TrialStore, trials: Iterable<PlannedTrial>, o: PlanningOptions): Promise<void> {
  const started = Date.now();
  let reported = started;
  let planned = 0;
  let batch: PlannedTrial[] = [];
  const flush = async () => {
    await store.addPlannedTrials(batch);
    planned += batch.length;
    batch = [];
    const now = Date.now();
    if (now - reported >= PLANNING_REPORT_MS) {
      reported = now;
      o.onPlanning?.({ planned, total: o.total });
    }
    // A stop after the last batch leaves nothing to resume here: the run goes on to stop before its first trial.
    if (o.stopSignal?.aborted && planned < o.total) {
      throw new ParallaxError(
        `stopped while planning trials (${planned} of ${o.total} stored): run the same command again to resume`,
        EXIT_INTERRUPTED,
      );
    }
  };
  for (const trial of trials) {
    batch.push(trial);
    if (batch.length >= o.batchSize) await flush();
  }
  if (batch.length > 0) await flush();
  if (reported !== started) o.onPlanning?.({ planned, total: o.total });
}

/**
 * Workers sharing a run must execute it with the same code: a worker of another Parallax
 * version would render, call and score differently and mix its results into the run.
 */
export function refuseOtherVersion(run: RunRecord, label: string): void {
  if (run.parallaxVersion !== PARALLAX_VERSION) {
    throw new InputError(
      `${label} holds run '${run.id}' started with Parallax ${run.parallaxVersion}; this worker is ${PARALLAX_VERSION}: ` +
        "run every worker of a run with the same version",
    );
  }
}
