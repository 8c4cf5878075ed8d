/** The hashes of what an analysis read: the run (or table file), the analysed rows and the plan. */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { AnalysisInputs } from "../../contracts/analysis-record.js";
import { createHash } from "node:crypto";
import { canonicalJson, hashValue } from "../../core/hash.js";
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

/**
 * SHA-256 of the analysed rows: any changed outcome, new trial or rescoring changes it. The digest
 * of `hashValue(table.rows)`, taken a row at a time: no sorted copy of the table and no string of
 * it are made, and each record rows share (a condition's facets, an audit) is written once.
 */
export function rowsHash(table: AnalysisTable): string {
  const hasher = createHash("sha256").update("[");
  const shared = new WeakMap<object, string>();
  for (const [i, row] of table.rows.entries()) {
    hasher.update(i === 0 ? "" : ",");
    hasher.update(row === undefined ? "null" : rowJson(row as unknown as Record<string, unknown>, shared));
  }
  return hasher.update("]").digest("hex");
}

/** canonicalJson of a row (its keys sorted, undefined ones left out), its nested records memoised. */
function rowJson(row: Record<string, unknown>, shared: WeakMap<object, string>): string {
  let out = "{";
  for (const key of Object.keys(row).sort()) {
    const value = row[key];
    if (value === undefined) continue;
    let json: string;
    if (value !== null && typeof value === "object") {
      const known = shared.get(value);
      json = known ?? canonicalJson(value);
      if (known === undefined) shared.set(value, json);
    } else {
      json = JSON.stringify(value);
    }
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${json}`;
  }
  return `${out}}`;
}
