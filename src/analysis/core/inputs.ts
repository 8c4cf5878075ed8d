/** The hashes of what an analysis read: the run (or table file), the analysed rows and the plan. */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { AnalysisInputs } from "../../contracts/analysis-record.js";
import { hashValue } from "../../core/hash.js";
import type { AnalysisTable } from "./table.js";

export type { AnalysisInputs } from "../../contracts/analysis-record.js";

type SourceFacts =
  | { kind: "study"; runId: string; specHash: string; manifestHash: string }
  | { kind: "table"; fileHash: string };

export function inputsOf(table: AnalysisTable, plan: AnalysisPlan, source: SourceFacts): AnalysisInputs {
  return {
    kind: source.kind,
    runId: source.kind === "study" ? source.runId : null,
    specHash: source.kind === "study" ? source.specHash : null,
    manifestHash: source.kind === "study" ? source.manifestHash : null,
    fileHash: source.kind === "table" ? source.fileHash : null,
    rows: rowsHash(table),
    plan: hashValue(plan),
    scorer: table.source.scorer,
  };
}

/** SHA-256 of the analysed rows: any changed outcome, new trial or rescoring changes it. */
export function rowsHash(table: AnalysisTable): string {
  return hashValue(table.rows);
}
