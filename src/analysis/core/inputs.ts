/** The hashes of what an analysis read: the run (or table file), the analysed rows and the plan. */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { AnalysisInputs } from "../../contracts/analysis-record.js";
import { createHash } from "node:crypto";
import { canonicalJson, hashValue } from "../../core/hash.js";
import type { AnalysisTable } from "./table.js";
import { plainRow } from "./trial-columns.js";

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
  const json = rowJsonWriter();
  // The rows' JSON goes to the hash in chunks of many rows: one update per row cost more than hashing.
  let chunk = "";
  for (const [i, row] of table.rows.entries()) {
    chunk += i === 0 ? "" : ",";
    chunk += row === undefined ? "null" : json(plainRow(row) as unknown as Record<string, unknown>);
    if (chunk.length > HASH_CHUNK) {
      hasher.update(chunk);
      chunk = "";
    }
  }
  return hasher.update(chunk).update("]").digest("hex");
}

/** Characters of row JSON gathered before they are hashed. */
const HASH_CHUNK = 1 << 16;

/**
 * canonicalJson of a row (its keys sorted, undefined ones left out), its nested records memoised.
 * Rows share a few shapes: the sorted keys of the last shape seen are reused while the keys match.
 */
function rowJsonWriter(): (row: Record<string, unknown>) => string {
  const shared = new WeakMap<object, string>();
  let shape: string[] = [];
  let sorted: { key: string; quoted: string }[] = [];
  return (row) => {
    const keys = Object.keys(row);
    if (!sameKeys(keys, shape)) {
      shape = keys;
      sorted = [...keys].sort().map((key) => ({ key, quoted: JSON.stringify(key) }));
    }
    let out = "{";
    for (const { key, quoted } of sorted) {
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
      out += out.length === 1 ? `${quoted}:${json}` : `,${quoted}:${json}`;
    }
    return `${out}}`;
  };
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
