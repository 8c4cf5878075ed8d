/**
 * Analysis of a study directory (store, spec, manifest, stamp, blinding and agreement files) or
 * of an imported tidy table: the I/O around analyzeStudy, and the methodology facts the
 * scorecard's stamp reports.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { StudySpec } from "../../contracts/spec.js";
import type { StudyKind } from "../../contracts/study-kind.js";
import { InputError } from "../../core/errors.js";
import { sha256 } from "../../core/hash.js";
import type { RunRecord, TrialStore } from "../../run/store/types.js";
import type { ItemManifest } from "../../run/prepare/study.js";
import { type Methodology, readBlinding, readJudgeAgreement } from "./methodology.js";
import { integrityFactsReader } from "./integrity-facts.js";
import { readChronology } from "./chronology.js";
import { normalizePlan } from "./plan.js";
import { checkAgainstStamp, parseStamp, STAMP_FILE } from "./preregistration.js";
import { type AnalyzeOptions, analyzeStudy, type StudyAnalysis } from "./study.js";
import { type AnalysisInputs, inputsOf } from "./inputs.js";
import { checkGridRules } from "../../run/prepare/grid-rules.js";
import { recordedStudy, releaseRecordedStudy } from "./recorded-study.js";
import { readLooks } from "../../run/sequential/run-looks.js";
import { applySequentialVerdicts } from "../every-study/sequential-verdicts.js";
import type { RecordedFamilies } from "./families.js";
import {
  type AnalysisTable,
  clusterKey,
  type ItemFacts,
  loadScoredStudyTable,
  readTidyTable,
  selectScorer,
} from "./table.js";

export interface AnalysisOutcome {
  analysis: StudyAnalysis;
  methodology: Methodology;
  /** The analysed table: one scorer's outcomes. */
  table: AnalysisTable;
  /** What the result was computed from, by hash (stored in analysis.json). */
  inputs: AnalysisInputs;
}

export interface DirectoryOptions extends AnalyzeOptions {
  /** A plan given at analysis time replaces the spec's (and is a deviation from a stamp). */
  plan?: AnalysisPlan;
  /** Compare different item sets as independent samples (`analyze --unpaired`): a deviation like --plan. */
  unpaired?: boolean;
}

/** The plan given, else the stored one, with `--unpaired` applied. */
function planOf(options: DirectoryOptions, stored: unknown): AnalysisPlan {
  const plan = options.plan ?? normalizePlan(stored as Parameters<typeof normalizePlan>[0]);
  return options.unpaired ? { ...plan, comparability: "unpaired" } : plan;
}

/** Whether the plan used differs from the stored one (a deviation from a stamp). */
function planOverridden(options: DirectoryOptions, stored: unknown): boolean {
  return options.plan !== undefined || (options.unpaired === true && planOf({}, stored).comparability !== "unpaired");
}

export async function analyzeDirectory(
  dir: string,
  store: TrialStore,
  run: RunRecord,
  options: DirectoryOptions = {},
): Promise<AnalysisOutcome> {
  // The integrity facts are gathered from the table's own read of the trials.
  const integrity = integrityFactsReader(dir, store, run);
  const loaded = await loadScoredStudyTable(store, run, dir, { onTrials: (trials) => integrity.add(trials) });
  if (loaded.rows.length === 0) throw new InputError(`${dir}: no finished or errored trials to analyse yet`);
  // Read first: a broken chronology is refused before the analysis runs.
  const chronology = readChronology(dir);
  const all = { ...loaded, ...(await studyItemFacts(dir, store, run)) };
  const table = selectScorer(all, options.scorer);
  const plan = planOf(options, run.spec.analysis);
  const judges = { blinding: readBlinding(dir), agreement: readJudgeAgreement(dir) };
  const integrityFacts = await integrity.facts();
  // The last reader of the recorded study: what the analyses need of it is in the facts now.
  releaseRecordedStudy();
  const sequential = await readLooks(store, run.id);
  const measures = await benchmarkMeasures(run.spec);
  const cfrNotApplicable = await benchmarksWithoutThreshold(run.spec);
  const kinds = declaredKinds(run.spec);
  const families = recordedFamilies(dir);
  const analysis = await analyzeStudy(all, plan, {
    ...options,
    ...(families ? { families } : {}),
    judges,
    integrityFacts,
    measures,
    cfrNotApplicable,
    ...(kinds ? { kinds } : {}),
  });
  attachGridRules(analysis, dir);
  if (sequential.length > 0) applySequentialVerdicts(analysis, sequential);
  return {
    inputs: inputsOf(table, plan, {
      kind: "study",
      runId: run.id,
      specHash: run.specHash,
      manifestHash: run.manifestHash,
    }),
    analysis,
    methodology: {
      preregistration: preregistrationOf(dir, {
        run,
        table,
        plan,
        planOverride: planOverridden(options, run.spec.analysis),
        analyzedAt: analysis.meta.analyzedAt,
      }),
      blinding: judges.blinding,
      judgeAgreement: judges.agreement,
      chronology,
      ...(sequential.length > 0 ? { sequential } : {}),
    },
    table,
  };
}

