import type { Condition } from "../contracts/condition.js";
import { facetLabel, facetName } from "../contracts/condition.js";
import type { FacetValue, StudySpec } from "../contracts/spec.js";

/** The cartesian product of the facets, minus every condition an `exclude` entry matches. */
export function expandConditions(conditions: StudySpec["conditions"]): Condition[] {
  const facets = Object.entries(conditions.facets);
  let grid: Record<string, FacetValue>[] = [{}];
  for (const [name, values] of facets) {
    grid = grid.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
  }
  return grid.filter((condition) => !conditions.exclude.some((rule) => matchesRule(condition, rule)));
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
