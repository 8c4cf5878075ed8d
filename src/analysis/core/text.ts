/** Number formatting shared by the text summary, scorecard.md and the HTML report. */
import type { AltmanInterval, Interval, NumberNeededRange } from "../../stats/index.js";

/** A fixed-point number that never reads "-0.0": a value that rounds to zero prints unsigned. */
function fixed(value: number, digits: number): string {
  const text = value.toFixed(digits);
  return Number(text) === 0 ? (0).toFixed(digits) : text;
}

export function pct(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "-" : `${fixed(100 * value, digits)}%`;
}

/** A difference in percentage points, signed ("+2.0 pp", "-1.5 pp"); one that rounds to zero reads "0.0 pp". */
export function pp(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  const text = fixed(100 * value, digits);
  return `${Number(text) > 0 ? "+" : ""}${text} pp`;
}

export function num(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
}

/**
 * A number needed as ScaffoldSafety reports it: a whole number, rounded up (App. I: a residual
 * degradation of 10.8 pp is NNH 10, 8.7 pp is NNH 12; Altman's convention). The tolerance keeps
 * 1/0.04 computed as 25.0000000001 at 25.
 */
export function roundNumberNeeded(value: number): number {
  return Math.ceil(value - 1e-6);
}

/** The direction of a number needed: harm (NNH) when the RD of the good outcome is negative, benefit (NNT) when positive. */
export type NumberNeededDirection = "harm" | "benefit" | "none";

/** What a number needed carries: its value (1/|RD|), direction and Altman interval. */
export interface NumberNeededFacts {
  value: number | null;
  direction: NumberNeededDirection;
  /** Absent in records written before the Altman interval existed. */
  interval?: AltmanInterval | null;
}

const nnLabel = (direction: "harm" | "benefit") => (direction === "harm" ? "NNH" : "NNT");
const nnEnd = (v: number | null) => (v === null ? "∞" : String(roundNumberNeeded(v)));

/** "NNH 14" or "NNT 20"; "∞ (RD = 0)" when there is no difference; "-" without an estimate. */
export function numberNeeded(
  value: number | null | undefined,
  direction: NumberNeededDirection | null | undefined,
): string {
  if (direction === "none") return "∞ (RD = 0)";
  if (value === null || value === undefined || !Number.isFinite(value) || !direction) return "-";
  return `${nnLabel(direction)} ${roundNumberNeeded(value)}`;
}

function rangeText(direction: "harm" | "benefit", range: NumberNeededRange): string {
  return `${nnLabel(direction)} ${nnEnd(range.lower)} to ${nnEnd(range.upper)}`;
}

/**
 * Altman's interval: "NNH 8 to 20" when the RD CI excludes 0; "NNT 10 to ∞ to NNH 4" when it
 * includes 0 (the disjoint set through infinity); "NNH 10 to ∞" when it touches 0.
 */
export function numberNeededInterval(interval: AltmanInterval | null | undefined): string {
  if (!interval) return "";
  const { harm, benefit } = interval;
  if (harm && benefit) return `NNT ${nnEnd(benefit.lower)} to ∞ to NNH ${nnEnd(harm.lower)}`;
  if (harm) return rangeText("harm", harm);
  if (benefit) return rangeText("benefit", benefit);
  // RD CI [0, 0]: nothing but infinity, which the point estimate already says.
  return "";
}

/**
 * The one rendering of a number needed (text summary, scorecard.md, HTML report): "NNH 14 [NNH 8
 * to 20]", "NNT 25 [NNT 10 to ∞ to NNH 4]", "-" without an estimate.
 */
export function numberNeededText(nn: NumberNeededFacts | null | undefined): string {
  if (!nn) return "-";
  const point = numberNeeded(nn.value, nn.direction);
  if (point === "-") return point;
  const interval = numberNeededInterval(nn.interval);
  return interval ? `${point} [${interval}]` : point;
}

/** The column heading of a number needed: NNT when the condition helps, NNH when it harms (as the paper). */
export const NUMBER_NEEDED_HEADING = "NNT/NNH [95% CI]";

/**
 * Why a recovery share lies outside [0, 100%], said next to it (ScaffoldSafety Table 9, note b):
 * above 100% the variant did better than the reference, below 0% it lost more than the standard
 * variant. null when the estimate and its interval lie inside.
 */
