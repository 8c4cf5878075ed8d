/**
 * Paired analyses (ScaffoldSafety App. G, 6.3): the same case (model, item, attempt, other facets)
 * under the reference and under a condition. Flip rates show churn that a net difference hides;
 * McNemar tests the discordant pairs. Degradation by item difficulty correlates each item's
 * reference error rate with its rate change (Spearman), with the paper's baseline bins.
 */
import type { FlipRates, McNemarResult, SpearmanResult } from "../../stats/index.js";
import { flipRates, mcnemarTest, pairedTableFromOutcomes, spearman } from "../../stats/index.js";
import { attempt, distinctValues, groupBy, type ScoredRow } from "../core/data.js";

export interface FlipResult {
  condition: string;
  benchmark: string;
  pairs: number;
  flips: FlipRates | null;
  mcnemar: Pick<McNemarResult, "b" | "c" | "exact" | "chiSquareCorrected"> | { error: string } | null;
  /** Set by the integrity gate: why these flips cannot be read. */
  notInterpretable?: string;
}

export interface DifficultyResult {
  condition: string;
  items: number;
  spearman: SpearmanResult | { error: string };
  /** Mean change in an item's rate by its reference accuracy band. */
  bands: { band: string; items: number; meanChange: number | null }[];
  /** Per item, for charts. */
  points: { item: string; difficulty: number; change: number }[];
  /** Why the correlation's p value is not read (too few items for its approximation). */
  pNotInterpretable?: string;
}

/** Why a rank correlation's p value on n pairs is not read, or null (plan: integrity.min_rank_items). */
export function rankPNotInterpretable(n: number, minimum: number, unit = "items"): string | null {
  return n < minimum ? `${n} ${unit} (< ${minimum})` : null;
}

function pairKey(s: ScoredRow, facet: string, facets: readonly string[]): string {
  const others = facets.filter((f) => f !== facet).map((f) => s.row.facets[f]);
  return [s.row.model, s.row.cluster, s.row.attempt, ...others].join("\u0000");
}

/** What the paired analyses compare: the compared facet, its reference and every level. */
export interface PairedComparison {
  facet: string;
  reference: string;
  levels: readonly string[];
}

export function flipAnalysis(
  scored: readonly ScoredRow[],
  comparison: PairedComparison,
  facets: readonly string[],
): FlipResult[] {
  const { facet, reference, levels } = comparison;
  const out: FlipResult[] = [];
  const benchmarks = distinctValues(scored.map((s) => s.row.benchmark));
  const scopes = benchmarks.length > 1 ? ["all", ...benchmarks] : ["all"];
  for (const benchmark of scopes) {
    const rows = benchmark === "all" ? scored : scored.filter((s) => s.row.benchmark === benchmark);
    const referenceByKey = new Map(
      rows.filter((s) => s.row.facets[facet] === reference).map((s) => [pairKey(s, facet, facets), s.y]),
    );
    for (const condition of levels.filter((l) => l !== reference)) {
      const a: number[] = [];
      const b: number[] = [];
      for (const s of rows) {
        if (s.row.facets[facet] !== condition) continue;
        const ref = referenceByKey.get(pairKey(s, facet, facets));
        if (ref === undefined) continue;
        a.push(ref);
        b.push(s.y);
      }
      if (a.length === 0) {
        out.push({ condition, benchmark, pairs: 0, flips: null, mcnemar: null });
        continue;
      }
      const table = pairedTableFromOutcomes(a, b);
      const test = attempt(() => mcnemarTest(table));
      out.push({
        condition,
        benchmark,
        pairs: a.length,
        flips: flipRates(table),
        mcnemar:
          "value" in test
            ? {
                b: test.value.b,
                c: test.value.c,
                exact: test.value.exact,
                chiSquareCorrected: test.value.chiSquareCorrected,
              }
            : test,
      });
    }
  }
  return out;
}

const BANDS: { band: string; test: (accuracy: number) => boolean }[] = [
  { band: "reference accuracy >= 80%", test: (a) => a >= 0.8 },
  { band: "20% to 80%", test: (a) => a >= 0.2 && a < 0.8 },
  { band: "below 20%", test: (a) => a < 0.2 },
];

function itemRates(rows: readonly ScoredRow[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [cluster, group] of groupBy(rows, (s) => s.row.cluster)) {
    let total = 0;
    for (const s of group) total += s.y;
    out.set(cluster, total / group.length);
  }
  return out;
}

/** Difficulty = the reference condition's item error rate, over models, attempts and other facets. */
export function difficultyAnalysis(
  scored: readonly ScoredRow[],
  comparison: PairedComparison,
  minRankItems = 0,
): DifficultyResult[] {
  const { facet, reference, levels } = comparison;
  const referenceRates = itemRates(scored.filter((s) => s.row.facets[facet] === reference));
  return levels
    .filter((l) => l !== reference)
    .map((condition) => {
      const conditionRates = itemRates(scored.filter((s) => s.row.facets[facet] === condition));
      const points = [...conditionRates]
        .filter(([item]) => referenceRates.has(item))
        .map(([item, rate]) => {
          const ref = referenceRates.get(item)!;
          return { item: item.replace("\u0000", "/"), difficulty: 1 - ref, change: rate - ref };
        });
      const correlation = attempt(() =>
        spearman(
          points.map((p) => p.difficulty),
          points.map((p) => p.change),
        ),
      );
      const bands = BANDS.map(({ band, test }) => {
        const members = points.filter((p) => test(1 - p.difficulty));
        const meanChange = members.length ? members.reduce((t, p) => t + p.change, 0) / members.length : null;
        return { band, items: members.length, meanChange };
      });
      const notRead = rankPNotInterpretable(points.length, minRankItems);
      return {
        condition,
        items: points.length,
        spearman: "value" in correlation ? correlation.value : correlation,
        bands,
        points,
        ...(notRead ? { pNotInterpretable: notRead } : {}),
      };
    });
}
