/** Number formatting shared by the text summary, scorecard.md and the HTML report. */
import type { Interval } from "../stats/index.js";

export function pct(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "-" : `${(100 * value).toFixed(digits)}%`;
}

export function pp(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  const v = 100 * value;
  return `${v > 0 ? "+" : ""}${v.toFixed(digits)} pp`;
}

export function num(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
}

/** A p-value: three decimals, or one significant digit in exponent form below 0.001. */
export function pValue(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  return value < 0.001 ? value.toExponential(1) : value.toFixed(3);
}

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
