/**
 * Format dependence (ScaffoldSafety 5.1-5.3, App. I): the MC vs open-ended gap on the same items,
 * the scaffold x format 2x2 (do scaffold effects survive within a fixed format?), and the
 * option-preserving decomposition of the map-reduce loss: the share recovered when the MC
 * options reach every sub-call, and the residual NNH of what is left. All intervals are
 * case-cluster bootstraps: a drawn case brings its rows in every cell, so gaps are paired.
 * Format comparisons read only the cases (model and item) seen in both formats (in every cell
 * of the 2x2): a benchmark seen in one format compares different items, so it is named and left
 * out, never pooled into a gap.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { CellStatistic, Interval } from "../../stats/index.js";
import type { NumberNeededEstimate } from "../core/contrast-model.js";
import {
  cellProportion,
  clusterBootstrap,
  clusteredCellCounts,
  gapStatistic,
  numberNeededToHarm,
  tostFromBootstrap,
} from "../../stats/index.js";
import { distinctValues, type ScoredRow } from "../core/data.js";
import { casesInEvery, onCases } from "../core/pairing.js";
import { bracket, numberNeeded, numberNeededText, pct, recoveryNotes, recoveryText } from "../core/text.js";

export interface BootEstimate {
  estimate: number | null;
  ci95: Interval | null;
  undefinedReplicates: number;
}

export interface FormatGap {
  model: string;
  benchmark: string;
  mc: { n: number; rate: number } | null;
  oe: { n: number; rate: number } | null;
  /** OE rate minus MC rate (positive: MC understates the rate). */
  gap: BootEstimate;
}

export interface WithinFormatContrast {
  condition: string;
  rates: {
    referenceMc: number | null;
    referenceOe: number | null;
    conditionMc: number | null;
    conditionOe: number | null;
  };
  rdMc: BootEstimate & { equivalent: boolean | null };
  rdOe: BootEstimate & { equivalent: boolean | null };
  /** rdMc - rdOe: how much more the condition moves MC than OE. */
  interaction: BootEstimate;
  /** Set by the integrity gate: why neither TOST verdict can be read. */
  notInterpretable?: string;
}

export interface RecoveryRow {
  model: string;
  /** Set by the integrity gate: why this recovery cannot be read. */
  notInterpretable?: string;
  n: number;
  rates: { reference: number; standard: number; preserving: number } | null;
  /** Reference minus standard (positive = the standard variant loses). */
  loss: BootEstimate;
  /** Reference minus preserving: the loss left once options propagate. */
  residual: BootEstimate;
  /** (preserving - standard) / loss; null (undefined) when there is no loss. */
  recovery: BootEstimate;
  /**
   * The recovery bootstrap: how many of its resamples had no loss (recovery undefined there),
   * and why its CI is refused (null when it is given): more than the plan's
   * option_preserving.max_undefined_share of the resamples were undefined.
   */
  recoveryResamples: { total: number; undefined: number; ciNotAvailable: string | null };
  /** 1/loss: the map-reduce NNH of this model on these rows (null without a loss). */
  headlineNnh: number | null;
  /** The same as a number needed with direction and Altman's interval (absent in older records). */
  headline?: NumberNeededEstimate | null;
  /** The NNH of what is left once options propagate: from preserving minus reference, with Altman's interval. */
  residualNnh: NumberNeededEstimate | null;
  undefinedReason: string | null;
}

/** The TOST mark of a within-format RD; none once the integrity gate found its cells unreadable. */
export function tostMark(w: WithinFormatContrast, equivalent: boolean | null, mark: string): string {
  return equivalent && !w.notInterpretable ? mark : "";
}

/** A benchmark the format comparison leaves out: no item of it was seen in both formats. */
export interface UnpairedBenchmark {
  benchmark: string;
  /** The formats it was seen in: one, or both on different items. */
  formats: string[];
}

export interface FormatAnalysis {
  facet: string;
  mc: string;
  oe: string;
  /**
   * At the reference condition, on the cases seen in both formats: per model x benchmark, per
   * benchmark, per model, pooled ("all") over the benchmarks with such cases.
   */
  gaps: FormatGap[];
  /** Each condition's 2x2 on the cases seen in all four cells. */
  withinFormat: WithinFormatContrast[];
  /** Benchmarks with no item seen in both formats at the reference, left out (absent when none). */
  unpaired?: UnpairedBenchmark[];
  /**
   * The study family whose items seen in both formats it was computed on, when the primary
   * family has none, with the primary family's benchmarks that were left out.
   */
  family?: { name: string; primaryUnpaired: UnpairedBenchmark[] };
}

