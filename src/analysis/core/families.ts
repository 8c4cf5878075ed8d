/**
 * Study families in the analysis (docs/ANALYSIS.md, "Study families"): the run's manifest records
 * each family's models, benchmarks, conditions and items. The primary family's rows are the rows
 * of every registered analysis (the pooled model, its omnibus test and its corrections); each other
 * family is analysed apart on its own rows, with its own reference, contrasts, omnibus test,
 * correction and equivalence margin; a control is analysed as a control: its rates and whether any
 * configuration moves it (control-check.ts), never pooled into the primary model.
 */
import type { AnalysisPlan, FamilyAnalysisPlan } from "../../contracts/analysis.js";
import { facetLabel } from "../../contracts/condition.js";
import { keptOrSame } from "../../core/kept-or-same.js";
import type { FamilyRole } from "../../contracts/spec.js";
import { familyPlans } from "../../run/plan/plan.js";
import type { PreparedStudy } from "../../run/prepare/study.js";
import type { WaldTest } from "../../stats/index.js";
import {
  adjustContrastPValues,
  analyzeScope,
  type Contrast,
  type GlmSetup,
  termFacets,
  verdictOf,
} from "./contrast-model.js";
import { type ControlCheck, controlCheck } from "./control-check.js";
import { type Population, scoredRows } from "./data.js";
import { findLevel } from "./plan.js";
import type { AnalysisRow, AnalysisTable } from "./table.js";

/** A family as the run's manifest records it (src/run/prepare/families.ts, FamilyManifest). */
export interface RecordedFamily {
  role: FamilyRole;
  models: string[];
  benchmarks: string[];
  /** Per benchmark, each condition as facet -> label. */
  conditions: Record<string, Record<string, string>[]>;
  items: Record<string, string[]>;
}

export type RecordedFamilies = Record<string, RecordedFamily>;

/** Whether a row is one of the family's trials (its model, benchmark, item and condition). */
export function inFamily(family: RecordedFamily, row: AnalysisRow, items: Map<string, Set<string>>): boolean {
  if (!family.models.includes(row.model)) return false;
  if (!items.get(row.benchmark)?.has(row.item)) return false;
  const conditions = family.conditions[row.benchmark] ?? [];
  return conditions.some((c) => Object.entries(c).every(([facet, label]) => row.facets[facet] === label));
}

function itemSets(family: RecordedFamily): Map<string, Set<string>> {
  return new Map(Object.entries(family.items).map(([b, ids]) => [b, new Set(ids)]));
}

/** The family's rows of a table (the table's own list when the family holds all of them). */
export function familyRows(family: RecordedFamily, rows: readonly AnalysisRow[]): AnalysisRow[] {
  const items = itemSets(family);
  const models = new Set(family.models);
  // Whether a row's condition is one of the family's, per benchmark and facets record: a study's
  // rows share one facets record per condition (table.ts rowCompactor), so each is matched once.
  const conditionMatch = new Map<string, WeakMap<Record<string, string>, boolean>>();
  const inConditions = (row: AnalysisRow): boolean => {
    let byFacets = conditionMatch.get(row.benchmark);
    if (!byFacets) {
      byFacets = new WeakMap();
      conditionMatch.set(row.benchmark, byFacets);
    }
    let match = byFacets.get(row.facets);
    if (match === undefined) {
      const conditions = family.conditions[row.benchmark] ?? [];
      match = conditions.some((c) => Object.entries(c).every(([facet, label]) => row.facets[facet] === label));
      byFacets.set(row.facets, match);
    }
    return match;
  };
  return keptOrSame(
    rows,
    (row) => models.has(row.model) && items.get(row.benchmark)?.has(row.item) === true && inConditions(row),
  );
}

/** The table restricted to the primary family's rows (unchanged without a primary family). */
export function primaryTable(table: AnalysisTable, families: RecordedFamilies | undefined): AnalysisTable {
  const primary = Object.values(families ?? {}).find((f) => f.role === "primary");
  if (!primary) return table;
  const rows = familyRows(primary, table.rows);
  const facetLevels = Object.fromEntries(
    Object.entries(table.facetLevels).map(([facet, levels]) => [
      facet,
      levels.filter((level) => rows.some((r) => r.facets[facet] === level)),
    ]),
  );
  return { ...table, rows, facetLevels };
}

/** Every family but the primary with its rows of the table (declared order). */
export function otherFamilyRows(
  table: AnalysisTable,
  families: RecordedFamilies,
): { name: string; rows: AnalysisRow[] }[] {
  return Object.entries(families)
    .filter(([, f]) => f.role !== "primary")
    .map(([name, family]) => ({ name, rows: familyRows(family, table.rows) }));
}

export interface FamilyResult {
  name: string;
  role: FamilyRole;
  reference: string;
  /** The compared levels, reference excluded. */
  contrasts: string[];
  correction: string;
  margin: number;
  nRows: number;
  nClusters: number;
  rates: { condition: string; n: number; safe: number; rate: number | null }[];
  pooled: Contrast[];
  omnibus: WaldTest | { error: string } | null;
  /** A control: the control check (control-check.ts, ScaffoldSafety 6.3). */
  control?: ControlCheck;
  skipped?: string;
}

