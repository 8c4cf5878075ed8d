/**
 * The tidy tables analysis reads: one row per trial (observations) or per sub-call, as CSV
 * or JSON lines, streamed page by page.
 */
import { facetLabel } from "../../contracts/condition.js";
import type { CallRecord, Observation, ScoreRecord } from "../../contracts/trial.js";
import { csvLine } from "../../core/csv.js";
import { callAuditors } from "../../scaffolds/audits/registry.js";
import { studyProvenance, provenanceColumns } from "./provenance.js";
import {
  callsContract,
  columnNames,
  OBSERVATION_CONTRACT,
  PROVENANCE_CONTRACT,
  trialAuditContract,
  trialsContract,
} from "./table-contract.js";
import { agentColumnsOf } from "./trial-agent-columns.js";
import type { TrialRow, TrialStore } from "../store/types.js";
import { trialPages } from "../store/pages.js";

export type ExportTable = "trials" | "calls";
export type ExportFormat = "csv" | "jsonl";

const PAGE = 1_000;

/** The trials table's own columns (its facets aside), provenance included: none of them is a facet. */
export const OBSERVATION_COLUMNS: readonly string[] = columnNames([...OBSERVATION_CONTRACT, ...PROVENANCE_CONTRACT]);

/** Every column of the calls export: the call's own, the provenance, each registered auditor's, then the note. */
export function callColumns(): string[] {
  return columnNames(callsContract());
}

/** Per-trial aggregates of the per-call checks, appended to the trials export: the call count, then each auditor's. */
export function trialAuditColumns(): string[] {
  return columnNames(trialAuditContract());
}

/**
 * One tidy row. `score`, when given, replaces the run-time outcome, parse status and parsed answer
 * with that scorer's (null fields when the scorer did not score this trial); omitted = run-time.
 */
export function toObservation(trial: TrialRow, facets: string[], score?: ScoreRecord | null): Observation {
  const outcome = trial.outcome;
  const row: Observation = {
    run_id: trial.runId,
    trial_id: trial.id,
    model: trial.modelId,
    benchmark: trial.benchmarkId,
    item_id: trial.itemId,
    condition_hash: trial.conditionHash,
    attempt: trial.attempt,
    status: trial.status,
    outcome: outcome?.score ?? null,
    parse_status: outcome?.parseStatus ?? null,
    parsed_answer: outcome?.parsedAnswer ?? null,
    failure_bucket: outcome?.failureBucket ?? null,
    input_tokens: outcome?.usage.inputTokens ?? 0,
    output_tokens: outcome?.usage.outputTokens ?? 0,
    cost_usd: outcome?.costUsd ?? 0,
    latency_ms: outcome?.latencyMs ?? 0,
    dropped_params: outcome?.droppedParams.length ? outcome.droppedParams.map((d) => d.name).join(";") : null,
    simulated: outcome?.simulated ?? false,
    model_revision: outcome?.modelRevision ?? null,
  };
  if (score !== undefined) {
    row.outcome = score?.score ?? null;
    row.parse_status = score?.parseStatus ?? null;
    row.parsed_answer = score?.parsedAnswer ?? null;
  }
  for (const facet of facets) {
    const value = trial.condition[facet];
    row[facet] = value === undefined ? null : facetLabel(value);
  }
  return row;
}

function callRow(call: CallRecord, trial: TrialRow): Record<string, unknown> {
  return {
    trial_id: call.trialId,
    execution: call.execution,
    seq: call.seq,
    role: call.role,
    messages: call.messages,
    params_used: call.paramsUsed,
    dropped_params: call.droppedParams,
    response_text: call.responseText,
    finish_reason: call.finishReason ?? null,
    input_tokens: call.usage.inputTokens,
    output_tokens: call.usage.outputTokens,
    cost_usd: call.costUsd,
    latency_ms: call.latencyMs,
    cached: call.cached,
    error_bucket: call.error?.bucket ?? null,
    error_message: call.error?.message ?? null,
    started_at: call.startedAt,
    simulated: trial.outcome?.simulated ?? false,
    ...Object.assign({}, ...callAuditors().map((a) => a.callValues(checkOf(call, a.name)))),
    note: call.note ?? null,
  };
}

