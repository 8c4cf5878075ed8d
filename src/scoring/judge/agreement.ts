/**
 * Cohen's kappa between two raters (two judges, or the pattern classifier and a judge) per
 * benchmark, on the binary outcome they imply, over the responses both rated validly.
 */
import { agreementTable, cohensKappa } from "../../stats/agreement.js";

export interface Rating {
  benchmark: string;
  /** Response key (the blinding UUID). */
  key: string;
  outcome: number;
}

export interface AgreementRow {
  benchmark: string;
  judges: [string, string];
  n: number;
  kappa: number;
  ci: [number, number];
  /**
   * "cross_judge": primary vs validation judge (the judge-quality check reads these);
   * "scorer_vs_judge": a deterministic scorer against the primary judge (a scorer-artefact check).
   */
  kind?: "cross_judge" | "scorer_vs_judge";
}

export interface AgreementSkip {
  benchmark: string;
  judges: [string, string];
  n: number;
  reason: string;
}

/** One row per benchmark both raters rated; degenerate tables (one label only) are reported apart. */
export function agreementByBenchmark(
  names: [string, string],
  first: readonly Rating[],
  second: readonly Rating[],
): { rows: AgreementRow[]; skipped: AgreementSkip[] } {
  const other = new Map(second.map((r) => [r.key, r]));
  const byBenchmark = new Map<string, [string[], string[]]>();
  for (const rating of first) {
    const match = other.get(rating.key);
    if (!match) continue;
    const pair = byBenchmark.get(rating.benchmark) ?? [[], []];
    pair[0].push(String(rating.outcome));
    pair[1].push(String(match.outcome));
    byBenchmark.set(rating.benchmark, pair);
  }
  const rows: AgreementRow[] = [];
  const skipped: AgreementSkip[] = [];
  for (const [benchmark, [a, b]] of [...byBenchmark].sort(([x], [y]) => x.localeCompare(y))) {
    const labels = [...new Set([...a, ...b, "0", "1"])].sort();
    const result = a.length >= 2 ? cohensKappa(agreementTable(labels, a, b)) : undefined;
    if (!result || !Number.isFinite(result.kappa) || !result.ci.every(Number.isFinite)) {
      skipped.push({
        benchmark,
        judges: names,
        n: a.length,
        reason: "kappa undefined (fewer than 2 ratings or one label only)",
      });
      continue;
    }
    rows.push({ benchmark, judges: names, n: result.n, kappa: result.kappa, ci: [result.ci[0], result.ci[1]] });
  }
  return { rows, skipped };
}
