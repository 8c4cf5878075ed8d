import { DEFAULT_SCAFFOLD, facetName } from "../../contracts/condition.js";
import type { CallRecord } from "../../contracts/trial.js";
import { conditionLabel } from "../../run/prepare/conditions.js";
import { propagationChecks, roleKind } from "../../scaffolds/propagation.js";
import { openStudyDir } from "../study-dir.js";
import type { StudyProvenance } from "../../contracts/provenance.js";
import { importedFromLine, studyProvenance } from "../../run/export/provenance.js";
import { trialPages } from "../../run/store/pages.js";
import type {
  BatchSubmissionRecord,
  BudgetState,
  LeaseSummary,
  ProviderBatchRecord,
  WorkerRecord,
} from "../../run/store/types.js";
import { describeLimits } from "../../run/execute/budget.js";
import { DEFAULT_LEASE_MS } from "../../run/execute/leased-source.js";
import { heartbeatLapsed } from "../../run/execute/live-workers.js";

/** A worker as `status` shows it: `dead` when it is recorded running but its heartbeat is older than its lease. */
type StatusWorker = WorkerRecord & { dead: boolean };

interface CellStatus {
  model: string;
  condition: string;
  benchmark: string;
  finished: number;
  errored: number;
  pending: number;
  correct: number;
  /** Finished trials with an outcome (an imported log may have none: 'no scores', not an accuracy of 0). */
  scored: number;
  parseFailures: number;
}

/** Propagation audit pooled over the calls of one scaffold and role kind (map-1, map-2 -> map-k). */
interface PropagationRow {
  scaffold: string;
  role: string;
  calls: number;
  optionsApplicable: number;
  optionsReached: number;
  systemPromptApplicable: number;
  systemPromptRetainedSum: number;
  safetyApplicable: number;
  safetyReached: number;
  personaApplicable: number;
  personaLeaked: number;
}

function emptyPropagationRow(scaffold: string, role: string): PropagationRow {
  return {
    scaffold,
    role,
    calls: 0,
    optionsApplicable: 0,
    optionsReached: 0,
    systemPromptApplicable: 0,
    systemPromptRetainedSum: 0,
    safetyApplicable: 0,
    safetyReached: 0,
    personaApplicable: 0,
    personaLeaked: 0,
  };
}

function addToPropagation(rows: Map<string, PropagationRow>, scaffold: string, call: CallRecord): void {
  const role = roleKind(call.role);
  const key = `${scaffold}\u0000${role}`;
  const row = rows.get(key) ?? emptyPropagationRow(scaffold, role);
  const audit = propagationChecks(call.audit);
  row.calls++;
  if (audit && audit.optionsReached !== null) {
    row.optionsApplicable++;
    if (audit.optionsReached) row.optionsReached++;
  }
  if (audit && audit.systemPromptRetained !== null) {
    row.systemPromptApplicable++;
    row.systemPromptRetainedSum += audit.systemPromptRetained;
  }
  if (audit && audit.safetyReached !== null) {
    row.safetyApplicable++;
    if (audit.safetyReached) row.safetyReached++;
  }
  if (audit?.personaLeak) {
    row.personaApplicable++;
    if (audit.personaLeak.adversarial.length > 0) row.personaLeaked++;
  }
  rows.set(key, row);
}