export interface OptionPreservingAnalysis {
  standard: string;
  preserving: string;
  /** Rows used: the MC format when a format facet exists. */
  restrictedTo: string | null;
  rows: RecoveryRow[];
  /** The study family whose rows it was computed on, when the variants are not in the main analysis. */
  family?: string;
}

const ALL = "all";

/** The cells a bootstrap counts: each row's cell (null: left out) and the cells in order. */
interface BootCells {
  cellOf: (s: ScoredRow) => string | null;
  cells: string[];
}

function boot(
  scored: readonly ScoredRow[],
  { cellOf, cells }: BootCells,
  statistic: CellStatistic,
  plan: AnalysisPlan,
) {
  const kept = scored.filter((s) => cellOf(s) !== null);
  const counts = clusteredCellCounts(
    {
      cluster: kept.map((s) => s.row.cluster),
      cell: kept.map((s) => cellOf(s)!),
      outcome: Float64Array.from(kept, (s) => s.y),
    },
    cells,
  );
  return clusterBootstrap(counts, statistic, {
    resamples: plan.bootstrap.resamples,
    seed: plan.bootstrap.seed,
    level: plan.bootstrap.level,
  });
}

function estimateOf(result: ReturnType<typeof clusterBootstrap>, k: number): BootEstimate {
  const estimate = result.estimate[k];
  const finite = Number.isFinite(estimate);
  const ci = result.percentileCi[k];
  return {
    estimate: finite ? estimate : null,
    ci95: finite && Number.isFinite(ci[0]) ? ci : null,
    undefinedReplicates: result.undefinedReplicates[k],
  };
}

function rateOf(scored: readonly ScoredRow[]): { n: number; rate: number } | null {
  if (scored.length === 0) return null;
  let s = 0;
  for (const r of scored) s += r.y;
  return { n: scored.length, rate: s / scored.length };
}

/** The comparison a format analysis reads: the compared facet, its reference level and the plan. */
export interface FormatComparison {
  comparisonFacet: string;
  reference: string;
  plan: AnalysisPlan;
}

export function formatAnalysis(
  scored: readonly ScoredRow[],
  comparison: FormatComparison,
  levels: readonly string[],
): FormatAnalysis {
  const { comparisonFacet, reference, plan } = comparison;
  const { facet, mc, oe } = plan.format;
  const atReference = scored.filter((s) => s.row.facets[comparisonFacet] === reference);
  const paired = pairedAcrossFormats(atReference, facet, [mc, oe]);
  const groups: { model: string; benchmark: string; rows: ScoredRow[] }[] = [];
  const models = distinctValues(paired.map((s) => s.row.model));
  const benchmarks = distinctValues(paired.map((s) => s.row.benchmark));
  // Pooled rows only where they pool something (two or more benchmarks / models).
  const withPooled = (values: string[]) => (values.length > 1 ? [...values, ALL] : values);
  for (const benchmark of withPooled(benchmarks)) {
    for (const model of withPooled(models)) {
      const rows = paired.filter(
        (s) => (model === ALL || s.row.model === model) && (benchmark === ALL || s.row.benchmark === benchmark),
      );
      if (rows.length > 0) groups.push({ model, benchmark, rows });
    }
  }
  const gaps = groups.map(({ model, benchmark, rows }): FormatGap => {
    const mcRows = rows.filter((s) => s.row.facets[facet] === mc);
    const oeRows = rows.filter((s) => s.row.facets[facet] === oe);
    const gap =
      mcRows.length && oeRows.length
        ? estimateOf(
            boot(
              rows,
              { cellOf: (s) => s.row.facets[facet], cells: [mc, oe] },
              (t) => [cellProportion(t, 1) - cellProportion(t, 0)],
              plan,
            ),
            0,
          )
        : { estimate: null, ci95: null, undefinedReplicates: 0 };
    return { model, benchmark, mc: rateOf(mcRows), oe: rateOf(oeRows), gap };
  });
  const withinFormat = levels
    .filter((l) => l !== reference)
    .map((condition) => withinFormatContrast(scored, comparison, condition));
  const unpaired = unpairedBenchmarks(atReference, paired, facet, [mc, oe]);
  return { facet, mc, oe, gaps, withinFormat, ...(unpaired.length ? { unpaired } : {}) };
}

