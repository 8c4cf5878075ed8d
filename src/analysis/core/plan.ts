/**
 * Resolves an analysis plan against a table: which facet is compared, which level is the
 * reference, which rows the reference's other facet values keep, and the trend ordering.
 * Problems are InputErrors that name the plan key and the values that exist.
 */
import { type AnalysisPlan, type AnalysisPlanInput, AnalysisPlanSchema } from "../../contracts/analysis.js";
import { PAPER_TREND_SCORES } from "../../contracts/analysis/comparison.js";
import { InputError } from "../../core/errors.js";
import type { AnalysisRow, AnalysisTable } from "./table.js";

export interface ResolvedPlan {
  plan: AnalysisPlan;
  comparisonFacet: string;
  reference: string;
  /** Comparison levels present in the analysed rows, reference first, then in declared order. */
  levels: string[];
  /** Other facets fixed by the reference condition (rows with other values are left out). */
  restrict: Record<string, string>;
  trend: {
    order: string[];
    scores: Record<string, number>;
    alternative: "two-sided" | "less" | "greater";
    /** Compared levels without a declared score: not part of the trend. */
    unscored: string[];
  } | null;
  /**
   * The declared hypothesis families, resolved to the levels present: `primary` (reference
   * included; each vs the reference is the H1 family, every pair the all-pairwise family),
   * then the plan's `families`, then 'undeclared' for compared levels in none of them.
   */
  families: ResolvedFamily[];
  /** Why an optional part of the plan was set aside or how a default was chosen. */
  notes: string[];
  /**
   * Notes about ScaffoldSafety's defaults (its H4 scaffold order): printed for a comparison
   * study only, since a grid or agent study never reads that order.
   */
  comparisonNotes: string[];
}

export interface ResolvedFamily {
  name: string;
  /** Levels of the comparison facet in the family, present in the data, reference excluded. */
  conditions: string[];
  /** Declared levels not in the data. */
  absent: string[];
}

export function parsePlan(input: unknown, where: string): AnalysisPlan {
  const parsed = AnalysisPlanSchema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (i) => `  at ${where}${i.path.length ? `.${i.path.join(".")}` : ""}: ${i.message}`,
  );
  throw new InputError(`invalid analysis plan:\n${problems.join("\n")}`);
}

/** Defaults filled in, as the pre-registration stamp freezes it. */
export function normalizePlan(input: AnalysisPlanInput | undefined): AnalysisPlan {
  return parsePlan(input, "analysis");
}

export function resolvePlan(plan: AnalysisPlan, table: AnalysisTable): ResolvedPlan {
  const notes: string[] = [];
  const comparisonNotes: string[] = [];
  const comparisonFacet = chooseFacet(plan, table, notes);
  const declared = table.facetLevels[comparisonFacet] ?? [];
  const referenceInput = plan.reference?.[comparisonFacet];
  const reference = referenceInput
    ? matchLevel(referenceInput, declared, `analysis.reference.${comparisonFacet}`)
    : declared.includes("direct")
      ? "direct"
      : declared[0];
  if (!referenceInput) notes.push(`reference ${comparisonFacet}=${reference} (default)`);
  const restrict: Record<string, string> = {};
  for (const [facet, value] of Object.entries(plan.reference ?? {})) {
    if (facet === comparisonFacet) continue;
    if (!table.facets.includes(facet)) {
      throw new InputError(`analysis.reference: '${facet}' is not a facet; facets: ${table.facets.join(", ")}`);
    }
    restrict[facet] = matchLevel(value, table.facetLevels[facet], `analysis.reference.${facet}`);
  }
  const kept = restrictRows(table.rows, restrict);
  const present = new Set(kept.map((r) => r.facets[comparisonFacet]));
  if (!present.has(reference)) {
    throw new InputError(`no analysed rows have the reference ${comparisonFacet}=${reference}`);
  }
  const levels = [reference, ...declared.filter((l) => l !== reference && present.has(l))];
  // One level (a single-source import, one configuration): described, not compared.
  if (levels.length < 2) notes.push(oneLevelNote(comparisonFacet, reference));
  return {
    plan,
    comparisonFacet,
    reference,
    levels,
    restrict,
    trend: levels.length < 2 ? null : resolveTrend(plan, levels, notes, comparisonNotes),
    families: resolveFamilies(plan, reference, levels),
    notes,
    comparisonNotes,
  };
}

/** Why a study with one level of its comparison facet gets rates and checks but no contrasts. */
export function oneLevelNote(facet: string, level: string): string {
  return `one level of '${facet}' (${level}): described (rates, intervals, integrity checks), nothing to compare`;
}

function chooseFacet(plan: AnalysisPlan, table: AnalysisTable, notes: string[]): string {
  const wanted = plan.comparison_facet;
  if (wanted) {
    if (!table.facets.includes(wanted)) {
      throw new InputError(
        `analysis.comparison_facet '${wanted}' is not a column; facets: ${table.facets.join(", ") || "(none)"}`,
      );
    }
    return wanted;
  }
  if (table.facets.includes("scaffold")) return "scaffold";
  if (table.facets.length === 1) {
    notes.push(`comparison facet '${table.facets[0]}' (the table's only facet)`);
    return table.facets[0];
  }
  throw new InputError(
    `cannot tell which facet to compare (no 'scaffold' column; facets: ${table.facets.join(", ") || "(none)"}); ` +
      "set analysis.comparison_facet",
  );
}