export async function statusCommand(dir: string, options: { json?: boolean }): Promise<void> {
  const { store, run } = await openStudyDir(dir);
  try {
    const counts = await store.countByStatus(run.id);
    const buckets: Record<string, number> = {};
    const cells = new Map<string, CellStatus>();
    const propagation = new Map<string, PropagationRow>();
    for await (const page of trialPages(store, run.id, { pageSize: 2_000 })) {
      const callsOf = await store.listCallsOf(
        run.id,
        page.filter((t) => t.status !== "pending").map((t) => t.id),
      );
      for (const trial of page) {
        const condition = conditionLabel(trial.condition);
        const key = `${trial.modelId}\u0000${condition}\u0000${trial.benchmarkId}`;
        const cell = cells.get(key) ?? {
          model: trial.modelId,
          condition,
          benchmark: trial.benchmarkId,
          finished: 0,
          errored: 0,
          pending: 0,
          correct: 0,
          scored: 0,
          parseFailures: 0,
        };
        cell[trial.status]++;
        if (trial.outcome?.score === 1) cell.correct++;
        if (trial.status === "finished" && trial.outcome?.score != null) cell.scored++;
        if (trial.outcome?.parseStatus === "failed") cell.parseFailures++;
        if (trial.outcome?.failureBucket)
          buckets[trial.outcome.failureBucket] = (buckets[trial.outcome.failureBucket] ?? 0) + 1;
        cells.set(key, cell);
        if (trial.status !== "pending") {
          const scaffold = facetName(trial.condition.scaffold ?? DEFAULT_SCAFFOLD);
          for (const call of callsOf.get(trial.id) ?? []) addToPropagation(propagation, scaffold, call);
        }
      }
    }
    const leases = await store.leaseSummary(run.id);
    // The study's provenance decides the label: its own trials, or the simulated exports it was imported from.
    const provenance = await studyProvenance(store, run);
    const report = {
      run: run.id,
      study: run.study,
      counts,
      failureBuckets: buckets,
      simulated: provenance.simulated,
      provenance,
      // Sorted so a reader finds a cell where expected (model, then condition, then benchmark).
      cells: [...cells.values()].sort(
        (a, b) =>
          a.model.localeCompare(b.model) ||
          a.condition.localeCompare(b.condition) ||
          a.benchmark.localeCompare(b.benchmark),
      ),
      propagation: [...propagation.values()].sort(
        (a, b) => a.scaffold.localeCompare(b.scaffold) || a.role.localeCompare(b.role),
      ),
      workers: (await store.listWorkers(run.id)).map((w) => ({ ...w, dead: heartbeatLapsed(w, leases.now) })),
      leases,
      batches: await store.listBatches(run.id),
      // A store written before migration 0013, opened read-only, has no submissions table.
      batchSubmissions: await store.listSubmissions(run.id).catch((): BatchSubmissionRecord[] => []),
      // A store written before the budget counter (migration 0012), opened read-only, has no table for it.
      budget: await store.budgetState(run.id).catch(() => undefined),
      budgetLimits: describeLimits({ maxCalls: run.spec.budget?.max_calls, maxCostUsd: run.spec.budget?.max_cost_usd }),
    };
    if (options.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    process.stdout.write(formatStatus(report));
  } finally {
    await store.close();
  }
}

function formatStatus(report: {
  run: string;
  study: string;
  counts: Record<string, number>;
  failureBuckets: Record<string, number>;
  simulated: boolean;
  provenance: StudyProvenance;
  cells: CellStatus[];
  propagation: PropagationRow[];
  workers: StatusWorker[];
  leases: LeaseSummary;
  batches: ProviderBatchRecord[];
  batchSubmissions: BatchSubmissionRecord[];
  budget?: BudgetState;
  budgetLimits: string;
}): string {
  const total = report.counts.finished + report.counts.errored + report.counts.pending;
  const lines = [
    `run ${report.run} (study ${report.study})${report.simulated ? " [SIMULATED responses]" : ""}`,
    ...(report.provenance.imported_from ? [`imported from ${importedFromLine(report.provenance)}`] : []),
    `trials: ${total} | finished ${report.counts.finished} | errored ${report.counts.errored} | pending ${report.counts.pending}`,
  ];
  const buckets = Object.entries(report.failureBuckets);
  if (buckets.length > 0) lines.push(`failure buckets: ${buckets.map(([b, n]) => `${b} ${n}`).join(", ")}`);
  lines.push("", "model | condition | benchmark | finished | errored | pending | accuracy (finished) | parse failures");
  for (const c of report.cells) {
    const accuracy = c.finished === 0 ? "-" : c.scored === 0 ? "no scores" : (c.correct / c.finished).toFixed(3);
    lines.push(
      `${c.model} | ${c.condition} | ${c.benchmark} | ${c.finished} | ${c.errored} | ${c.pending} | ${accuracy} | ${c.parseFailures}`,
    );
  }
  if (report.propagation.length > 0) {
    lines.push(
      "",
      "propagation (ScaffoldSafety 5.2): scaffold | role | calls | options reached | system prompt retained | safety reached | persona leak",
    );
    for (const r of report.propagation) {
      const cols = [
        share(r.optionsReached, r.optionsApplicable),
        share(r.systemPromptRetainedSum, r.systemPromptApplicable),
        share(r.safetyReached, r.safetyApplicable),
        share(r.personaLeaked, r.personaApplicable),
      ];
      lines.push(`${r.scaffold} | ${r.role} | ${r.calls} | ${cols.join(" | ")}`);
    }
  }
  lines.push(...workerLines(report.workers, report.leases));
  lines.push(...batchLines(report.batches));
  lines.push(...lostSubmissionLines(report.batchSubmissions));
  if (report.budget) {
    const b = report.budget;
    lines.push(
      `budget (${report.budgetLimits || "no limits"}): used ${b.usedCalls} call(s), $${b.usedCostUsd.toFixed(4)}; ` +
        `reserved in flight ${b.reservedCalls} call(s), $${b.reservedCostUsd.toFixed(4)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The run's workers (scale-out) and its trials' leases; nothing for a run no worker joined. */
function workerLines(workers: StatusWorker[], leases: LeaseSummary): string[] {
  if (workers.length === 0) return [];
  const ago = (ms: number) => `${((leases.now - ms) / 1000).toFixed(1)} s ago`;
  const inSeconds = (ms: number | null) => (ms === null ? "-" : `in ${((ms - leases.now) / 1000).toFixed(1)} s`);
  const lines = ["", "workers: id | host | pid | state | last heartbeat | trials in flight"];
  for (const w of workers) {
    lines.push(`${w.id} | ${w.host} | ${w.pid} | ${workerState(w)} | ${ago(w.heartbeatAt)} | ${w.inFlight}`);
  }
  lines.push(
    `leases: ${leases.held} held (next expiry ${inSeconds(leases.nextExpiry)}, last ${inSeconds(leases.lastExpiry)}), ` +
      `${leases.expired} expired (claimable again)`,
  );
  return lines;
}

function workerState(worker: WorkerRecord & { dead: boolean }): string {
  if (!worker.dead) return worker.state;
  return `dead (no heartbeat within its ${(worker.leaseMs ?? DEFAULT_LEASE_MS) / 1000} s lease)`;
}

/** Batch mode's provider batches: those still being polled first; nothing for a synchronous run. */
function batchLines(batches: ProviderBatchRecord[]): string[] {
  if (batches.length === 0) return [];
  const open = batches.filter((b) => b.status === "submitted");
  const lines = [
    "",
    `provider batches: ${batches.length} (${open.length} submitted, ${batches.length - open.length} ended)`,
  ];
  lines.push("provider | model | batch id | status | requests | submitted at");
  for (const b of [...open, ...batches.filter((x) => x.status === "ended")]) {
    const status = b.status === "ended" ? `ended (${b.providerStatus})` : "submitted";
    lines.push(`${b.provider} | ${b.modelId} | ${b.batchId} | ${status} | ${b.requests} | ${b.submittedAt}`);
  }
  return lines;
}

/** Batch submissions sent (or about to be) whose batch id the store lacks: looked up by token on resume. */
function lostSubmissionLines(submissions: BatchSubmissionRecord[]): string[] {
  const waiting = submissions.filter((s) => s.state === "submitting");
  if (waiting.length === 0) return [];
  const lines = [
    "",
    `batch submissions without a batch id: ${waiting.length} (looked up at the provider by token when the run resumes)`,
    "provider | model | token | requests | recorded at",
  ];
  for (const s of waiting) lines.push(`${s.provider} | ${s.modelId} | ${s.token} | ${s.requests} | ${s.createdAt}`);
  return lines;
}

/** A percentage, or "-" when nothing applied. */
function share(part: number, whole: number): string {
  return whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`;
}