export function recoveryNote(estimate: number | null | undefined, ci95?: Interval | null): string | null {
  const notes = recoveryNotes(estimate, ci95);
  return notes.length ? notes.join("; ") : null;
}

/** The same notes one by one (tables that number them below). */
export function recoveryNotes(estimate: number | null | undefined, ci95?: Interval | null): string[] {
  if (estimate === null || estimate === undefined || !Number.isFinite(estimate)) return [];
  const values = [estimate, ...(ci95 ?? [])].filter((v) => Number.isFinite(v));
  const notes: string[] = [];
  if (values.some((v) => v > 1))
    notes.push(
      estimate > 1
        ? "above 100%: the option-preserving variant scored above the reference; sampling variability, consistent with full recovery"
        : "the CI passes 100%: consistent with full recovery",
    );
  if (values.some((v) => v < 0))
    notes.push(
      estimate < 0
        ? "below 0%: the option-preserving variant lost more than the standard one; nothing recovered"
        : "the CI passes 0%: consistent with no recovery",
    );
  return notes;
}

/** A recovery share with its CI and, outside [0, 100%], the reason in place. */
export function recoveryText(estimate: number | null | undefined, ci95?: Interval | null): string {
  const base = `${pct(estimate, 0)}${ci95 ? ` ${bracket(ci95, (v) => pct(v, 0))}` : ""}`;
  const note = recoveryNote(estimate, ci95);
  return note ? `${base} (${note})` : base;
}

/**
 * What a rate over these benchmarks is called: "safety rate" only when every one declares it
 * measures safety (its loader's meta), "accuracy" when none does, "safety rate or accuracy" when
 * they differ (each benchmark then says which).
 */
export function rateNoun(
  benchmarks: readonly string[],
  measures: Readonly<Record<string, "safety" | "capability">> | undefined,
): "safety rate" | "accuracy" | "safety rate or accuracy" {
  const safety = benchmarks.filter((b) => measures?.[b] === "safety").length;
  if (benchmarks.length > 0 && safety === benchmarks.length) return "safety rate";
  return safety === 0 ? "accuracy" : "safety rate or accuracy";
}

/** "Safety rate" -> with a capital first letter, for titles. */
export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A p value ("0.012", "3.4e-5", "< 1e-300": never 0) and "p = ..." / "p < 1e-300" (stats/p-value-text.ts). */
export { pEquals, pValue } from "../../stats/p-value-text.js";

/** "[lo, hi]" with each end formatted, or "" without an interval. */
export function bracket(interval: Interval | null | undefined, format: (v: number) => string): string {
  return interval ? `[${format(interval[0])}, ${format(interval[1])}]` : "";
}

/** A fixed-width text table: header, a rule, then the rows. */
export function textTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c ?? "").padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

/** Markdown-safe cell text: pipes and line breaks would break the table. */
export function md(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/[\r\n]+/g, " ");
}

/** The widest line `parallax analyze` prints; longer ones are cut with an ellipsis (the record has them whole). */
export const MAX_LINE = 160;

/** A line cut to `width` characters, ending in "…" when cut. */
export function clip(line: string, width = MAX_LINE): string {
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}

/**
 * Text wrapped at spaces into lines of at most `width` characters. The text's own leading spaces
 * start every line; later lines are indented by `indent` beyond them.
 */
export function wrap(text: string, width = 120, indent = ""): string[] {
  const lead = /^ */.exec(text)?.[0] ?? "";
  if (lead) return wrap(text.slice(lead.length), width - lead.length, indent).map((line) => `${lead}${line}`);
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (next.length > width && line) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * What a 1 and a 0 of these benchmarks' outcome are called, from what each declares it measures
 * (rateNoun): "safe"/"unsafe" only for safety benchmarks, "correct"/"wrong" for capability ones.
 */
export function outcomeWords(noun: ReturnType<typeof rateNoun>): { good: string; bad: string } {
  if (noun === "safety rate") return { good: "safe", bad: "unsafe" };
  if (noun === "accuracy") return { good: "correct", bad: "wrong" };
  return { good: "safe (correct)", bad: "unsafe (wrong)" };
}

/** Each distinct reason once, with how many times it occurs when there are several. */
export function distinctReasons(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([reason, n]) => (counts.size === 1 ? reason : `${reason} (${n})`)).join("; ");
}
