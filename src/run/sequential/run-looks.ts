/**
 * A sequential run: executes look by look (whole items in a seeded order), analyses each look
 * against its alpha-spending boundaries, drops the conditions of contrasts already decided, and
 * stops once every contrast is decided. Each analysed look is recorded in the store with its
 * statistics, boundaries and decisions, and, at the end, the trials, calls and dollars not
 * spent. A resumed run continues after the last recorded look (none again once it stopped);
 * finished trials are never run twice.
 */
import { AnalysisPlanSchema, PowerPlanSchema } from "../../contracts/analysis.js";
import type { SequentialSpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { contrastLayout } from "../plan/contrasts.js";
import type { TrialSource } from "../execute/trial-source.js";
import type { ExecuteSummary } from "../execute/types.js";
import { scoredTrials } from "../plan/power-plan.js";
import type { TrialStore } from "../store/types.js";
import type { PreparedStudy } from "../prepare/study.js";
import { analyseLook, boundariesOf, type ContrastAtLook, type SequentialDecision } from "./monitor.js";
import { clusterOf, lookSchedule } from "./schedule.js";
import { LookTrialSource } from "./source.js";

export interface SequentialDesignRecord {
  looks: number[];
  spending: SequentialSpec["spending"];
  alpha: number;
  stopOn: SequentialDecision[];
  equivalenceAlpha: number;
  margin: number;
  minimumEffect: number;
  critical: number[];
  equivalenceCritical: number[];
  /** Items each look holds (cumulative). */
  itemsAt: number[];
  seed: number;
}

export interface LookRecord {
  /** 1-based. */
  look: number;
  fraction: number;
  items: number;
  design: SequentialDesignRecord;
  contrasts: ContrastAtLook[];
  /** Spent by the run when the look was analysed. */
  spent: { calls: number; costUsd: number };
  /** Set on the look that ended the run: early (every contrast decided) or the last look. */
  end: null | {
    early: boolean;
    trialsNotRun: number;
    /** Estimated from the run's own calls and cost per executed trial. */
    callsNotSpent: number;
    costNotSpentUsd: number;
  };
}

export interface SequentialOutcome {
  summary: ExecuteSummary;
  looks: LookRecord[];
  /** The run ended at a look before the last (every contrast decided). */
  stoppedEarly: boolean;
}

/** The design as recorded with every look (what `analyze` reports). */
export function sequentialDesign(study: PreparedStudy, sequential: SequentialSpec): SequentialDesignRecord {
  const plan = AnalysisPlanSchema.parse(study.spec.analysis ?? {});
  const power = PowerPlanSchema.parse(plan.power ?? {});
  const boundaries = boundariesOf(sequential, plan.equivalence.alpha);
  return {
    looks: [...sequential.looks],
    spending: sequential.spending,
    alpha: sequential.alpha,
    stopOn: [...sequential.stop_on],
    equivalenceAlpha: plan.equivalence.alpha,
    margin: plan.equivalence.margin,
    minimumEffect: power.minimum_effect,
    critical: boundaries.effect.critical,
    equivalenceCritical: boundaries.equivalence.critical,
    itemsAt: lookSchedule(study, sequential).itemsAt,
    seed: sequential.seed ?? study.spec.seed,
  };
}

function emptySummary(): ExecuteSummary {
  return { attempted: 0, finished: 0, errored: 0, abandoned: 0, calls: 0, costUsd: 0, stoppedBy: "completed" };
}

function add(total: ExecuteSummary, pass: ExecuteSummary): void {
  total.attempted += pass.attempted;
  total.finished += pass.finished;
  total.errored += pass.errored;
  total.abandoned += pass.abandoned;
  total.calls += pass.calls;
  total.costUsd += pass.costUsd;
  if (pass.budget) total.budget = pass.budget;
  if (pass.authFailure) total.authFailure = pass.authFailure;
  if (pass.sandboxFailure) total.sandboxFailure = pass.sandboxFailure;
}

export async function readLooks(store: TrialStore, runId: string): Promise<LookRecord[]> {
  return (await store.listSequentialLooks(runId)).map((row) => JSON.parse(row.record) as LookRecord);
}

export async function runSequential(
  study: PreparedStudy,
  sequential: SequentialSpec,
  run: { store: TrialStore; runId: string },
  execute: (source: TrialSource) => Promise<ExecuteSummary>,
): Promise<SequentialOutcome> {
  const { store, runId } = run;
  if (store.dialect === "postgres") {
    throw new InputError(
      "execution.sequential: a sequential run executes look by look in one process; use a SQLite study directory",
    );
  }
  const design = sequentialDesign(study, sequential);
  const layout = contrastLayout(study.spec, study.conditions);
  if (layout.contrasts.length === 0)
    throw new InputError(
      "execution.sequential: the design has no contrast to monitor (one level of the comparison facet)",
    );
  const schedule = lookSchedule(study, sequential);
  const boundaries = boundariesOf(sequential, design.equivalenceAlpha);
  const looks = await readLooks(store, runId);
  const summary = emptySummary();
  const last = looks.at(-1);
  if (last?.end) return { summary, looks, stoppedEarly: last.end.early };
  const decided = new Map<string, ContrastAtLook>(
    (last?.contrasts ?? []).filter((c) => c.decidedAt !== null).map((c) => [c.contrast, c]),
  );
  const droppedConditions = () =>
    new Set(layout.contrasts.filter((c) => decided.has(c.label)).flatMap((c) => c.pairs.map((p) => p.conditionHash)));
  for (let k = looks.length; k < design.looks.length; k++) {
    const dropped = droppedConditions();
    const inLook = (benchmarkId: string, itemId: string) =>
      (schedule.entersAt.get(clusterOf(benchmarkId, itemId)) ?? Number.POSITIVE_INFINITY) <= k;
    const pass = await execute(
      new LookTrialSource(store, runId, (t) => inLook(t.benchmarkId, t.itemId) && !dropped.has(t.conditionHash)),
    );
    add(summary, pass);
    if (pass.stoppedBy !== "completed") {
      summary.stoppedBy = pass.stoppedBy;
      return { summary, looks, stoppedEarly: false };
    }
    const trials = (await scoredTrials(store, runId)).filter((t) => inLook(t.benchmarkId, t.itemId));
    const contrasts = analyseLook({
      look: k,
      layout,
      boundaries,
      stopOn: design.stopOn,
      margin: design.margin,
      minimumEffect: design.minimumEffect,
      trials,
      decided,
    });
    for (const c of contrasts) if (c.decidedAt !== null) decided.set(c.contrast, c);
    const everyDecided = decided.size === layout.contrasts.length;
    const final = k === design.looks.length - 1;
    const spent = await store.spent(runId);
    const record: LookRecord = {
      look: k + 1,
      fraction: design.looks[k],
      items: schedule.itemsAt[k],
      design,
      contrasts,
      spent,
      end: everyDecided || final ? await endOf(store, runId, spent, !final) : null,
    };
    await store.saveSequentialLook(runId, record.look, JSON.stringify(record));
    looks.push(record);
    if (record.end) return { summary, looks, stoppedEarly: record.end.early };
  }
  return { summary, looks, stoppedEarly: false };
}

/** What the trials left unrun would have cost, at the run's own calls and dollars per executed trial. */
async function endOf(
  store: TrialStore,
  runId: string,
  spent: { calls: number; costUsd: number },
  early: boolean,
): Promise<NonNullable<LookRecord["end"]>> {
  const counts = await store.countByStatus(runId);
  const executed = Math.max(1, counts.finished + counts.errored);
  const trialsNotRun = counts.pending;
  return {
    early,
    trialsNotRun,
    callsNotSpent: Math.round((spent.calls / executed) * trialsNotRun),
    costNotSpentUsd: (spent.costUsd / executed) * trialsNotRun,
  };
}
