/**
 * The analysis registry: every study analysis (rates, contrasts, hypotheses, format, ...) is one
 * `*-analysis.ts` file, in the folder of its study kind (comparison/, grid/, audit/, agents/), in
 * conditions/ when the comparison and the grid both run it, or in every-study/ and integrity/
 * when every study runs it, that registers
 * its name, the part of the plan it reads, its function, its lines in the text summary, its
 * scorecard fields and any files of its own. all-analyses.ts imports them in order.
 * `analyzeStudy`, `formatSummary`, `buildScorecard` and `writeAnalysisRecord` iterate the
 * registry, so a new study kind adds files instead of editing them. Its result type joins
 * `StudyAnalysis` by augmenting `AnalysisResults`:
 *
 *   declare module "../core/registry.js" { interface AnalysisResults { grid: GridResult } }
 *
 * Report sections live in the report layer (src/report/sections/), keyed by the analysis name,
 * because this layer may not import the one that renders.
 */
import type { z } from "zod";
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { StudyKind } from "../../contracts/study-kind.js";
import type { GlmSetup } from "./contrast-model.js";
import type { FamilyResult } from "./families.js";
import type { Population, ScoredRow } from "./data.js";
import type { Methodology } from "./methodology.js";
import type { IntegrityFacts, JudgeFacts, VerdictGate } from "../integrity/registry.js";
import type { ResolvedPlan } from "./plan.js";
import type { AnalysisRow, AnalysisTable, ItemFacts, TableSource } from "./table.js";

/** An optional part of the analysis that did not apply to this table, and why. */
export type Skipped = { skipped: string };

/** Result key -> result type; each registered analysis adds its key (declaration merging). */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the analyses' module augmentations
export interface AnalysisResults {}
export type ResultKey = keyof AnalysisResults;

/** Scorecard field -> its type; each analysis with a scorecard field adds its key. */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the analyses' module augmentations
export interface ScorecardFields {}
export type CardFieldKey = keyof ScorecardFields;

/** An analysis the study's kinds or its plan and data left out, and why, in one line. */
export interface LeftOut {
  analysis: string;
  reason: string;
}

/**
 * Which analyses ran: the study's kinds (declared in the spec or read from its design) and the
 * registered analyses left out. A left-out analysis has no field in the result.
 */
export interface AnalysisSelection {
  kinds: StudyKind[];
  /** Where the kinds come from: the spec's `kind`/`kinds`, or the design of the analysed rows. */
  kindsFrom: "spec" | "design";
  /** Why each kind applies (design) or "declared in the spec". */
  kindReasons: Partial<Record<StudyKind, string>>;
  leftOut: LeftOut[];
}

/**
 * Every analysis of the plan on one table: the study facts plus one field per registered analysis
 * that ran (those `meta.selection.leftOut` names are absent).
 */
export interface StudyAnalysis extends AnalysisResults {
  meta: {
    parallaxVersion: string;
    analyzedAt: string;
    source: TableSource;
    simulated: boolean;
    plan: AnalysisPlan;
    comparisonFacet: string;
    reference: string;
    levels: string[];
    restrict: Record<string, string>;
    /** Facets that vary in the analysed rows; a configuration is one combination of their values. */
    configurationFacets: string[];
    primaryPopulation: Population;
    notes: string[];
    /**
     * What each benchmark's outcome is a rate of, from its loader's meta (`measures`): safety
     * (a safety rate) or capability (accuracy). Absent (imported tables, older records): accuracy.
     */
    measures?: Record<string, "safety" | "capability">;
    /** The study's kinds and the analyses left out (absent in records written before kinds). */
    selection?: AnalysisSelection;
  };
  /**
   * With study families only: the primary family (the rows every other field analyses) and the
   * other families, each analysed apart.
   */
  families?: { primary: string | null; others: FamilyResult[] };
  counts: {
    rows: number;
    analysed: number;
    errored: number;
    parseFailures: number;
    unscored: number;
    pending: number;
    clusters: number;
    models: string[];
    benchmarks: string[];
  };
}

