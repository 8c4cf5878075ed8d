/**
 * Study kinds and the selection of analyses: a study's kinds follow from its design (what varies
 * in the analysed rows) unless its spec declares them; each registered analysis declares the
 * kinds it belongs to and what else it needs, and `analyzeStudy` runs those that apply, leaving
 * out the rest with one line each. Each kind headlines its own card.
 */
import { SUBJECT_FACET } from "../../contracts/analysis.js";
import { GRID_AXES } from "../../contracts/analysis/grid.js";
import { STUDY_KINDS, type StudyKind } from "../../contracts/study-kind.js";
import type { Methodology } from "./methodology.js";
import type {
  AnalysisContext,
  AnalysisSelection,
  RegisteredAnalysis,
  ScorecardFields,
  ScorecardHeader,
  StudyAnalysis,
} from "./registry.js";

/** The card a study kind headlines, registered by the kind's folder (its `card.ts`). */
export interface KindCard {
  kind: StudyKind;
  /** Its heading ("GRID card"). */
  title: string;
  /** The kind in words, with its paper ("configuration grid (SafetyRepro)"). */
  what: string;
  /** Where the card is read, as the overview names it: its Markdown file ("grid-card.md"). */
  file: string;
  /**
   * Writes the card's files into DIR when the kind's analyses do not (`writeFiles`); returns
   * their paths. `analyze` writes the cards of the study's kinds only.
   */
  write?(dir: string, input: KindCardInput): string[];
  /** Its files carry the SIMULATED notice themselves (else `analyze` puts it atop them). */
  carriesNotice?: boolean;
}

/** What a card file is written from: the stored analysis record's parts. */
export interface KindCardInput {
  analysis: StudyAnalysis;
  methodology: Methodology;
  /** The record's scorecard as stored, and as Markdown. */
  scorecard: { json: ScorecardHeader & ScorecardFields; markdown(): string };
}

const kindCards = new Map<StudyKind, KindCard>();

export function registerKindCard(card: KindCard): void {
  if (kindCards.has(card.kind)) throw new Error(`the card of study kind '${card.kind}' is registered twice`);
  kindCards.set(card.kind, card);
}

/** The card a kind headlines; a kind without one is a programming error, named. */
export function kindCard(kind: StudyKind): KindCard {
  const card = kindCards.get(kind);
  if (!card) throw new Error(`no card registered for study kind '${kind}' (add the kind folder's card.ts)`);
  return card;
}

/** The facets a scaffold and format comparison compares. */
const COMPARISON_FACETS = ["scaffold", "format", "system_prompt"];
const UNPERTURBED = "none";

const varies = (ctx: AnalysisContext, facet: string) =>
  ctx.table.facets.includes(facet) && new Set(ctx.rows.map((r) => r.facets[facet])).size > 1;

/** Why the analysed rows are a study of each kind (absent: they are not). */
export function kindsOfDesign(ctx: AnalysisContext): Partial<Record<StudyKind, string>> {
  const reasons: Partial<Record<StudyKind, string>> = {};
  const facet = ctx.resolved.comparisonFacet;
  const agentRows = ctx.rows.some((r) => r.agent !== undefined);
  if (agentRows) reasons.agents = "its trials are agent trials with tools";
  if (ctx.table.rows.some((r) => r.facets.perturbation !== undefined && r.facets.perturbation !== UNPERTURBED))
    reasons.audit = "it perturbs items (perturbation facet)";
  const grid = ctx.plan.grid;
  const gridAxes = GRID_AXES.filter((a) => varies(ctx, a));
  if (grid !== false && grid.axes) reasons.grid = "the plan declares analysis.grid.axes";
  else if (grid !== false && gridAxes.includes(facet as (typeof GRID_AXES)[number]))
    reasons.grid = `it compares harness configurations: ${gridAxes.join(" x ")}`;
  if (COMPARISON_FACETS.includes(facet) && !(agentRows && facet === "scaffold"))
    reasons.comparison = `it compares ${facet}s`;
  else if (!reasons.audit && !agentRows && varies(ctx, "format")) reasons.comparison = "it compares formats";
  // A design none of the kinds reads (an import comparing sources, say) is compared as conditions.
  if (Object.keys(reasons).length === 0) reasons.comparison = `it compares ${facet} levels`;
  return reasons;
}

/** The study's kinds: those its spec declares, else those of its design, in the canonical order. */
export function studyKinds(ctx: AnalysisContext, declared?: readonly StudyKind[]): Omit<AnalysisSelection, "leftOut"> {
  if (declared && declared.length > 0) {
    const kinds = STUDY_KINDS.filter((k) => declared.includes(k));
    return {
      kinds,
      kindsFrom: "spec",
      kindReasons: Object.fromEntries(kinds.map((k) => [k, "declared in the spec"])),
    };
  }
  const kindReasons = kindsOfDesign(ctx);
  return { kinds: STUDY_KINDS.filter((k) => kindReasons[k] !== undefined), kindsFrom: "design", kindReasons };
}

/** Why a registered analysis is left out of this study, or null when it runs. */
export function leftOutReason(
  analysis: RegisteredAnalysis,
  kinds: readonly StudyKind[],
  ctx: AnalysisContext,
): string | null {
  if (analysis.kinds !== "every" && !analysis.kinds.some((k) => kinds.includes(k)))
    return `of another study kind; this study is ${kinds.join(" + ")}`;
  // A study with one level describes: only the analyses every study gets (rates, integrity, methodology).
  if (analysis.kinds !== "every" && ctx.resolved.levels.length < 2)
    return `nothing to compare: one level of '${ctx.resolved.comparisonFacet}' (${ctx.resolved.reference})`;
  return analysis.needs?.(ctx) ?? null;
}

/** The study's kinds as one line: where they come from, each with why it applies. */
export function kindsLine(selection: AnalysisSelection): string {
  const fromSpec = selection.kindsFrom === "spec";
  const parts = selection.kinds.map((k) => (fromSpec ? k : `${k} (${selection.kindReasons[k] ?? kindCard(k).what})`));
  return `study kind${selection.kinds.length > 1 ? "s" : ""} (${fromSpec ? "declared in the spec" : "from its design"}): ${parts.join("; ")}`;
}

/**
 * The models a study holds: the rows' model labels, or, for an import comparing models (its
 * comparison facet is the subject facet, the trials sharing one model label), that facet's levels.
 */
export function studyModels(analysis: Pick<StudyAnalysis, "meta" | "counts">): readonly string[] {
  return analysis.meta.comparisonFacet === SUBJECT_FACET ? analysis.meta.levels : analysis.counts.models;
}