/** The families the run's manifest records (a spec with `families`), if any. */
function recordedFamilies(dir: string): RecordedFamilies | undefined {
  const path = join(dir, "manifest.json");
  if (!existsSync(path)) return undefined;
  const manifest = JSON.parse(readFileSync(path, "utf8")) as { families?: RecordedFamilies };
  return manifest.families;
}

/** The kinds the spec declares (`kind` or `kinds`), if any. */
function declaredKinds(spec: StudySpec): StudyKind[] | undefined {
  return spec.kinds ?? (spec.kind ? [spec.kind] : undefined);
}

/** The envelope rules file hashed again against the run's stamp (a changed file is refused). */
function attachGridRules(analysis: StudyAnalysis, dir: string): void {
  const rules = checkGridRules(dir);
  if (!rules || !analysis.grid || "skipped" in analysis.grid) return;
  analysis.grid.rules = rules;
}

/**
 * The run's items as its store records them, their metadata by case, for the analyses that need
 * it (BBQ bias score, H3 sub-hypotheses, the agents' levels). An imported run has none.
 */
async function studyItemFacts(dir: string, store: TrialStore, run: RunRecord): Promise<{ items?: ItemFacts }> {
  const study = await recordedStudy(dir, store, run);
  if ("unavailable" in study) return {};
  const items: ItemFacts = new Map();
  for (const [benchmark, byId] of study.items)
    for (const [id, item] of byId) items.set(clusterKey(benchmark, id), item.metadata);
  return { items };
}

export async function analyzeTableFile(path: string, options: DirectoryOptions = {}): Promise<AnalysisOutcome> {
  const all = readTidyTable(path);
  const table = selectScorer(all, options.scorer);
  const plan = planOf(options, undefined);
  const analysis = await analyzeStudy(all, plan, options);
  const imported = "imported table: no study directory to check";
  return {
    inputs: inputsOf(table, plan, { kind: "table", fileHash: sha256(readFileSync(path, "utf8")) }),
    analysis,
    methodology: {
      preregistration: { status: "not preregistered", note: imported },
      blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: `unknown (${imported})` },
      judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: `unknown (${imported})` },
    },
    table,
  };
}

/** Benchmark id -> what its loader says it measures (safety or capability); loaders that do not say are left out. */
export async function benchmarkMeasures(spec: StudySpec): Promise<Record<string, "safety" | "capability">> {
  // Loaded on demand: only a study directory's analysis reads the loaders' meta.
  const { datasetLoaders } = await import("../../datasets/registry.js");
  const out: Record<string, "safety" | "capability"> = {};
  for (const b of spec.benchmarks) {
    const measures = datasetLoaders.has(b.loader) ? datasetLoaders.get(b.loader).meta.measures : undefined;
    if (measures) out[b.id] = measures;
  }
  return out;
}

/** Benchmark id -> why no pass/fail threshold applies to its score (its loader's meta.noPassThreshold). */
export async function benchmarksWithoutThreshold(spec: StudySpec): Promise<Record<string, string>> {
  const { datasetLoaders } = await import("../../datasets/registry.js");
  const out: Record<string, string> = {};
  for (const b of spec.benchmarks) {
    const reason = datasetLoaders.has(b.loader) ? datasetLoaders.get(b.loader).meta.noPassThreshold : undefined;
    if (reason) out[b.id] = reason;
  }
  return out;
}

/** What an analysis is checked against its pre-registration stamp with. */
interface AnalysisUnderStamp {
  run: RunRecord;
  table: AnalysisTable;
  plan: AnalysisPlan;
  /** The plan came from `analyze --plan` instead of the spec. */
  planOverride: boolean;
  analyzedAt: string;
}

function preregistrationOf(dir: string, analysis: AnalysisUnderStamp): Methodology["preregistration"] {
  const { run, table, plan, planOverride, analyzedAt } = analysis;
  const stampPath = join(dir, STAMP_FILE);
  if (!existsSync(stampPath)) {
    return { status: "not preregistered", note: `no ${STAMP_FILE} (parallax preregister SPEC --out ${dir})` };
  }
  let stamp: ReturnType<typeof parseStamp>;
  try {
    stamp = parseStamp(readFileSync(stampPath, "utf8"), stampPath);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  const manifestPath = join(dir, "manifest.json");
  const manifest = existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, "utf8")) as ItemManifest) : null;
  return checkAgainstStamp(stamp, {
    spec: run.spec,
    manifest,
    planUsed: plan,
    planOverride,
    runCreatedAt: run.createdAt,
    firstFinishedAt: table.source.firstFinishedAt,
    analyzedAt,
  });
}