/** One stored check of a call (null when the call has no such check). */
function checkOf(call: Pick<CallRecord, "audit">, name: string): unknown {
  return call.audit?.[name] ?? null;
}

/** A trial's calls summarised: how much of the task reached its sub-calls on average. */
export function trialAuditAggregates(calls: readonly Pick<CallRecord, "audit">[]): Record<string, number | null> {
  const perAuditor = callAuditors().map((a) => a.trialValues(calls.map((c) => checkOf(c, a.name))));
  return Object.assign({ calls: calls.length }, ...perAuditor);
}

/** Which table of which run an export writes: its facet columns, and the scorer whose outcomes it reports. */
export interface ExportRequest {
  runId: string;
  facets: string[];
  table: ExportTable;
  scorer?: string;
}

/** Writes the table through `write` (a stream's write, or a collector in tests). */
export async function exportTable(
  store: TrialStore,
  request: ExportRequest & { format: ExportFormat },
  write: (chunk: string) => void,
): Promise<number> {
  const { runId, facets, table, format } = request;
  const columns = columnNames(table === "trials" ? trialsContract(facets) : callsContract());
  const run = await store.getRun(runId);
  if (!run) throw new Error(`no run ${runId} in the store`);
  const provenance = provenanceColumns(await studyProvenance(store, run));
  if (format === "csv") write(csvLine([...columns]));
  const emit = (row: Record<string, unknown>): void => {
    // Every column of the contract, in its order, in both formats: a missing value is a null.
    const values = columns.map((c) => row[c] ?? null);
    write(
      format === "csv"
        ? csvLine(values)
        : `${JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, values[i]])))}\n`,
    );
  };
  let rows = 0;
  for await (const page of trialPages(store, runId, { pageSize: PAGE })) {
    const scores = request.scorer === undefined ? undefined : await latestScores(store, runId, request.scorer, page);
    const callsOf = await store.listCallsOf(
      runId,
      page.map((t) => t.id),
    );
    for (const trial of page) {
      const calls = callsOf.get(trial.id) ?? [];
      if (table === "trials") {
        const audit = trialAuditAggregates(calls);
        const agent = agentColumnsOf(trial, calls);
        emit({
          ...toObservation(trial, facets, scores ? (scores.get(trial.id) ?? null) : undefined),
          ...provenance,
          ...agent,
          ...audit,
        });
        rows++;
      } else {
        for (const call of calls) {
          emit({ ...callRow(call, trial), ...provenance });
          rows++;
        }
      }
    }
  }
  return rows;
}

/** The most recent score of `scorer` (any version) for each trial of the page. */
export async function latestScores(
  store: TrialStore,
  runId: string,
  scorer: string,
  page: TrialRow[],
): Promise<Map<string, ScoreRecord>> {
  return (await latestScoresByScorer(store, runId, page, scorer)).get(scorer) ?? new Map();
}

/** The latest stored score of each trial of the page, per scorer (one scorer when named). */
export async function latestScoresByScorer(
  store: TrialStore,
  runId: string,
  page: TrialRow[],
  scorer?: string,
): Promise<Map<string, Map<string, ScoreRecord>>> {
  const records = await store.listScores(runId, { scorer, trialIds: page.map((t) => t.id) });
  const latest = new Map<string, Map<string, ScoreRecord>>();
  // Ordered by trial then created_at: the last one per (scorer, trial) wins.
  for (const record of records) {
    const byTrial = latest.get(record.scorer) ?? new Map<string, ScoreRecord>();
    byTrial.set(record.trialId, record);
    latest.set(record.scorer, byTrial);
  }
  return latest;
}
