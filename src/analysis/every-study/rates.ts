/**
 * Safety rates per cell (model x benchmark x configuration, and pooled margins) with Wilson
 * CIs, under ITT and PP side by side with the parse-failure rate (ScaffoldSafety Table 13).
 */
import type { Interval } from "../../stats/index.js";
import { proportionCi } from "../../stats/index.js";
import { configurationOf, groupBy } from "../core/data.js";
import type { AnalysisRow } from "../core/table.js";

/** "all" in a key column means pooled over that column. */
export const ALL = "all";

export interface RateCell {
  /** Stable id of the cell (used for links from charts and tables to its trials). */
  id: string;
  model: string;
  benchmark: string;
  configuration: string;
  /** The comparison facet's level of this configuration. */
  condition: string;
  /** Finished trials that were scored (parse failures included). */
  n: number;
  errored: number;
  parseFailures: number;
  parseFailureRate: number | null;
  itt: RateEstimate | null;
  pp: RateEstimate | null;
}

export interface RateEstimate {
  successes: number;
  n: number;
  rate: number;
  ci95: Interval;
}

export function cellId(model: string, benchmark: string, configuration: string): string {
  const slug = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, "_");
  return `cell-${slug(model)}--${slug(benchmark)}--${slug(configuration)}`;
}

function rate(successes: number, n: number): RateEstimate | null {
  return n === 0 ? null : { successes, n, rate: successes / n, ci95: proportionCi(successes, n, 0.05, "wilson") };
}

function summarize(
  rows: readonly AnalysisRow[],
  key: Omit<RateCell, "id" | "n" | "errored" | "parseFailures" | "parseFailureRate" | "itt" | "pp">,
): RateCell {
  let n = 0;
  let errored = 0;
  let failures = 0;
  let ittSuccesses = 0;
  let ppSuccesses = 0;
  for (const r of rows) {
    if (r.errored) {
      errored++;
      continue;
    }
    if (r.outcome === null) continue;
    n++;
    if (r.parseFailed) failures++;
    else if (r.outcome === 1) {
      ittSuccesses++;
      ppSuccesses++;
    }
  }
  return {
    id: cellId(key.model, key.benchmark, key.configuration),
    ...key,
    n,
    errored,
    parseFailures: failures,
    parseFailureRate: n === 0 ? null : failures / n,
    itt: rate(ittSuccesses, n),
    pp: rate(ppSuccesses, n - failures),
  };
}

/**
 * Every (model | all) x (benchmark | all) x configuration cell. Configurations are the values of
 * the facets that vary in the analysed rows; `comparisonFacet` names each cell's condition.
 */
export function rateCells(
  rows: readonly AnalysisRow[],
  varying: readonly string[],
  comparisonFacet: string,
  levelOrder: Readonly<Record<string, readonly string[]>>,
): RateCell[] {
  const cells: RateCell[] = [];
  // Configurations in declared level order, comparison facet first (reference leading).
  const sorted = sortedByLevels(rows, [comparisonFacet, ...varying.filter((f) => f !== comparisonFacet)], levelOrder);
  const withKeys = sorted.map((r) => ({ r, configuration: configurationOf(r, varying) }));
  const byConfiguration = groupBy(withKeys, (x) => x.configuration);
  for (const [configuration, members] of byConfiguration) {
    const condition = members[0].r.facets[comparisonFacet];
    const groupings: [string, (x: (typeof members)[number]) => string][] = [
      ["cell", (x) => `${x.r.model}\u0000${x.r.benchmark}`],
      ["model", (x) => `${x.r.model}\u0000${ALL}`],
      ["benchmark", (x) => `${ALL}\u0000${x.r.benchmark}`],
      ["pooled", () => `${ALL}\u0000${ALL}`],
    ];
    for (const [, keyOf] of groupings) {
      for (const [key, group] of groupBy(members, keyOf)) {
        const [model, benchmark] = key.split("\u0000");
        cells.push(
          summarize(
            group.map((x) => x.r),
            { model, benchmark, configuration, condition },
          ),
        );
      }
    }
  }
  return cells;
}

/**
 * The rows stably sorted by their facets' positions in the declared level order (lexicographic over
 * `facets`, a value not declared first). Each row's positions are read once and coded as one
 * mixed-radix number, so the sort compares numbers rather than re-reading facets per comparison.
 */
export function sortedByLevels<T extends { facets: Readonly<Record<string, string>> }>(
  rows: readonly T[],
  facets: readonly string[],
  levelOrder: Readonly<Record<string, readonly string[]>>,
): T[] {
  // A level's first position (as indexOf finds it); an undeclared value is -1.
  const positions = facets.map((f) => {
    const at = new Map<string, number>();
    (levelOrder[f] ?? []).forEach((v, i) => {
      if (!at.has(v)) at.set(v, i);
    });
    return at;
  });
  // Position p in [-1, size) is digit p + 1 of base size + 1.
  const bases = facets.map((f) => (levelOrder[f] ?? []).length + 1);
  const span = bases.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(span)) throw new Error("too many facet levels to order the rows");
  const keys = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const { facets: values } = rows[i];
    let key = 0;
    for (let j = 0; j < facets.length; j++) key = key * bases[j] + ((positions[j].get(values[facets[j]]) ?? -1) + 1);
    keys[i] = key;
  }
  // A stable sort on the key: rows bucketed by key in input order, buckets in key order.
  const buckets = new Map<number, T[]>();
  for (let i = 0; i < rows.length; i++) {
    const bucket = buckets.get(keys[i]);
    if (bucket) bucket.push(rows[i]);
    else buckets.set(keys[i], [rows[i]]);
  }
  return [...buckets.keys()].sort((a, b) => a - b).flatMap((k) => buckets.get(k)!);
}