/** A level by exact label, else by its short name (label before "("), when that is unique. */
export function findLevel(value: string, levels: readonly string[]): string | undefined {
  if (levels.includes(value)) return value;
  const byName = levels.filter((l) => l.split("(")[0] === value);
  return byName.length === 1 ? byName[0] : undefined;
}

function matchLevel(value: string, levels: readonly string[], where: string): string {
  const found = findLevel(value, levels);
  if (found !== undefined) return found;
  throw new InputError(`${where}: '${value}' is not a level; levels: ${levels.join(", ")}`);
}

export function restrictRows(rows: readonly AnalysisRow[], restrict: Record<string, string>): AnalysisRow[] {
  const entries = Object.entries(restrict);
  return entries.length === 0 ? [...rows] : rows.filter((r) => entries.every(([f, v]) => r.facets[f] === v));
}

/**
 * The rows the plan analyses: its restriction, at the compared levels. The list given when that
 * keeps every row (a paper-scale table is not held twice).
 */
export function analysedRows(rows: AnalysisRow[], resolved: ResolvedPlan): AnalysisRow[] {
  const { comparisonFacet: facet, levels, restrict } = resolved;
  const kept = restrictRows(rows, restrict).filter((r) => levels.includes(r.facets[facet]));
  return kept.length === rows.length ? rows : kept;
}

/**
 * The H4 trend as the plan declares it: the scores (default: the paper's), the order ascending
 * by score unless written. Declared levels absent from the data are left out, and compared
 * levels without a score are not part of the trend (both noted); fewer than two scored
 * levels present sets the test aside.
 */
function resolveTrend(
  plan: AnalysisPlan,
  levels: string[],
  notes: string[],
  comparisonNotes: string[],
): ResolvedPlan["trend"] {
  const trend = plan.hypotheses.trend;
  if (trend === false) return null;
  const scoresWritten = trend.scores ?? Object.fromEntries((trend.order ?? []).map((l, i) => [l, i]));
  const written = trend.order ?? Object.keys(scoresWritten).sort((a, b) => scoresWritten[a] - scoresWritten[b]);
  const missingScore = written.filter((l) => scoresWritten[l] === undefined);
  if (missingScore.length > 0)
    throw new InputError(`analysis.hypotheses.trend.scores: no score for ${missingScore.join(", ")}`);
  const absent = written.filter((l) => findLevel(l, levels) === undefined);
  if (written.length - absent.length < 3 && isPaperTrend(trend)) {
    // ScaffoldSafety's H4 order on a study with at most two of its scaffolds is not that test
    // (over two levels it is the contrast itself).
    comparisonNotes.push(
      `trend (H4): left out: the default order is ScaffoldSafety's (${written.join(" < ")}) and ${absent.join(", ")} ${
        absent.length > 1 ? "are" : "is"
      } not in the data; declare analysis.hypotheses.trend.scores to test a trend`,
    );
    return null;
  }
  const order = written.flatMap((l) => findLevel(l, levels) ?? []);
  const scores = Object.fromEntries(
    written.flatMap((l) => (findLevel(l, levels) ? [[findLevel(l, levels)!, scoresWritten[l]]] : [])),
  );
  const unscored = levels.filter((l) => !order.includes(l));
  if (order.length < 2) {
    notes.push(
      `trend test set aside: fewer than two of its declared levels (${written.join(", ")}) are in the data; declare analysis.hypotheses.trend.scores for ${levels.join(", ")}`,
    );
    return null;
  }
  if (absent.length > 0) notes.push(`trend: declared level(s) not in the data left out: ${absent.join(", ")}`);
  return { order, scores, alternative: trend.alternative, unscored };
}

/** Whether the trend is the plan's default, ScaffoldSafety's scaffold order. */
function isPaperTrend(trend: { scores?: Record<string, number>; order?: string[] }): boolean {
  const paper = Object.entries(PAPER_TREND_SCORES);
  const scores = trend.scores ?? {};
  return (
    trend.order === undefined &&
    Object.keys(scores).length === paper.length &&
    paper.every(([level, score]) => scores[level] === score)
  );
}

/** The declared families against the levels present (see ResolvedPlan.families). */
export function resolveFamilies(plan: AnalysisPlan, reference: string, levels: string[]): ResolvedFamily[] {
  const compared = levels.filter((l) => l !== reference);
  const claimed = new Set<string>();
  const family = (name: string, declared: readonly string[]): ResolvedFamily => {
    const conditions = declared.flatMap((l) => {
      const level = findLevel(l, levels);
      return level && level !== reference && !claimed.has(level) ? [level] : [];
    });
    for (const c of conditions) claimed.add(c);
    return { name, conditions, absent: declared.filter((l) => findLevel(l, levels) === undefined) };
  };
  const primary = family("primary", plan.hypotheses.primary_family);
  const declared = Object.entries(plan.hypotheses.families).map(([name, members]) => family(name, members));
  if (primary.conditions.length === 0) {
    // None of the declared primary configurations is here: every level no other family claims is primary.
    primary.conditions = compared.filter((l) => !claimed.has(l));
    for (const c of primary.conditions) claimed.add(c);
  }
  const rest = compared.filter((l) => !claimed.has(l));
  return [
    primary,
    ...declared.filter((f) => f.conditions.length > 0),
    ...(rest.length ? [{ name: "undeclared", conditions: rest, absent: [] }] : []),
  ];
}