/** The scorecard's fixed header; the registered card fields follow it. */
export interface ScorecardHeader {
  title: string;
  /** The study's kinds (absent in records written before kinds). */
  kinds?: StudyKind[];
  simulated: boolean;
  notice: string | null;
  study: string | null;
  runId: string | null;
  source: string;
  analyzedAt: string;
  population: Population;
  comparison: { facet: string; reference: string; restrict: Record<string, string> };
  /** With study families only: the primary family (the card's sections) and the others, analysed apart. */
  families?: { primary: string | null; others: ScorecardFamily[] };
}

/** A family other than the primary, as the scorecard lists it after the primary family's sections. */
export interface ScorecardFamily {
  name: string;
  role: string;
  reference: string;
  correction: string;
  margin: number;
  omnibus: { df: number; chi2: number; p: number } | null;
  contrasts: {
    condition: string;
    rd: number | null;
    ci95: [number, number] | null;
    pAdjusted: number | null;
    verdict: string;
  }[];
  /** A control: whether it is stable (control-check.ts: no pooled contrast, omnibus test or cell moved). */
  controlStable?: boolean;
  /** A control: the control check's verdict and the tests behind it, in one line. */
  controlReading?: string;
}

/** What a registered analysis reads: the analysed rows, the plan and earlier analyses' results. */
export interface AnalysisContext {
  table: AnalysisTable;
  plan: AnalysisPlan;
  resolved: ResolvedPlan;
  /** The reference's restriction applied, the comparison levels present. */
  rows: AnalysisRow[];
  /** Both populations of `rows`; `main` is the primary one. */
  scored: Record<Population, readonly ScoredRow[]>;
  main: readonly ScoredRow[];
  setup: GlmSetup;
  configurationFacets: string[];
  benchmarks: string[];
  /** Results of the analyses registered before this one. */
  results: Partial<AnalysisResults>;
  /** The judges' agreement and blinding when a study directory records them. */
  judges?: JudgeFacts;
  /** What a study directory adds for the integrity checks (the items' gold letters as formatted). */
  integrityFacts?: IntegrityFacts;
  /** Item metadata by case, when known (BBQ's context condition and answer roles, ...). */
  items?: ItemFacts;
  /** The table as given, with every stored scorer's rows (the specification curve's `scorer` dimension). */
  input?: AnalysisTable;
  /** Benchmark id -> why no pass/fail threshold applies (loader meta.noPassThreshold): CFR is N/A there. */
  cfrNotApplicable?: Record<string, string>;
  /** With study families: every family but the primary, with its rows (analyses reach outside `rows` only here). */
  otherFamilies?: { name: string; rows: AnalysisRow[] }[];
}

/** The study's computed results and the study-directory facts, as the presentations read them. */
export interface PresentedAnalysis {
  analysis: StudyAnalysis;
  methodology: Methodology;
}

/** One scorecard field: built from the analysis, rendered as a numbered Markdown section. */
export interface CardField<K extends CardFieldKey = CardFieldKey> {
  field: K;
  /** Section title in scorecard.md and the report ("Safety rate matrix"). */
  title: string;
  /** The title as this card's value words it ("Accuracy matrix" for capability benchmarks); default `title`. */
  heading?(value: ScorecardFields[K]): string;
  /** A header section above the numbered fields (measurement integrity), not one of them. */
  unnumbered?: boolean;
  build(input: PresentedAnalysis): ScorecardFields[K];
  markdown(value: ScorecardFields[K], header: ScorecardHeader): string[];
}

