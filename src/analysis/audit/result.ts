/**
 * The perturbation audit's result: its cells with G1-G6 and their statuses, App. E's threshold
 * sweep and Table 4's scorer-fidelity rows. Computed by audit-analysis.ts, written out by
 * gate-report.ts; its own module so that neither of the two imports the other's types.
 */
import type { AuditPlan } from "../../contracts/analysis/audit.js";
import type { GateThresholds, StatusBucket, SweepSetting } from "../../perturb/gate.js";
import type { AuditCell } from "./cells.js";

/** Table 4: the benchmark's reference scoring, the scorer used here and what validates it. */
export interface ScorerFidelityRow {
  benchmark: string;
  loader: string | null;
  path: string;
  reference: string;
  auditScorer: string;
  evidence: string;
  validated: boolean;
}

export interface AuditResult {
  plan: AuditPlan;
  thresholds: GateThresholds;
  cells: AuditCell[];
  counts: Partial<Record<StatusBucket, number>>;
  sweep: { settings: SweepSetting[]; notes: string[] };
  fidelity: ScorerFidelityRow[];
  notes: string[];
}
