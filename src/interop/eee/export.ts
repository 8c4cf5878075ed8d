/**
 * `parallax export DIR --format eee`: Every Eval Ever v0.3 records of a study. Per model, an
 * aggregate record (its rate per benchmark x configuration, the uncertainty block from
 * Parallax's own Wilson CIs: the stored analysis when it is current, else computed here) and the
 * instance-level records of its trials, laid out as EEE's repository does
 * (data/<study>/<developer>/<model>/<uuid>.json and <uuid>_samples.jsonl); beside them the
 * sidecar (sidecar.ts) with what EEE has no place for.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configurationOf, varyingFacets } from "../../analysis/core/data.js";
import { cellId, type RateCell, rateCells } from "../../analysis/every-study/rates.js";
import { ANALYSIS_FILE, type AnalysisRecord, storedAnalysis } from "../../analysis/core/record.js";
import { type AnalysisRow, clusterKey, loadStudyTable } from "../../analysis/core/table.js";
import type { CallRecord } from "../../contracts/trial.js";
import type { TrialRow } from "../../run/store/types.js";
import { InputError } from "../../core/errors.js";
import { sha256 } from "../../core/hash.js";
import { trialPages } from "../../run/store/pages.js";
import { isPostgresUrl } from "../../run/store/url.js";
import { studyProvenance } from "../../run/export/provenance.js";
import type { RunRecord, TrialStore } from "../../run/store/types.js";
import { COMPARED_MODELS, SUBJECT_FACET } from "../study.js";
import { aggregateRecord, instanceRecord, uuidOf } from "./records.js";
import { SIDECAR_FILE, SIDECAR_FORMAT, SIDECAR_VERSION, type Sidecar } from "./sidecar.js";

export interface EeeExportResult {
  files: string[];
  instances: number;
  aggregates: number;
  uncertaintySource: string;
}

interface ModelGroup {
  lines: string[];
  cells: Map<string, { cell: RateCell; params: CallRecord["paramsUsed"] | null; dropped: string[] }>;
}

export async function exportEee(
  /** The study (its folder or store) and its run. */
  source: { target: string; store: TrialStore; run: RunRecord },
  outDir: string,
  options: { scorer?: string; now?: Date } = {},
): Promise<EeeExportResult> {
  const { target, store, run } = source;
  const table = await loadStudyTable(store, run, target, options.scorer);
  const provenance = await studyProvenance(store, run);
  const varying = varyingFacets(table.rows, table.facets);
  const stored = await currentAnalysis(target, store, run, options.scorer);
  const cells = new Map<string, RateCell>();
  for (const cell of rateCells(table.rows, varying, table.facets[0], table.facetLevels)) cells.set(cell.id, cell);
  // The stored analysis's cells where they are the same cells (its CIs are the ones reported).
  for (const cell of stored?.analysis.rates ?? []) if (cells.has(cell.id)) cells.set(cell.id, cell);
  const uncertaintySource = stored ? `stored analysis ${ANALYSIS_FILE}` : "computed at export";
  const rowOf = new Map<string, AnalysisRow>(table.rows.map((r) => [r.trialId ?? "", r]));
  const groups = new Map<string, ModelGroup>();
  const instances: Sidecar["instances"] = [];
  const results: Sidecar["evaluation_results"] = {};
  const conditions: Sidecar["conditions"] = {};
  const evaluationIdOf = (model: string) => `parallax/${run.study}/${model}/${run.id}`;
  for await (const page of trialPages(store, run.id, { pageSize: 1_000 })) {
    const callsOf = await store.listCallsOf(
      run.id,
      page.map((t) => t.id),
    );
    for (const trial of page) {
      const row = rowOf.get(trial.id);
      if (!row) continue; // pending
      const model = eeeModel(trial, row);
      const configuration = configurationOf(row, varying);
      const cell = cells.get(cellId(row.model, row.benchmark, configuration));
      if (!cell) throw new Error(`no rate cell for trial ${trial.id}`);
      const calls = callsOf.get(trial.id) ?? [];
      const group: ModelGroup = groups.get(model) ?? { lines: [], cells: new Map() };
      if (!group.cells.has(cell.id))
        group.cells.set(cell.id, {
          cell,
          params: calls[0]?.paramsUsed ?? null,
          dropped: trial.outcome?.droppedParams.map((d) => d.name) ?? [],
        });
      const record = instanceRecord(trial, calls, {
        evaluationId: evaluationIdOf(model),
        evaluationResultId: cell.id,
        model,
        configuration,
        outcome: row.outcome,
        parsedAnswer: row.answer ?? null,
        scorer: row.scorer ?? trial.outcome?.scorer ?? null,
        simulated: trial.outcome?.simulated ?? false,
      });
      group.lines.push(JSON.stringify(record));
      groups.set(model, group);
      conditions[trial.conditionHash] = Object.fromEntries(table.facets.map((f) => [f, row.facets[f]]));
      results[cell.id] = { model, benchmark: trial.benchmarkId, configuration };
      instances.push({
        evaluation_id: evaluationIdOf(model),
        evaluation_result_id: cell.id,
        sample_id: trial.itemId,
        attempt: trial.attempt,
        trial_id: trial.id,
        condition_hash: trial.conditionHash,
        cluster: clusterKey(trial.benchmarkId, trial.itemId).replace("\u0000", "/"),
      });
    }
  }
  if (groups.size === 0) throw new InputError(`${target}: no finished or errored trials to export`);
  const files: string[] = [];
  const retrievedAt = (options.now ?? new Date()).toISOString();
  for (const [model, group] of groups) {
    const evaluationId = evaluationIdOf(model);
    const uuid = uuidOf(evaluationId);
    const [developer, name] = model.includes("/")
      ? [model.split("/")[0], model.split("/").slice(1).join("/")]
      : ["unknown", model];
    const rel = ["data", slug(run.study), slug(developer), slug(name)].join("/");
    mkdirSync(join(outDir, rel), { recursive: true });
    const samplesText = `${group.lines.join("\n")}\n`;
    const samplesPath = `${rel}/${uuid}_samples.jsonl`;
    writeFileSync(join(outDir, samplesPath), samplesText);
    const aggregate = aggregateRecord({
      evaluationId,
      model,
      provider: run.spec.models.find((m) => m.id === model)?.provider ?? run.spec.models[0]?.provider ?? "unknown",
      provenance,
      createdAt: run.createdAt,
      retrievedAt,
      results: [...group.cells.values()].map((c) => ({ ...c, source: sourceOf(run, c.cell.benchmark) })),
      uncertaintySource,
      samples: { filePath: samplesPath, checksum: sha256(samplesText), rows: group.lines.length },
    });
    const aggregatePath = `${rel}/${uuid}.json`;
    writeFileSync(join(outDir, aggregatePath), `${JSON.stringify(aggregate, null, 2)}\n`);
    files.push(join(outDir, aggregatePath), join(outDir, samplesPath));
  }
  const sidecar: Sidecar = {
    format: SIDECAR_FORMAT,
    version: SIDECAR_VERSION,
    study: run.study,
    run_id: run.id,
    provenance,
    facets: table.facets,
    conditions,
    evaluation_results: results,
    instances,
    uncertainty: { source: uncertaintySource, interval: "Wilson score, 95%", population: "ITT" },
    contrasts: stored
      ? { population: stored.analysis.contrasts, paired: stored.analysis.paired, pairwise: stored.analysis.pairwise }
      : null,
    ...(stored
      ? {}
      : {
          note: `no current ${ANALYSIS_FILE}: run 'parallax analyze ${target}' before exporting to include the contrasts`,
        }),
  };
  writeFileSync(join(outDir, SIDECAR_FILE), `${JSON.stringify(sidecar, null, 2)}\n`);
  files.push(join(outDir, SIDECAR_FILE));
  return { files, instances: instances.length, aggregates: groups.size, uncertaintySource };
}

/** The stored analysis when it is of this run, current, and of the same scorer; else null. */
async function currentAnalysis(
  target: string,
  store: TrialStore,
  run: RunRecord,
  scorer: string | undefined,
): Promise<AnalysisRecord | null> {
  if (isPostgresUrl(target)) return null;
  try {
    const record = await storedAnalysis(target, store, run);
    return (record.inputs.scorer ?? undefined) === scorer ? record : null;
  } catch (error) {
    if (error instanceof InputError) return null;
    throw error;
  }
}

/** The model EEE names: the compared model (facet `subject`) of an import that compares models. */
function eeeModel(trial: TrialRow, row: AnalysisRow): string {
  return trial.modelId === COMPARED_MODELS && row.facets[SUBJECT_FACET] ? row.facets[SUBJECT_FACET] : trial.modelId;
}

function sourceOf(run: RunRecord, benchmark: string): string {
  const spec = run.spec.benchmarks.find((b) => b.id === benchmark);
  return spec ? `${spec.loader}${spec.source ? `: ${spec.source}` : ""}` : "unknown";
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "_") || "_";
}
