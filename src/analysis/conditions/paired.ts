/**
 * Paired analyses (ScaffoldSafety App. G, 6.3): the same case (model, item, attempt, other facets)
 * under the reference and under a condition. Flip rates show churn that a net difference hides;
 * McNemar tests the discordant pairs. Degradation by item difficulty correlates each item's
 * reference error rate with its rate change (Spearman), with the paper's baseline bins.
 */
import type { FlipRates, McNemarResult, SpearmanResult } from "../../stats/index.js";
import { flipRates, mcnemarTest, pairedTableFromOutcomes, spearman } from "../../stats/index.js";
import { attempt, distinctValues, groupBy, type ScoredRow } from "../core/data.js";
import { Dictionary } from "../../core/dictionary.js";
import { joinText } from "../core/pairing.js";

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

/**
 * Each row's pair: rows with the same model, item (cluster), attempt and values of the other
 * facets have the same id. The values are numbered (the facets through the rows' shared records,
 * one per condition) and the numbers paired step by step, so no key string and no map per case
 * is made: a paper-scale table has some hundred thousand cases.
 */
function pairIds(scored: readonly ScoredRow[], others: readonly string[]): Int32Array {
  const tailOf = new Map<Record<string, string>, number>();
  const tails = new Dictionary<string>();
  const models = new Dictionary<string>();
  const clusters = new Dictionary<string>();
  const attempts = new Dictionary<string>();
  const [ofModel, ofItem, ofAttempt] = [new PairCodes(), new PairCodes(), new PairCodes()];
  const ids = new Int32Array(scored.length);
  scored.forEach(({ row }, i) => {
    let tail = tailOf.get(row.facets);
    if (tail === undefined) {
      tail = tails.code(JSON.stringify(others.map((f) => joinText(row.facets[f]))));
      tailOf.set(row.facets, tail);
    }
    const model = ofModel.code(tail, models.code(row.model));
    const item = ofItem.code(model, clusters.code(row.cluster));
    ids[i] = ofAttempt.code(item, attempts.code(joinText(row.attempt)));
  });
  return ids;
}

/** Dense codes of pairs of codes, in first-seen order: one number-keyed map, no map per first code. */
class PairCodes {
  private static readonly SPAN = 2 ** 26;
  private readonly codes = new Map<number, number>();
  code(first: number, second: number): number {
    if (second >= PairCodes.SPAN) throw new Error(`more than ${PairCodes.SPAN} values to pair`);
    const key = first * PairCodes.SPAN + second;
    let code = this.codes.get(key);
    if (code === undefined) {
      code = this.codes.size;
      this.codes.set(key, code);
    }
    return code;
  }
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
  // Each row's pair is found once, whatever the number of scopes and conditions it is read in.
  const keys = pairIds(
    scored,
    facets.filter((f) => f !== facet),
  );
  const all = scored.map((_, i) => i);
  for (const benchmark of scopes) {
    const indices = benchmark === "all" ? all : all.filter((i) => scored[i].row.benchmark === benchmark);
    const byLevel = groupBy(indices, (i) => scored[i].row.facets[facet]);
    const referenceByKey = new Map<number, number>();
    for (const i of byLevel.get(reference) ?? []) referenceByKey.set(keys[i], scored[i].y);
    for (const condition of levels.filter((l) => l !== reference)) {
      const a: number[] = [];
      const b: number[] = [];
      for (const i of byLevel.get(condition) ?? []) {
        const ref = referenceByKey.get(keys[i]);
        if (ref === undefined) continue;
        a.push(ref);
        b.push(scored[i].y);
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