/** The rows of the cases (model and item) seen in every one of these formats. */
function pairedAcrossFormats(rows: readonly ScoredRow[], facet: string, formats: readonly string[]): ScoredRow[] {
  const inFormats = rows.filter((s) => formats.includes(s.row.facets[facet]));
  return onCases(inFormats, casesInEvery(formats.map((f) => inFormats.filter((s) => s.row.facets[facet] === f))));
}

/** The benchmarks of these rows with no case seen in both formats, and the formats each was seen in. */
export function unpairedBenchmarks(
  rows: readonly ScoredRow[],
  paired: readonly ScoredRow[],
  facet: string,
  formats: readonly string[],
): UnpairedBenchmark[] {
  const kept = new Set(paired.map((s) => s.row.benchmark));
  const inFormats = rows.filter((s) => formats.includes(s.row.facets[facet]));
  return distinctValues(inFormats.map((s) => s.row.benchmark))
    .filter((b) => !kept.has(b))
    .map((benchmark) => ({
      benchmark,
      formats: formats.filter((f) => inFormats.some((s) => s.row.benchmark === benchmark && s.row.facets[facet] === f)),
    }));
}

/** One line naming a benchmark left out of the format comparison ("xstest: OE only, ..."). */
export function unpairedText(u: UnpairedBenchmark): string {
  const seen =
    u.formats.length === 1
      ? `${u.formats[0].toUpperCase()} only`
      : `${u.formats.map((f) => f.toUpperCase()).join(" and ")} on different items`;
  return `${u.benchmark}: ${seen}, not in the format comparison`;
}

function withinFormatContrast(
  scored: readonly ScoredRow[],
  comparison: FormatComparison,
  condition: string,
): WithinFormatContrast {
  const { comparisonFacet, reference, plan } = comparison;
  const { facet, mc, oe } = plan.format;
  const cells = [`${reference}|${mc}`, `${reference}|${oe}`, `${condition}|${mc}`, `${condition}|${oe}`];
  const cellOf = (s: ScoredRow) => {
    const key = `${s.row.facets[comparisonFacet]}|${s.row.facets[facet]}`;
    return cells.includes(key) ? key : null;
  };
  // The 2x2 on identical items: the cases seen in all four cells.
  const inCells = scored.filter((s) => cellOf(s) !== null);
  const rows = onCases(inCells, casesInEvery(cells.map((c) => inCells.filter((s) => cellOf(s) === c))));
  if (rows.length === 0) return unpairedWithinFormat(condition);
  const did = gapStatistic(2, 0, 3, 1);
  const result = boot(
    rows,
    { cellOf, cells },
    (t) => [cellProportion(t, 2) - cellProportion(t, 0), cellProportion(t, 3) - cellProportion(t, 1), did(t)[0]],
    plan,
  );
  const rateAt = (i: number) => {
    const r = rateOf(rows.filter((s) => cellOf(s) === cells[i]));
    return r ? r.rate : null;
  };
  const equivalence = (k: number) =>
    Number.isFinite(result.estimate[k])
      ? tostFromBootstrap(result.replicates[k], plan.equivalence.margin, plan.equivalence.alpha).equivalent
      : null;
  return {
    condition,
    rates: { referenceMc: rateAt(0), referenceOe: rateAt(1), conditionMc: rateAt(2), conditionOe: rateAt(3) },
    rdMc: { ...estimateOf(result, 0), equivalent: equivalence(0) },
    rdOe: { ...estimateOf(result, 1), equivalent: equivalence(1) },
    interaction: estimateOf(result, 2),
  };
}

/** The lines naming the benchmarks left out of the format comparison, or that none was seen in both. */
export function formatComparisonNotes(f: FormatAnalysis): string[] {
  const lines: string[] = [];
  if (f.family) {
    lines.push(
      `computed on family ${f.family.name}, its items seen in both formats (the primary family has none)`,
      ...f.family.primaryUnpaired.map((u) => `  primary family: ${unpairedText(u)}`),
    );
  }
  if (f.gaps.length === 0) lines.push(`no item was seen in both ${f.mc} and ${f.oe}: no format comparison`);
  lines.push(...(f.unpaired ?? []).map((u) => `  ${unpairedText(u)}`));
  return lines;
}

/** A condition whose 2x2 has no case in all four cells: nothing to compare. */
function unpairedWithinFormat(condition: string): WithinFormatContrast {
  const none = { estimate: null, ci95: null, undefinedReplicates: 0 };
  return {
    condition,
    rates: { referenceMc: null, referenceOe: null, conditionMc: null, conditionOe: null },
    rdMc: { ...none, equivalent: null },
    rdOe: { ...none, equivalent: null },
    interaction: none,
  };
}

