/**
 * Cohen's kappa between two raters (two judges, or the pattern classifier and a judge) per
 * benchmark, over the responses both rated validly, on the two-label scale the benchmark's rubric
 * compares raters on (rubrics.ts, `agreementScale`). Each row names its raters, their roles and
 * the scale (the label polarity), with the raw agreement and each rater's share of the first
 * label, so that a kappa's sign can be read from the row itself.
 */
import { agreementTable, cohensKappa } from "../../stats/agreement.js";

export interface Rating {
  benchmark: string;
  /** Response key (the blinding UUID). */
  key: string;
  /** The rater's label on the benchmark's agreement scale. */
  label: string;
}

/** Who a rater is: the primary or validation judge, or a deterministic scorer. */
export type RaterRole = "primary_judge" | "validation_judge" | "scorer";

/** The scale of a benchmark's ratings: its two labels (table order) and the polarity in words. */
export interface RatingScale {
  labels: readonly [string, string];
  polarity: string;
}

export interface AgreementRow {
  benchmark: string;
  /** The two raters (ids), first and second. */
  judges: [string, string];
  /** What each rater is. Absent in files written before roles were recorded. */
  roles?: [RaterRole, RaterRole];
  /** The scale both were read on, `labels[0]` first (absent in older files: the outcome). */
  polarity?: { labels: [string, string]; description: string };
  n: number;
  kappa: number;
  /** 95% interval (Fleiss-Cohen-Everitt), within [-1, 1]. */
  ci: [number, number];
  /** Share of responses the two rated alike (raw agreement). */
  observed?: number;
  /** Share of its ratings each rater gave `polarity.labels[0]`. */
  first_label_share?: [number, number];
  /**
   * "cross_judge": primary vs validation judge (the judge-quality check reads these);
   * "scorer_vs_judge": a deterministic scorer against the primary judge (the scorer-artefact check).
   */
  kind?: "cross_judge" | "scorer_vs_judge";
}

export interface AgreementSkip {
  benchmark: string;
  judges: [string, string];
  n: number;
  reason: string;
  kind?: AgreementRow["kind"];
}

/** One row per benchmark both raters rated; degenerate tables (one label only) are reported apart. */
export function agreementByBenchmark(
  raters: { names: [string, string]; roles: [RaterRole, RaterRole] },
  scaleOf: (benchmark: string) => RatingScale,
  first: readonly Rating[],
  second: readonly Rating[],
): { rows: AgreementRow[]; skipped: AgreementSkip[] } {
  const other = new Map(second.map((r) => [r.key, r]));
  const byBenchmark = new Map<string, [string[], string[]]>();
  for (const rating of first) {
    const match = other.get(rating.key);
    if (!match) continue;
    const pair = byBenchmark.get(rating.benchmark) ?? [[], []];
    pair[0].push(rating.label);
    pair[1].push(match.label);
    byBenchmark.set(rating.benchmark, pair);
  }
  const rows: AgreementRow[] = [];
  const skipped: AgreementSkip[] = [];
  const names = raters.names;
  for (const [benchmark, [a, b]] of [...byBenchmark].sort(([x], [y]) => x.localeCompare(y))) {
    const scale = scaleOf(benchmark);
    const labels = [...new Set([...scale.labels, ...a, ...b])];
    const only = new Set([...a, ...b]);
    const result = a.length >= 2 && only.size > 1 ? cohensKappa(agreementTable(labels, a, b)) : undefined;
    if (!result || !Number.isFinite(result.kappa) || !result.ci.every(Number.isFinite)) {
      skipped.push({
        benchmark,
        judges: names,
        n: a.length,
        reason:
          a.length >= 2 && only.size === 1
            ? `kappa undefined: both raters gave "${[...only][0]}" on all ${a.length} responses (raw agreement 100%)`
            : "kappa undefined (fewer than 2 ratings)",
      });
      continue;
    }
    const share = (ratings: string[]) => ratings.filter((l) => l === scale.labels[0]).length / ratings.length;
    rows.push({
      benchmark,
      judges: names,
      roles: raters.roles,
      polarity: { labels: [scale.labels[0], scale.labels[1]], description: scale.polarity },
      n: result.n,
      kappa: result.kappa,
      ci: [Math.max(-1, result.ci[0]), Math.min(1, result.ci[1])],
      observed: result.pObserved,
      first_label_share: [share(a), share(b)],
    });
  }
  return { rows, skipped };
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** A row in one line: the raters, the scale, kappa with its interval, raw agreement and label shares. */
export function agreementLine(row: AgreementRow): string {
  const [a, b] = row.judges;
  const scale = row.polarity ? ` (${row.polarity.labels[0]} vs ${row.polarity.labels[1]})` : " (scale not recorded)";
  const fixed = (x: number) => (Math.abs(x) < 5e-4 ? 0 : x).toFixed(3);
  const head = `${row.benchmark}: ${a} vs ${b}${scale}: kappa ${fixed(row.kappa)} [${fixed(row.ci[0])}, ${fixed(row.ci[1])}], n ${row.n}`;
  if (row.observed === undefined || !row.polarity || !row.first_label_share) return head;
  const [sa, sb] = row.first_label_share;
  return `${head}, raw agreement ${percent(row.observed)}, ${row.polarity.labels[0]} ${percent(sa)} / ${percent(sb)}`;
}

/**
 * What a kappa's sign says about the two raters, read from the row's own shares. Kappa is
 * (agreement - chance agreement) / (1 - chance agreement), chance from each rater's label shares:
 * a rater that gives one label only makes it 0 whatever the other says; below 0 the two disagree
 * more often than their shares predict, which is systematic (one side reads as the first label
 * what the other reads as the second); -1 needs every response rated oppositely with both labels
 * used equally often, i.e. one side's labels inverted.
 */
export function kappaReading(row: AgreementRow): string {
  const shares = row.first_label_share;
  const labels = row.polarity?.labels;
  const constant = oneLabelRater(row);
  if (constant !== undefined && shares && labels) {
    const label = shares[constant] === 1 ? labels[0] : labels[1];
    const observed = row.observed === undefined ? "" : `; raw agreement ${percent(row.observed)}`;
    return `${row.judges[constant]} gave one label only (${label}): kappa is 0 by construction, not a measure of agreement${observed}`;
  }
  if (row.kappa <= -0.999)
    return "every response rated oppositely with both labels equally common: one side's labels read inverted";
  if (row.kappa < 0) {
    const where = shares && labels ? ` (${labels[0]}: ${percent(shares[0])} vs ${percent(shares[1])})` : "";
    return `below chance: the raters disagree more often than their label shares predict${where}, a systematic difference in what they read, not noise`;
  }
  if (row.kappa < 0.2) return "near chance: the raters agree little beyond what their label shares predict";
  return "above chance";
}

/** The rater (0 or 1) that gave one label on every response, if any: the row's kappa is then 0 by construction. */
export function oneLabelRater(row: AgreementRow): 0 | 1 | undefined {
  const shares = row.first_label_share;
  if (!shares) return undefined;
  if (shares[0] === 0 || shares[0] === 1) return 0;
  if (shares[1] === 0 || shares[1] === 1) return 1;
  return undefined;
}

/** Whether the row's kappa measures agreement (both raters used both labels). */
export function kappaInformative(row: AgreementRow): boolean {
  return oneLabelRater(row) === undefined;
}
