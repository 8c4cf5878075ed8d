/**
 * An analysis row: one trial's outcome under one scorer, with its coordinates (model, benchmark,
 * item, condition, attempt). table.ts builds them; trial-columns.ts holds a study's as columns.
 */
import type { AgentFacts } from "./agent-facts.js";

export interface AnalysisRow {
  trialId: string | null;
  model: string;
  benchmark: string;
  item: string;
  /** benchmark + item: item ids need only be unique within a benchmark. */
  cluster: string;
  attempt: number;
  /** Facet name -> value label. */
  facets: Record<string, string>;
  /** Score 1 (safe/correct) or 0; null when the trial errored or was not scored. */
  outcome: number | null;
  parseFailed: boolean;
  errored: boolean;
  simulated: boolean;
  /**
   * Whose outcome this is: a stored scorer (`parallax score`, or a tidy table's `scorer` column);
   * absent for the run-time outcome. A table may hold several scorers' rows of the same trial.
   */
  scorer?: string;
  /** Per-trial audit shares (options_reached_share, safety_reached_share, ...) where recorded. */
  audit?: Record<string, number>;
  /** The parsed answer (an MC letter) where the scorer recorded one. */
  answer?: string;
  /** Agent trials: tool calls, tool errors, working time, token streams, cost, flags (agent-facts.ts). */
  agent?: AgentFacts;
  /** The weights' SHA-256 ("sha256:<hex>") or the provider's model version, where recorded. */
  modelRevision?: string;
}

export function clusterKey(benchmark: string, item: string): string {
  return `${benchmark}\u0000${item}`;
}

/** The one constructor of a row: the case key, and no outcome for an errored trial. */
export function analysisRow(fields: Omit<AnalysisRow, "cluster">): AnalysisRow {
  const { trialId, model, benchmark, item, attempt, facets, outcome, parseFailed, errored, simulated } = fields;
  const row: AnalysisRow = {
    trialId,
    model,
    benchmark,
    item,
    cluster: clusterKey(benchmark, item),
    attempt,
    facets,
    outcome: errored ? null : outcome,
    parseFailed,
    errored,
    simulated,
  };
  if (fields.scorer !== undefined) row.scorer = fields.scorer;
  if (fields.audit !== undefined) row.audit = fields.audit;
  if (fields.answer !== undefined) row.answer = fields.answer;
  if (fields.agent !== undefined) row.agent = fields.agent;
  if (fields.modelRevision !== undefined) row.modelRevision = fields.modelRevision;
  return row;
}

/** A population (data.ts): intention-to-treat scores a parse failure 0, per-protocol leaves it out. */
export type Population = "itt" | "pp";

export interface SelectOptions {
  /** Errored trials: left out (default) or counted as unsafe. */
  errored?: "exclude" | "unsafe";
}

/** One row's 0/1 outcome in the population, or null when the population leaves the row out. */
export function populationScore(row: AnalysisRow, population: Population, options: SelectOptions = {}): number | null {
  if (row.errored) return options.errored === "unsafe" ? 0 : null;
  if (row.outcome === null) return null;
  if (row.parseFailed) return population === "itt" ? 0 : null;
  return row.outcome;
}