export function optionPreservingAnalysis(
  scored: readonly ScoredRow[],
  comparison: FormatComparison,
  hasFormat: boolean,
): OptionPreservingAnalysis {
  const { reference, plan } = comparison;
  const { standard, preserving } = plan.option_preserving;
  const mcOnly = hasFormat ? scored.filter((s) => s.row.facets[plan.format.facet] === plan.format.mc) : [...scored];
  const cells = [reference, standard, preserving];
  const models = distinctValues(mcOnly.map((s) => s.row.model));
  const rows = (models.length > 1 ? [...models, ALL] : models).map((model) =>
    recoveryRow(
      model,
      mcOnly.filter((s) => model === ALL || s.row.model === model),
      cells,
      comparison,
    ),
  );
  return { standard, preserving, restrictedTo: hasFormat ? `${plan.format.facet}=${plan.format.mc}` : null, rows };
}

function recoveryRow(
  model: string,
  scored: readonly ScoredRow[],
  cells: string[],
  comparison: FormatComparison,
): RecoveryRow {
  const { comparisonFacet: facet, plan } = comparison;
  const cellOf = (s: ScoredRow) => (cells.includes(s.row.facets[facet]) ? s.row.facets[facet] : null);
  const used = scored.filter((s) => cellOf(s) !== null);
  const rates = cells.map((c) => rateOf(used.filter((s) => s.row.facets[facet] === c)));
  const none: BootEstimate = { estimate: null, ci95: null, undefinedReplicates: 0 };
  if (rates.some((r) => r === null)) {
    return {
      model,
      n: used.length,
      rates: null,
      loss: none,
      residual: none,
      recovery: none,
      recoveryResamples: { total: 0, undefined: 0, ciNotAvailable: null },
      headlineNnh: null,
      residualNnh: null,
      undefinedReason: "a condition has no rows",
    };
  }
  const result = boot(
    used,
    { cellOf, cells },
    (t) => {
      const [pRef, pStd, pPres] = [0, 1, 2].map((c) => cellProportion(t, c));
      const loss = pRef - pStd;
      // Recovery is a share of a loss: undefined when the standard variant loses nothing.
      return [loss, pRef - pPres, loss > 0 ? (pPres - pStd) / loss : Number.NaN];
    },
    plan,
  );
  const loss = estimateOf(result, 0);
  const residual = estimateOf(result, 1);
  const { recovery, recoveryResamples } = refusedRecoveryCi(estimateOf(result, 2), plan);
  const residualRd = residual.estimate === null ? null : -residual.estimate;
  const headline =
    loss.estimate === null || loss.ci95 === null
      ? null
      : numberNeededToHarm(-loss.estimate, [-loss.ci95[1], -loss.ci95[0]]);
  const nnh =
    residualRd === null || residual.ci95 === null
      ? null
      : numberNeededToHarm(residualRd, [-residual.ci95[1], -residual.ci95[0]]);
  return {
    model,
    n: used.length,
    rates: { reference: rates[0]!.rate, standard: rates[1]!.rate, preserving: rates[2]!.rate },
    loss,
    residual,
    recovery,
    recoveryResamples,
    headlineNnh: loss.estimate !== null && loss.estimate > 0 ? 1 / loss.estimate : null,
    headline: headline
      ? { value: headline.value, ci95: headline.ci, direction: headline.direction, interval: headline.interval }
      : null,
    residualNnh: nnh ? { value: nnh.value, ci95: nnh.ci, direction: nnh.direction, interval: nnh.interval } : null,
    undefinedReason:
      loss.estimate !== null && loss.estimate > 0 ? null : "no loss under the standard variant: recovery undefined",
  };
}

/**
 * Recovery is undefined in a resample with no loss, and its percentile CI is read from the
 * defined resamples only: conditional on a loss it may not have. When more than the declared
 * share of resamples is undefined, that CI is refused (null), with the reason.
 */
