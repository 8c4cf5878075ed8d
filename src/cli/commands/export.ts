import { refuseUnscoredScorer } from "../../run/scorer-check.js";
import { createWriteStream } from "node:fs";
import { InputError } from "../../core/errors.js";
import { conditionColumns } from "../../facets/registry.js";
import { type ExportFormat, type ExportTable, exportTable } from "../../run/export.js";
import { openStudyDir } from "../study-dir.js";

export async function exportCommand(
  dir: string,
  options: { table: string; format: string; output?: string; scorer?: string },
): Promise<void> {
  if (options.table !== "trials" && options.table !== "calls") {
    throw new InputError(`--table must be trials or calls, found '${options.table}'`);
  }
  if (options.format !== "csv" && options.format !== "jsonl") {
    throw new InputError(`--format must be csv or jsonl, found '${options.format}'`);
  }
  const { store, run } = await openStudyDir(dir);
  if (options.scorer !== undefined) {
    try {
      await refuseUnscoredScorer(store, run.id, options.scorer, dir);
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  const out = options.output ? createWriteStream(options.output) : process.stdout;
  try {
    const facets = conditionColumns(run.spec.conditions);
    await exportTable(
      store,
      run.id,
      facets,
      options.table as ExportTable,
      options.format as ExportFormat,
      (chunk) => out.write(chunk),
      { scorer: options.scorer },
    );
  } finally {
    await store.close();
    if (out !== process.stdout) await new Promise<void>((resolve) => out.end(resolve));
  }
}
