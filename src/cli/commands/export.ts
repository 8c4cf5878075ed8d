import { refuseUnscoredScorer } from "../../run/export/scorer-check.js";
import { InputError } from "../../core/errors.js";
import { ensureDirectory, onFileSystem, openOutputStream, prepareOutputFile } from "../../core/output-files.js";
import { conditionColumns } from "../../facets/registry.js";
import { type ExportFormat, type ExportTable, exportTable } from "../../run/export/export.js";
import { openStudyDir } from "../study-dir.js";

const FORMATS = ["csv", "jsonl", "parquet", "eee"];

export async function exportCommand(
  dir: string,
  options: { table: string; format: string; output?: string; scorer?: string },
): Promise<void> {
  if (options.table !== "trials" && options.table !== "calls") {
    throw new InputError(`--table must be trials or calls, found '${options.table}'`);
  }
  if (!FORMATS.includes(options.format)) {
    throw new InputError(`--format must be ${FORMATS.join(", ")}; found '${options.format}'`);
  }
  if ((options.format === "parquet" || options.format === "eee") && !options.output) {
    throw new InputError(
      `--format ${options.format} needs --output (${options.format === "eee" ? "a directory" : "a .parquet file"})`,
    );
  }
  // The output's folders are created (as run, report and preregister do); a path that cannot be
  // written is refused in one line before the store is read.
  if (options.output && options.format === "eee") ensureDirectory(options.output, "export directory");
  else if (options.output) prepareOutputFile(options.output, "export file");
  const { store, run } = await openStudyDir(dir);
  if (options.scorer !== undefined) {
    try {
      await refuseUnscoredScorer(store, run.id, options.scorer, dir);
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  const facets = conditionColumns(run.spec.conditions);
  if (options.format === "parquet" || options.format === "eee") {
    try {
      if (options.format === "parquet") {
        const { exportParquet } = await import("../../run/export/parquet.js");
        const rows = await onFileSystem("write export file", options.output!, () =>
          exportParquet(
            store,
            { runId: run.id, facets, table: options.table as ExportTable, scorer: options.scorer },
            options.output!,
          ),
        );
        process.stderr.write(`wrote ${rows} rows to ${options.output}\n`);
      } else {
        const { exportEee } = await import("../../interop/eee/export.js");
        const result = await exportEee({ target: dir, store, run }, options.output!, { scorer: options.scorer });
        process.stderr.write(
          `wrote ${result.aggregates} EEE aggregate record(s) and ${result.instances} instance records to ${options.output} (uncertainty: ${result.uncertaintySource}; sidecar parallax-sidecar.json)\n`,
        );
      }
    } finally {
      await store.close();
    }
    return;
  }
  const file = options.output ? await openOutputStream(options.output, "export file") : undefined;
  const out = file?.stream ?? process.stdout;
  try {
    const exported = exportTable(
      store,
      {
        runId: run.id,
        facets,
        table: options.table as ExportTable,
        format: options.format as ExportFormat,
        scorer: options.scorer,
      },
      (chunk) => out.write(chunk),
    );
    await (file ? Promise.race([exported, file.failed]) : exported);
  } finally {
    await store.close();
  }
  await file?.close();
}
