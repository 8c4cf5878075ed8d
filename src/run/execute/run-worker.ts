/**
 * `parallax worker URL`: one more worker on a run that `parallax run SPEC --store URL` started.
 * Everything it needs is in the store (the spec in the run record, the items in run_item_batches), so
 * another machine needs only the URL and its own API keys. Trials are claimed under leases
 * (execute/leased-source.ts); the worker refuses a run of another Parallax version. The store
 * holds what every trial needs: few-shot pools beside the items, the plugin modules by content
 * hash (stored-plugins.ts), and for run-time judges the spec's judges and the blinding round the
 * run sealed before its first trial (the run unblinds the round once every judged trial is done).
 */
import { dirname } from "node:path";
import { InputError } from "../../core/errors.js";
import type { ProviderEnv } from "../../models/types.js";
import { executeTrials } from "./execute-trials.js";
import { type BatchedModels, batchConcurrency, batchModels } from "./batch/batch-models.js";
import { isBatchMode } from "./batch/settings.js";
import { LeasedTrialSource, type LeaseOptions } from "./leased-source.js";
import type { ExecuteSummary, ModelRuntime, TrialEvent } from "./types.js";
import { buildJudgeModel, hasJudges } from "../score/judges.js";
import type { RunJudging } from "../score/run-judging.js";
import { buildModels, closeModels, refuseCells } from "../prepare/model-runtimes.js";
import { refuseOtherVersion, storeLabel } from "./run-study.js";
import { agentRuntimeOf } from "./agent-runtime.js";
import { openStore } from "../store/open.js";
import { isPostgresUrl, storeArgument } from "../store/url.js";
import { openStoredStudy } from "../store/stored-study.js";
import { allItems } from "../prepare/study.js";

export interface RunWorkerOptions {
  /** The run's PostgreSQL URL. */
  store: string;
  /** The run to join; default the store's run. */
  runId?: string;
  env: ProviderEnv;
  /** Trials in flight in this worker; default the spec's execution.concurrency. */
  concurrency?: number;
  lease?: LeaseOptions;
  /** Workers sharing each model's API key: each keeps 1/rateShare of its declared rate limit. */
  rateShare?: number;
  stopSignal?: AbortSignal;
  abortSignal?: AbortSignal;
  onTrialDone?: (event: TrialEvent) => void;
  /** Hears notes for the user, such as a plugin loaded from the store's copy. */
  onNote?: (message: string) => void;
}

export interface RunWorkerResult {
  runId: string;
  workerId: string;
  summary: ExecuteSummary;
  counts: Record<"pending" | "finished" | "errored", number>;
  /** Run-time judging: how many trials the run judges, and whether its round is unblinded yet. */
  judging?: { trials: number; finished: boolean };
}

export async function runWorker(options: RunWorkerOptions): Promise<RunWorkerResult> {
  if (!isPostgresUrl(options.store)) {
    throw new InputError(`a worker joins a run in a PostgreSQL store (postgres://...), not '${options.store}'`);
  }
  const label = storeLabel(options.store);
  const store = await openStore(options.store);
  try {
    const run = await store.getRun(options.runId);
    if (!run) throw new InputError(`${label} holds no run${options.runId ? ` '${options.runId}'` : ""} to work on`);
    refuseOtherVersion(run, label);
    // A run recorded before its store kept the study (items, pools, plugins) is joined with its spec.
    const joinWithSpec = (missing: string) =>
      new InputError(
        `${label}: run '${run.id}' was recorded before its store kept ${missing}; ` +
          `start this worker with the spec instead: parallax run SPEC --store ${storeArgument(options.store)}`,
      );
    const study = await openStoredStudy(store, run, joinWithSpec, { onNote: options.onNote });
    const specDir = dirname(study.specPath);
    const models = await buildModels(study, options.env, { rateShare: options.rateShare });
    const judges = new Map<string, ModelRuntime>();
    let batching: BatchedModels | undefined;
    try {
      refuseCells(study, models);
      const { logprobOptionsOf, scorerChooser } = await import("../score/choose.js");
      // The round the run sealed before its first trial: the same UUIDs and subsamples as the run's.
      // Loaded only for a spec with judges: judging brings its statistics (@stdlib).
      let judging: RunJudging | undefined;
      if (hasJudges(run.spec)) {
        const { RunJudging } = await import("../score/run-judging.js");
        for (const spec of RunJudging.judgeSpecsOf(run.spec)) {
          judges.set(spec.id, await buildJudgeModel(spec, run.spec, options.env, { items: allItems(study), specDir }));
        }
        judging = await RunJudging.open(study, { store, runId: run.id, dir: undefined }, judges);
      }
      const source = await LeasedTrialSource.open(store, run.id, options.lease);
      const { execution } = run.spec;
      // Batch mode: calls of providers with a batch API go through it (src/run/execute/batch/).
      batching = isBatchMode(execution)
        ? batchModels(models, { store, runId: run.id, execution, prices: run.spec.prices, signal: options.abortSignal })
        : undefined;
      const summary = await executeTrials({
        store,
        runId: run.id,
        items: study.items,
        exemplars: study.exemplars,
        models: batching?.models ?? models,
        scorerFor: scorerChooser(run.spec),
        logprobOptions: logprobOptionsOf(run.spec),
        concurrency: options.concurrency ?? (batching ? batchConcurrency(execution) : execution.concurrency),
        cache: run.spec.execution.cache,
        stopSignal: options.stopSignal,
        abortSignal: options.abortSignal,
        budget: { maxCostUsd: run.spec.budget.max_cost_usd, maxCalls: run.spec.budget.max_calls },
        onTrialDone: options.onTrialDone,
        judging,
        source,
        agents: agentRuntimeOf(run.spec, { specDir, env: options.env }),
      });
      const round = judging ? await store.getBlindingRound(run.id) : undefined;
      return {
        runId: run.id,
        workerId: source.leaseOwner,
        summary,
        counts: await store.countByStatus(run.id),
        ...(judging ? { judging: { trials: judging.size, finished: Boolean(round?.judged) } } : {}),
      };
    } finally {
      await batching?.close();
      await closeModels(models);
      await closeModels(judges);
    }
  } finally {
    await store.close();
  }
}