function refusedRecoveryCi(
  recovery: BootEstimate,
  plan: AnalysisPlan,
): { recovery: BootEstimate; recoveryResamples: RecoveryRow["recoveryResamples"] } {
  const total = plan.bootstrap.resamples;
  const undefinedCount = recovery.undefinedReplicates;
  const max = plan.option_preserving.max_undefined_share;
  const refused = recovery.estimate !== null && undefinedCount / total > max;
  const ciNotAvailable = refused
    ? `${undefinedCount} of ${total} resamples (${Math.round((undefinedCount / total) * 100)}%) had no loss and no recovery, more than the declared ${Math.round(max * 100)}%`
    : null;
  return {
    recovery: refused ? { ...recovery, ci95: null } : recovery,
    recoveryResamples: { total, undefined: undefinedCount, ciNotAvailable },
  };
}

/**
 * The recovery cell of a table: the estimate with its CI (explained where it leaves [0, 100]),
 * or why there is none, and how many bootstrap resamples were undefined.
 */
export function recoveryCell(row: RecoveryRow): string {
  if (row.notInterpretable) return `not interpretable: ${row.notInterpretable}`;
  if (row.recovery.estimate === null) return `undefined (${row.undefinedReason ?? "no estimate"})`;
  const {
    undefined: undefinedCount,
    total,
    ciNotAvailable,
  } = row.recoveryResamples ?? {
    undefined: 0,
    total: 0,
    ciNotAvailable: null,
  };
  if (ciNotAvailable) return `${recoveryText(row.recovery.estimate)} (CI not available: ${ciNotAvailable})`;
  const note = undefinedCount > 0 ? ` (${undefinedCount} of ${total} resamples undefined)` : "";
  return `${recoveryText(row.recovery.estimate, row.recovery.ci95)}${note}`;
}

/** A recovery row's last three cells: the recovery, the headline and the residual number needed. */
export function recoveryRowCells(row: RecoveryRow): [string, string, string] {
  if (row.notInterpretable) return [recoveryCell(row), "not interpretable", "not interpretable"];
  const headline = row.headline !== undefined ? numberNeededText(row.headline) : numberNeeded(row.headlineNnh, "harm");
  return [recoveryCell(row), headline, numberNeededText(row.residualNnh)];
}

/**
 * A recovery row as a short cell (the estimate and its CI, or why there is none) and its notes,
 * for tables that list the notes below them so that they fit a terminal.
 */
export function recoveryCellAndNotes(row: RecoveryRow): { cell: string; notes: string[] } {
  if (row.notInterpretable) return { cell: "not interpretable", notes: [`not interpretable: ${row.notInterpretable}`] };
  const estimate = row.recovery.estimate;
  if (estimate === null) return { cell: "undefined", notes: [row.undefinedReason ?? "no estimate"] };
  const ciNotAvailable = row.recoveryResamples?.ciNotAvailable ?? null;
  const ci = ciNotAvailable ? null : row.recovery.ci95;
  const notes = recoveryNotes(estimate, ci);
  if (ciNotAvailable) notes.push(`CI not available: ${ciNotAvailable}`);
  return { cell: `${pct(estimate, 0)}${ci ? ` ${bracket(ci, (v) => pct(v, 0))}` : ""}`, notes };
}

/** "168/2000" resamples of the recovery bootstrap without a loss (recovery undefined there), "-" for none. */
export function undefinedResamplesCell(row: RecoveryRow): string {
  const resamples = row.recoveryResamples;
  return resamples && resamples.undefined > 0 ? `${resamples.undefined}/${resamples.total}` : "-";
}

/**
 * The pooled recovery in one overview line, under the contrasts it explains: "option-preserving
 * recovery (map_reduce_options vs map_reduce, mc, all models): 72% [20%, 143%] of the loss".
 * None when the analysis did not run or was skipped (its --full section says why).
 */
export function recoveryOverviewLine(op: OptionPreservingAnalysis | { skipped: string } | undefined): string[] {
  if (!op || "skipped" in op) return [];
  const row = op.rows.find((r) => r.model === ALL) ?? (op.rows.length === 1 ? op.rows[0] : undefined);
  if (!row) return [];
  const where = [
    op.restrictedTo ? op.restrictedTo.slice(op.restrictedTo.indexOf("=") + 1) : null,
    row.model === ALL ? "all models" : row.model,
  ].filter(Boolean);
  const { cell, notes } = recoveryCellAndNotes(row);
  const ciNotAvailable = row.recoveryResamples?.ciNotAvailable;
  const read =
    row.recovery.estimate === null || row.notInterpretable
      ? `${cell} (${notes.join("; ")})`
      : `${cell} of the loss${ciNotAvailable ? ` (CI not available: ${ciNotAvailable})` : ""}`;
  return [`option-preserving recovery (${op.preserving} vs ${op.standard}, ${where.join(", ")}): ${read}`];
}
