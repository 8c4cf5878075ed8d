/**
 * The contrasts a study's design makes before any data exist: each level of the comparison
 * facet against the reference, paired condition by condition (the other facets held equal), as
 * the analysis plan names them. `plan --power` sizes them and a sequential run monitors them.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type Condition, facetLabel, facetName } from "../../contracts/condition.js";
import type { StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { conditionHash } from "../../core/hash.js";

export interface ConditionPair {
  reference: Condition;
  referenceHash: string;
  condition: Condition;
  conditionHash: string;
}

export interface PlannedContrast {
  /** The compared level of the comparison facet. */
  level: string;
  /** "scaffold=cot vs direct". */
  label: string;
  /** Reference and compared conditions with every other facet equal. */
  pairs: ConditionPair[];
}

export interface ContrastLayout {
  facet: string;
  reference: string;
  contrasts: PlannedContrast[];
}

/** A value's label if it is the level asked for by full label or short name. */
function matches(value: Condition[string], level: string): boolean {
  return facetLabel(value) === level || facetName(value) === level;
}

function chooseFacet(spec: StudySpec, facets: string[]): string {
  const wanted = spec.analysis?.comparison_facet;
  if (wanted) {
    if (!facets.includes(wanted))
      throw new InputError(`analysis.comparison_facet '${wanted}' is not a facet; facets: ${facets.join(", ")}`);
    return wanted;
  }
  if (facets.includes("scaffold")) return "scaffold";
  if (facets.length === 1) return facets[0];
  throw new InputError(
    `cannot tell which facet to compare (no 'scaffold' facet; facets: ${facets.join(", ")}); set analysis.comparison_facet`,
  );
}

/** The design's contrasts: levels in declared order, the reference first (not a contrast). */
export function contrastLayout(spec: StudySpec, conditions: readonly Condition[]): ContrastLayout {
  const plan = AnalysisPlanSchema.parse(spec.analysis ?? {});
  const facets = Object.keys(spec.conditions.facets);
  const facet = chooseFacet(spec, facets);
  const levels = spec.conditions.facets[facet].map(facetLabel);
  const declaredReference = plan.reference?.[facet];
  const reference = declaredReference
    ? (levels.find((l) => l === declaredReference) ??
      levels.find((_, i) => facetName(spec.conditions.facets[facet][i]) === declaredReference))
    : levels.includes("direct")
      ? "direct"
      : levels[0];
  if (reference === undefined)
    throw new InputError(
      `analysis.reference.${facet}: '${declaredReference}' is not a level; levels: ${levels.join(", ")}`,
    );
  const restrict = Object.entries(plan.reference ?? {}).filter(([f]) => f !== facet);
  const references = conditions.filter(
    (c) => c[facet] !== undefined && matches(c[facet], reference) && restrict.every(([f, v]) => matches(c[f], v)),
  );
  const sameOthers = (a: Condition, b: Condition) =>
    Object.keys(a).every((f) => f === facet || facetLabel(a[f]) === facetLabel(b[f]));
  const contrasts = levels
    .filter((level) => level !== reference)
    .map((level) => {
      const pairs: ConditionPair[] = [];
      for (const ref of references) {
        const partner = conditions.find((c) => matches(c[facet], level) && sameOthers(ref, c));
        if (partner)
          pairs.push({
            reference: ref,
            referenceHash: conditionHash(ref),
            condition: partner,
            conditionHash: conditionHash(partner),
          });
      }
      return { level, label: `${facet}=${level} vs ${reference}`, pairs };
    })
    .filter((c) => c.pairs.length > 0);
  return { facet, reference, contrasts };
}

/** One paired observation: the same model, benchmark, item and attempt under both conditions. */
export interface PairedOutcome {
  /** The cluster: benchmark and item. */
  cluster: string;
  difference: number;
}

export interface ScoredTrial {
  modelId: string;
  benchmarkId: string;
  itemId: string;
  attempt: number;
  conditionHash: string;
  /** 1 correct/safe, 0 not (a parse failure counts 0: the intention-to-treat population). */
  score: number;
}

/**
 * Each item's mean paired difference (condition - reference) over its models and attempts, for
 * one contrast; items with no complete pair are left out.
 */
export function itemDifferences(contrast: PlannedContrast, trials: Iterable<ScoredTrial>): Map<string, number[]> {
  const partnerOf = new Map(contrast.pairs.map((p) => [p.conditionHash, p.referenceHash]));
  const references = new Set(contrast.pairs.map((p) => p.referenceHash));
  const key = (t: ScoredTrial, hash: string) =>
    `${t.modelId}\u0000${t.benchmarkId}\u0000${t.itemId}\u0000${t.attempt}\u0000${hash}`;
  const referenceScores = new Map<string, number>();
  const compared: ScoredTrial[] = [];
  for (const trial of trials) {
    if (references.has(trial.conditionHash)) referenceScores.set(key(trial, trial.conditionHash), trial.score);
    if (partnerOf.has(trial.conditionHash)) compared.push(trial);
  }
  const byItem = new Map<string, number[]>();
  for (const trial of compared) {
    const referenceScore = referenceScores.get(key(trial, partnerOf.get(trial.conditionHash)!));
    if (referenceScore === undefined) continue;
    const cluster = `${trial.benchmarkId}\u0000${trial.itemId}`;
    const list = byItem.get(cluster) ?? [];
    list.push(trial.score - referenceScore);
    byItem.set(cluster, list);
  }
  return byItem;
}
