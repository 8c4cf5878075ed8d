/**
 * The self-audit chronology of a study directory (Auditing the Audit, Box 1): read and checked
 * line by line, appended one validated entry at a time, summed up per Box 1's "chronology as a
 * whole", and looked up per cell so that reports cite entries beside the numbers they affect.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import {
  CHRONOLOGY_FIELDS,
  CHRONOLOGY_FILE,
  CHRONOLOGY_STATUSES,
  type Chronology,
  type ChronologyEntry,
  ChronologyEntrySchema,
  type ChronologyTotals,
} from "../../contracts/chronology.js";
import { InputError } from "../../core/errors.js";

export function chronologyPath(dir: string): string {
  return join(dir, CHRONOLOGY_FILE);
}

/** The chronology of a study directory; null when it has none. Any bad line is an InputError naming it. */
export function readChronology(dir: string): Chronology | null {
  const file = chronologyPath(dir);
  if (!existsSync(file)) return null;
  const entries = parseChronology(readFileSync(file, "utf8"), file);
  return { file, entries, totals: chronologyTotals(entries) };
}

/** Every non-blank line of a chronology.jsonl text as a checked entry; ids must be unique. */
export function parseChronology(text: string, file: string): ChronologyEntry[] {
  const entries: ChronologyEntry[] = [];
  const lineOf = new Map<string, number>();
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `${file} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InputError(`${where}: not a JSON object (${(error as Error).message})`);
    }
    const entry = checkChronologyEntry(value, where);
    const earlier = lineOf.get(entry.id);
    if (earlier !== undefined) throw new InputError(`${where}: id '${entry.id}' is already used on line ${earlier}`);
    lineOf.set(entry.id, index + 1);
    entries.push(entry);
  });
  return entries;
}

/** One entry checked against Box 1; the error names the field, its Box 1 number and what it must hold. */
export function checkChronologyEntry(value: unknown, where: string): ChronologyEntry {
  const parsed = ChronologyEntrySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new InputError(`${where}: ${parsed.error.issues.map((issue) => describeIssue(issue, value)).join("; ")}`);
}

/** What the entry holds at a path (undefined when absent). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (v, key) => (typeof v === "object" && v !== null ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    value,
  );
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  const path = issue.path.map(String);
  const key = path[0];
  const field = CHRONOLOGY_FIELDS.find((f) => f.key === key);
  const label = path.length === 0 ? "entry" : `field '${path.join(".")}'`;
  const box = field ? ` (Box 1 field ${field.box}: ${field.what})` : "";
  if (path.length > 0 && issue.code !== "custom" && valueAt(value, issue.path) === undefined)
    return `${label} is missing${box}`;
  if (issue.code === "unrecognized_keys")
    return `unknown field(s) ${issue.keys.map((k) => `'${k}'`).join(", ")}${path.length ? ` in '${path.join(".")}'` : ""} (the fields are ${CHRONOLOGY_FIELDS.map((f) => f.key).join(", ")})`;
  return `${label}: ${issue.message}${box}`;
}

/**
 * Appends one entry to DIR/chronology.jsonl after checking it and the file as it stands (a
 * hand edit that broke the file is reported before anything is added). Returns the new chronology.
 */
export function appendChronologyEntry(dir: string, value: unknown, source: string): Chronology {
  const file = chronologyPath(dir);
  const existing = existsSync(file) ? parseChronology(readFileSync(file, "utf8"), file) : [];
  const entry = checkChronologyEntry(value, source);
  if (existing.some((e) => e.id === entry.id))
    throw new InputError(`${source}: id '${entry.id}' is already in ${file}`);
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  appendFileSync(file, `${separator}${JSON.stringify(entry)}\n`);
  const entries = [...existing, entry];
  return { file, entries, totals: chronologyTotals(entries) };
}

/** Box 1's totals: entries, how many were repair-introduced, and which remain unfixed and why. */
export function chronologyTotals(entries: readonly ChronologyEntry[]): ChronologyTotals {
  const byStatus = Object.fromEntries(CHRONOLOGY_STATUSES.map((s) => [s, 0])) as ChronologyTotals["byStatus"];
  for (const e of entries) byStatus[e.status] += 1;
  return {
    entries: entries.length,
    repairIntroduced: entries.filter((e) => e.provenance === "repair-introduced").length,
    byStatus,
    unfixed: entries
      .filter((e) => e.status !== "FIXED")
      .map((e) => ({ id: e.id, status: e.status, reason: e.status_reason ?? "" })),
  };
}

/** The entries that name a (model, benchmark) cell among their affected cells, for citing beside it. */
export function chronologyEntriesFor(
  entries: readonly ChronologyEntry[],
  model: string,
  benchmark: string,
): ChronologyEntry[] {
  return entries.filter((e) => e.affected_cells.some((c) => c.model === model && c.benchmark === benchmark));
}

/** Box 1's totals in one line, as the summary and scorecard say them. */
export function chronologyLine(totals: ChronologyTotals): string {
  const unfixed =
    totals.unfixed.length === 0
      ? "none unfixed"
      : `unfixed: ${totals.unfixed.map((u) => `${u.id} (${u.status})`).join(", ")}`;
  return `${totals.entries} entr${totals.entries === 1 ? "y" : "ies"}, ${totals.repairIntroduced} repair-introduced, ${unfixed}`;
}
