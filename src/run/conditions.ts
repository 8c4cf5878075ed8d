import type { Condition } from "../contracts/condition.js";
import { facetLabel, facetName } from "../contracts/condition.js";
import type { FacetValue, StudySpec } from "../contracts/spec.js";
import { facets as facetRegistry } from "../facets/registry.js";

/**
 * The cartesian product of the facets, minus every condition an `exclude` entry matches. A value
 * that stands for several (a perturbation family: its slots x seeds) is expanded first.
 */
export function expandConditions(conditions: StudySpec["conditions"]): Condition[] {
  const facets = Object.entries(conditions.facets).map(([name, values]) => [name, expandValues(name, values)] as const);
  let grid: Record<string, FacetValue>[] = [{}];
  for (const [name, values] of facets) {
    grid = grid.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
  }
  return grid.filter((condition) => !conditions.exclude.some((rule) => matchesRule(condition, rule)));
}

/** A facet's values with each expanded by its facet (duplicates, by label, kept once). */
export function expandValues(facet: string, values: readonly FacetValue[]): FacetValue[] {
  const expand = facetRegistry.has(facet) ? facetRegistry.get(facet).expandValue : undefined;
  if (!expand) return [...values];
  const seen = new Map<string, FacetValue>();
  for (const value of values.flatMap((v) => expand(v))) {
    if (!seen.has(facetLabel(value))) seen.set(facetLabel(value), value);
  }
  return [...seen.values()];
}

function matchesRule(condition: Condition, rule: Record<string, FacetValue | FacetValue[]>): boolean {
  return Object.entries(rule).every(([facet, expected]) => {
    const value = condition[facet];
    if (value === undefined) return false;
    const allowed = Array.isArray(expected) ? expected : [expected];
    // A bare name excludes every parameterisation; a parameterised value only itself.
    return allowed.some((candidate) =>
      typeof candidate === "object" && Object.keys(candidate).length > 1
        ? facetLabel(candidate) === facetLabel(value)
        : facetName(candidate) === facetName(value),
    );
  });
}

/** "scaffold=direct format=mc": a readable label for tables and progress lines. */
export function conditionLabel(condition: Condition): string {
  return Object.entries(condition)
    .map(([facet, value]) => `${facet}=${facetLabel(value)}`)
    .join(" ");
}