export interface RegisteredAnalysis<K extends ResultKey = ResultKey> {
  name: string;
  /** The study kinds it belongs to; `every` for what every study gets (integrity, methodology). */
  kinds: readonly StudyKind[] | "every";
  /**
   * What it needs from the plan and the data beyond its kinds: the reason it does not apply to
   * this study (one line), or null when it runs.
   */
  needs?(context: AnalysisContext): string | null;
  /** The part of the analysis plan it reads, with its defaults (a pick of AnalysisPlanSchema). */
  plan: z.ZodType;
  /** The StudyAnalysis field it fills; absent for presentation-only entries (methodology). */
  result?: K;
  run?(context: AnalysisContext): AnalysisResults[K] | Promise<AnalysisResults[K]>;
  /**
   * Instead of `run`, for an analysis that goes on working on worker threads: resolves once that
   * work is started, with the promise of its result, so the later analyses run meanwhile (none of
   * them may read this result; analyzeStudy awaits it before the integrity gate, and it keeps its
   * place among the results).
   */
  start?(context: AnalysisContext): Promise<{ result: Promise<AnalysisResults[K]> }>;
  /**
   * With `start`: the results it reads. It is started as soon as they are in, before its turn, so
   * its worker threads overlap more of the analyses between (its kinds and `needs` are read then).
   */
  startsAfter?: readonly ResultKey[];
  /** Its lines in `parallax analyze --full`'s text summary (every table). */
  summary?(input: PresentedAnalysis): string[];
  /** Its lines in the overview `parallax analyze` prints by default (a few, under its kind's card heading). */
  overview?(input: PresentedAnalysis): string[];
  /** Its fields of the Scaffold Safety Scorecard, in order. */
  card?: CardField[];
  /**
   * For an analysis that reads the rows of every format together when format is a facet (the
   * contrasts keep formats apart): the note its summary and report section carry, or null when
   * nothing is pooled (comparison/format-pooling.ts).
   */
  pooledFormats?(analysis: StudyAnalysis): string | null;
  /**
   * An analysis with verdicts: the scopes whose tests it computed ("pooled", a benchmark, "model
   * NAME", "scaffold x model"); the integrity checks' findings on scopes no analysis computed drop.
   */
  testedScopes?(result: AnalysisResults[K], comparisonFacet: string | undefined): string[];
  /**
   * An analysis with verdicts: after the integrity checks, downgrades in place each of its verdicts
   * that reads a failed cell or test and records it through `gate` (integrity/gate.ts calls it).
   */
  gate?(result: AnalysisResults[K], gate: VerdictGate): void;
  /** Files of its own that `analyze` writes beside the scorecard (the GRID card); returns their paths. */
  writeFiles?(dir: string, analysis: StudyAnalysis): string[];
}

const registered: RegisteredAnalysis[] = [];

/** Adds an analysis; registration order is the order of results, summary and scorecard. */
export function registerAnalysis<K extends ResultKey>(analysis: RegisteredAnalysis<K>): void {
  if (registered.some((a) => a.name === analysis.name))
    throw new Error(`analysis '${analysis.name}' is registered twice`);
  if (analysis.result && registered.some((a) => a.result === analysis.result))
    throw new Error(`analysis result '${String(analysis.result)}' is registered twice`);
  registered.push(analysis as unknown as RegisteredAnalysis);
}

export function registeredAnalyses(): readonly RegisteredAnalysis[] {
  return registered;
}

/** Whether a registered analysis ran on this study (a record written before kinds ran every one). */
export function analysisRan(analysis: StudyAnalysis, name: string): boolean {
  return !analysis.meta.selection?.leftOut.some((l) => l.analysis === name);
}

/** The registered analyses that ran on this study, in registration order. */
export function ranAnalyses(analysis: StudyAnalysis): RegisteredAnalysis[] {
  return registered.filter((a) => analysisRan(analysis, a.name));
}

/** The scorecard fields; of one study, those of the analyses that ran on it. */
export function cardFields(analysis?: StudyAnalysis): CardField[] {
  return (analysis ? ranAnalyses(analysis) : registered).flatMap((a) => a.card ?? []);
}

/** A card field's title for this scorecard's value. */
export function cardHeading(field: CardField, value: unknown): string {
  return field.heading ? field.heading(value as never) : field.title;
}

/** Typed helper for a card field (keeps `build` and `markdown` on the same value type). */
export function cardField<K extends CardFieldKey>(field: CardField<K>): CardField {
  return field as unknown as CardField;
}
