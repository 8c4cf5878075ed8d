/**
 * `parallax audit log DIR [--add ENTRY]` and `parallax audit check DIR`: the study's self-audit
 * chronology (Auditing the Audit, Box 1). `log` appends one checked entry (a YAML or JSON file,
 * or `-` for standard input) and prints the chronology with its totals; `check` validates a
 * hand-edited chronology.jsonl.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import type { Chronology } from "../../contracts/chronology.js";
import { CHRONOLOGY_FILE } from "../../contracts/chronology.js";
import { appendChronologyEntry, chronologyLine, readChronology } from "../../analysis/core/chronology.js";
import { InputError } from "../../core/errors.js";

export interface AuditLogOptions {
  add?: string;
  json?: boolean;
}

function requireStudyDir(dir: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(`${dir}: no such study directory`);
}

function readEntry(source: string): unknown {
  const where = source === "-" ? "standard input" : source;
  let text: string;
  try {
    text = readFileSync(source === "-" ? 0 : source, "utf8");
  } catch {
    throw new InputError(`cannot read the chronology entry ${where}`);
  }
  try {
    return parseYaml(text);
  } catch (error) {
    throw new InputError(`${where}: not valid YAML/JSON (${(error as Error).message})`);
  }
}

function print(chronology: Chronology | null, dir: string, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(chronology ?? { file: null, entries: [], totals: null }, null, 2)}\n`);
    return;
  }
  if (!chronology) {
    process.stdout.write(`${dir}: no ${CHRONOLOGY_FILE} yet (add an entry with --add ENTRY.yaml)\n`);
    return;
  }
  const lines = [`${chronology.file}: ${chronologyLine(chronology.totals)}`];
  for (const e of chronology.entries) {
    lines.push(
      `  ${e.id} [${e.failure_class}] ${e.status} (${e.provenance}, found ${e.discovered.date}): ${e.symptom}`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

export async function auditLogCommand(dir: string, options: AuditLogOptions): Promise<void> {
  requireStudyDir(dir);
  const chronology =
    options.add === undefined
      ? readChronology(dir)
      : appendChronologyEntry(dir, readEntry(options.add), options.add === "-" ? "standard input" : options.add);
  print(chronology, dir, options.json);
}

export async function auditCheckCommand(dir: string): Promise<void> {
  requireStudyDir(dir);
  const chronology = readChronology(dir);
  if (!chronology) throw new InputError(`${dir}: no ${CHRONOLOGY_FILE} to check`);
  process.stdout.write(`${chronology.file}: valid; ${chronologyLine(chronology.totals)}\n`);
}
