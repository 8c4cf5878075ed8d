import { InputError } from "../../core/errors.js";
import { importLogs } from "../../interop/import.js";
import { storeLabel } from "../../run/execute/run-study.js";
import { importedSimulated } from "../../run/export/provenance.js";
import { SIMULATED_NOTICE } from "../../analysis/core/scorecard.js";
import { DEFAULT_ZIP_LIMITS } from "../../interop/zip.js";

const MIB = 1024 * 1024;

export async function importCommand(
  format: string,
  paths: string[],
  options: {
    out?: string;
    store?: string;
    mapping?: string;
    json?: boolean;
    maxEntryMb?: number;
    maxInflatedMb?: number;
    split?: string;
  },
): Promise<void> {
  const target = options.store ?? options.out;
  if (!target) throw new InputError("give --out DIR (a new study directory) or --store postgres://...");
  const zipLimits = {
    entryBytes: (options.maxEntryMb ?? DEFAULT_ZIP_LIMITS.entryBytes / MIB) * MIB,
    totalBytes: (options.maxInflatedMb ?? DEFAULT_ZIP_LIMITS.totalBytes / MIB) * MIB,
  };
  const prepared = await importLogs({
    format,
    paths,
    target,
    mapping: options.mapping,
    zipLimits,
    split: options.split,
  });
  const simulated = prepared.completions.some((c) => c.outcome.simulated) || importedSimulated(prepared.run.imported);
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ runId: prepared.run.id, simulated, origins: prepared.run.imported?.origins ?? [], files: prepared.files, logs: prepared.logs, notes: prepared.notes }, null, 2)}\n`,
    );
    return;
  }
  const lines = [
    ...(simulated ? [`*** ${SIMULATED_NOTICE} ***`] : []),
    `imported ${prepared.trials.length} trials and ${prepared.scores} scores from ${prepared.logs.length} log(s) into ${storeLabel(target)} (run ${prepared.run.id})`,
    ...prepared.files.map((f) => `  ${f.read ? "read" : "skipped"} ${f.file}: ${f.why}`),
    ...prepared.logs.map(
      (l) =>
        `  ${l.file}: ${l.model} on ${l.benchmark}: ${l.trials} trials, ${l.scores} scores${
          l.declared !== undefined && l.declared !== l.trials ? ` (the results declare ${l.declared} samples)` : ""
        }`,
    ),
    ...prepared.notes.map((n) => `note: ${n}`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}
