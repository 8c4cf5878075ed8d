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
  // Configurations in declared level order, comparison facet first (reference leading). Rows of
  // one condition share their facets record: its rank and configuration are worked out once.
  const ordered = [comparisonFacet, ...varying.filter((f) => f !== comparisonFacet)];
  const byFacets = new Map<Record<string, string>, { rank: number[]; configuration: string }>();
  const keyed = rows.map((r) => {
    let known = byFacets.get(r.facets);
    if (known === undefined) {
      known = {
        rank: ordered.map((f) => (levelOrder[f] ?? []).indexOf(r.facets[f])),
        configuration: configurationOf(r, varying),
      };
      byFacets.set(r.facets, known);
    }
    return { r, rank: known.rank, configuration: known.configuration };
  });
  // A stable sort on the ranks alone: rows of equal rank keep their order.
  keyed.sort((a, b) => {
    for (let i = 0; i < a.rank.length; i++) if (a.rank[i] !== b.rank[i]) return a.rank[i] - b.rank[i];
    return 0;
  });
  const byConfiguration = groupBy(keyed, (x) => x.configuration);
  // One key string per (model, benchmark) pair, so grouping makes no string per row.
  const pairKeys = new Map<string, Map<string, string>>();
  const pairKey = (model: string, benchmark: string): string => {
    let ofModel = pairKeys.get(model);
    if (ofModel === undefined) {
      ofModel = new Map();
      pairKeys.set(model, ofModel);
    }
    let key = ofModel.get(benchmark);
    if (key === undefined) {
      key = `${model}\u0000${benchmark}`;
      ofModel.set(benchmark, key);
    }
    return key;
  };
  for (const [configuration, members] of byConfiguration) {
    const condition = members[0].r.facets[comparisonFacet];
    const groupings: ((x: (typeof members)[number]) => string)[] = [
      (x) => pairKey(x.r.model, x.r.benchmark),
      (x) => pairKey(x.r.model, ALL),
      (x) => pairKey(ALL, x.r.benchmark),
      () => pairKey(ALL, ALL),
    ];
    for (const keyOf of groupings) {
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
