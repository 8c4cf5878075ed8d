import type { Condition } from "../../contracts/condition.js";
import { facetLabel, facetName } from "../../contracts/condition.js";
import type { FacetValue, StudySpec } from "../../contracts/spec.js";
import { DECODING_SEED } from "../../facets/decoding.js";
import { expandValues, facets as facetRegistry } from "../../facets/registry.js";

/** The key of an `exclude` entry that names a benchmark id rather than a facet. */
const BENCHMARK_KEY = "benchmark";

type Rule = StudySpec["conditions"]["exclude"][number];

/**
 * The cartesian product of the facets (a value that stands for several, a perturbation family's
 * slots x seeds, is expanded first; a value a facet expands into condition entries, a stochastic
 * decoding setting into one condition per seed, counts as its expansions), minus every condition
 * an `exclude` entry without a `benchmark` key matches.
 */
export function expandConditions(conditions: StudySpec["conditions"]): Condition[] {
  let grid: Record<string, FacetValue>[] = [{}];
  for (const [name, specValues] of Object.entries(conditions.facets)) {
    const values = expandValues(name, specValues);
    const expand = facetRegistry.has(name) ? facetRegistry.get(name).expand : undefined;
    const entries = values.flatMap((value) => (expand ? expand(value) : [{ [name]: value }]));
    grid = grid.flatMap((partial) => entries.map((entry) => ({ ...partial, ...entry })));
  }
  const general = conditions.exclude.filter((rule) => !(BENCHMARK_KEY in rule));
  return grid.filter((condition) => !general.some((rule) => matchesRule(condition, rule)));
}

/**
 * The conditions one benchmark runs: the grid minus the `exclude` entries that name this
 * benchmark (`{benchmark: crows, scoring_path: free_form}`: CrowS-Pairs admits only log-prob).
 */
export function benchmarkConditions(
  conditions: readonly Condition[],
  exclude: readonly Rule[],
  benchmarkId: string,
): Condition[] {
  const rules = exclude
    .filter((rule) => BENCHMARK_KEY in rule && namesBenchmark(rule[BENCHMARK_KEY], benchmarkId))
    .map(({ [BENCHMARK_KEY]: _benchmark, ...facets }) => facets);
  if (rules.length === 0) return [...conditions];
  return conditions.filter((condition) => !rules.some((rule) => matchesRule(condition, rule)));
}

/** The conditions of one benchmark after every entry of `exclude`, with or without a benchmark key (a family's exclusions). */
export function conditionsAfterExclusions(
  conditions: readonly Condition[],
  exclude: readonly Rule[],
  benchmarkId: string,
): Condition[] {
  const general = exclude.filter((rule) => !(BENCHMARK_KEY in rule));
  return benchmarkConditions(conditions, exclude, benchmarkId).filter(
    (condition) => !general.some((rule) => matchesRule(condition, rule)),
  );
}

function namesBenchmark(expected: Rule[string], benchmarkId: string): boolean {
  const ids = Array.isArray(expected) ? expected : [expected];
  return ids.some((id) => facetName(id) === benchmarkId);
}

/** A configuration: a condition without its decoding seed (the seeds of one setting are averaged into one cell). */
export function configurationOf(condition: Condition): Condition {
  const { [DECODING_SEED]: _seed, ...configuration } = condition;
  return configuration;
}

function matchesRule(condition: Condition, rule: Record<string, FacetValue | FacetValue[]>): boolean {
  // A rule of only a benchmark key excludes every condition of that benchmark.
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