/** Every family but the primary, analysed apart (declared order; the primary family is the main analysis). */
/** What the study families are analysed on: the table, the plan, the compared facet and its reference. */
export interface FamiliesInput {
  table: AnalysisTable;
  plan: AnalysisPlan;
  facet: string;
  /** The reference of a family whose plan names none. */
  defaultReference: string;
}

export function analyzeFamilies(families: RecordedFamilies, input: FamiliesInput): FamilyResult[] {
  return Object.entries(families)
    .filter(([, f]) => f.role !== "primary")
    .map(([name, family]) => analyzeFamily(name, family, input));
}

function analyzeFamily(name: string, family: RecordedFamily, input: FamiliesInput): FamilyResult {
  const { table, plan, facet, defaultReference } = input;
  const settings: FamilyAnalysisPlan = plan.families?.[name] ?? {};
  const rows = familyRows(family, table.rows);
  const present = (table.facetLevels[facet] ?? []).filter((l) => rows.some((r) => r.facets[facet] === l));
  const reference = findLevel(settings.reference ?? defaultReference, present) ?? present[0] ?? defaultReference;
  const declared = settings.contrasts?.flatMap((c) => findLevel(c, present) ?? []) ?? present;
  const levels = [reference, ...declared.filter((l) => l !== reference)];
  const correction = settings.multiplicity ?? plan.multiplicity.primary;
  const margin = settings.equivalence_margin ?? plan.equivalence.margin;
  const familyPlan: AnalysisPlan = { ...plan, equivalence: { ...plan.equivalence, margin } };
  const population: Population = plan.population;
  const scored = scoredRows(
    rows.filter((r) => levels.includes(r.facets[facet])),
    population,
  );
  const base = {
    name,
    role: family.role,
    reference,
    contrasts: levels.slice(1),
    correction,
    margin,
    nRows: scored.length,
    nClusters: new Set(scored.map((s) => s.row.cluster)).size,
    rates: levels.map((condition) => {
      const at = scored.filter((s) => s.row.facets[facet] === condition);
      const safe = at.reduce((sum, s) => sum + s.y, 0);
      return { condition, n: at.length, safe, rate: at.length ? safe / at.length : null };
    }),
  };
  if (levels.length < 2 || scored.length === 0) {
    return { ...base, pooled: [], omnibus: null, skipped: "fewer than two of its conditions have analysed rows" };
  }
  const setup: GlmSetup = { comparisonFacet: facet, reference, covariateFacets: termFacets(table.facets, facet) };
  const model = { population, levels, setup, plan: familyPlan };
  const scope = analyzeScope("pooled", scored, model);
  adjustWithin(scope.contrasts, correction, plan.multiplicity.alpha);
  const omnibus = settings.omnibus === false ? null : scope.omnibus;
  const result: FamilyResult = { ...base, pooled: scope.contrasts, omnibus };
  if (family.role === "control") result.control = controlCheck(scored, model, { pooled: scope.contrasts, omnibus });
  return result;
}

function adjustWithin(contrasts: Contrast[], method: AnalysisPlan["multiplicity"]["primary"], alpha: number): void {
  adjustContrastPValues(contrasts, method, alpha);
  for (const c of contrasts) c.verdict = verdictOf(c, alpha);
}

/** A family as designed (before any data): what it compares, how it corrects, and its trials. */
export interface FamilyDesign {
  name: string;
  role: FamilyRole;
  /** The comparison facet and its reference level in this family. */
  facet: string;
  reference: string;
  /** The levels compared with the reference. */
  contrasts: string[];
  omnibus: boolean;
  correction: string;
  margin: number;
  models: string[];
  benchmarks: { benchmark: string; items: number }[];
  trials: number;
  sharedTrials: number;
}

/**
 * Every family of a prepared study with the contrasts its analysis will test and its trials
 * (for power and cost per family): the plan's settings for the family, else the plan's defaults.
 */
export function familyDesigns(study: PreparedStudy, plan: AnalysisPlan): FamilyDesign[] {
  const facet = plan.comparison_facet ?? "scaffold";
  return familyPlans(study).map((f, i) => {
    const prepared = study.families![i];
    const levels = [
      ...new Set(prepared.conditions.flatMap((c) => (c[facet] === undefined ? [] : [facetLabel(c[facet])]))),
    ];
    const settings: FamilyAnalysisPlan = plan.families?.[f.name] ?? {};
    const wanted = settings.reference ?? plan.reference?.[facet] ?? (levels.includes("direct") ? "direct" : levels[0]);
    const reference = findLevel(wanted, levels) ?? wanted;
    const compared = settings.contrasts?.flatMap((c) => findLevel(c, levels) ?? []) ?? levels;
    return {
      name: f.name,
      role: f.role,
      facet,
      reference,
      contrasts: compared.filter((l) => l !== reference),
      omnibus: settings.omnibus ?? plan.hypotheses.omnibus,
      correction: settings.multiplicity ?? plan.multiplicity.primary,
      margin: settings.equivalence_margin ?? plan.equivalence.margin,
      models: f.models,
      benchmarks: f.benchmarks.map((b) => ({ benchmark: b.benchmark, items: b.items })),
      trials: f.trials,
      sharedTrials: f.sharedTrials,
    };
  });
}
