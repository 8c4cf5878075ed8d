/**
 * The headline figures of docs/PERFORMANCE.md, kept in one file (bench/headline.json) that the
 * doc quotes and `npm run bench:check` re-measures: reading and checking that file, comparing a
 * measurement with its documented value, and printing the two side by side. No timing here.
 */
import { readFileSync } from "node:fs";

export interface HeadlineFigure {
  /** Stable key; bench/check.ts maps it to the measurement that re-takes it. */
  id: string;
  /** What the figure is, as the doc's headline table names it. */
  figure: string;
  /** The documented value, in `unit`. */
  value: number;
  unit: string;
  /** Whether a larger value is better (a speed-up) or a smaller one (seconds). */
  better: "higher" | "lower";
  /** The command that re-measures it, and what it is compared with in the same sitting. */
  command: string;
  anchor: string;
  /** The 1-minute load average when it was taken, and the date (YYYY-MM-DD). */
  load: string;
  date: string;
  /** A target the figure must meet, in `unit` (reached when on the `better` side of it). */
  target?: number;
}

/** How far a re-measurement may stray from the documented value before it needs correcting. */
export const TOLERANCE = 0.15;

const FIELDS: Record<keyof HeadlineFigure, "string" | "number"> = {
  id: "string",
  figure: "string",
  value: "number",
  unit: "string",
  better: "string",
  command: "string",
  anchor: "string",
  load: "string",
  date: "string",
  target: "number",
};

/** Checks the parsed headline file: every figure with its fields, ids unique. Throws naming the figure and field. */
export function parseHeadlines(text: string, file = "bench/headline.json"): HeadlineFigure[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON: ${(error as Error).message}`);
  }
  const list = (data as { figures?: unknown }).figures;
  if (!Array.isArray(list) || list.length === 0)
    throw new Error(`${file}: expected { "figures": [ ... ] } with at least one figure`);
  const seen = new Set<string>();
  return list.map((entry, index) => {
    const where = `${file}: figures[${index}]`;
    if (typeof entry !== "object" || entry === null) throw new Error(`${where}: expected an object`);
    const record = entry as Record<string, unknown>;
    for (const [field, type] of Object.entries(FIELDS)) {
      if (field === "target" && record[field] === undefined) continue;
      if (typeof record[field] !== type)
        throw new Error(`${where}: field '${field}' must be a ${type}, found ${JSON.stringify(record[field])}`);
    }
    if (record.better !== "higher" && record.better !== "lower") {
      throw new Error(`${where}: field 'better' must be "higher" or "lower", found ${JSON.stringify(record.better)}`);
    }
    if (!(Number.isFinite(record.value) && (record.value as number) > 0)) {
      throw new Error(`${where}: field 'value' must be a positive number, found ${record.value}`);
    }
    if (seen.has(record.id as string)) throw new Error(`${where}: id '${record.id}' appears twice`);
    seen.add(record.id as string);
    return record as unknown as HeadlineFigure;
  });
}

export function readHeadlines(path: string): HeadlineFigure[] {
  return parseHeadlines(readFileSync(path, "utf8"), path);
}

/** The value as the doc prints it: 3 significant digits at most, thousands separated. */
export function formatValue(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const number = value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit === "x" ? `${number}x` : unit === "%" ? `${number}%` : `${number} ${unit}`;
}

export interface Comparison {
  figure: HeadlineFigure;
  measured: number | undefined;
  /** measured / documented - 1 (undefined when not measured). */
  deviation: number | undefined;
  reproduces: boolean | undefined;
  meetsTarget: boolean | undefined;
  /** Why it was not measured, when it was not. */
  note?: string;
}

export function compare(figure: HeadlineFigure, measured: number | undefined, note?: string): Comparison {
  if (measured === undefined || !Number.isFinite(measured)) {
    return { figure, measured: undefined, deviation: undefined, reproduces: undefined, meetsTarget: undefined, note };
  }
  const deviation = measured / figure.value - 1;
  const meetsTarget =
    figure.target === undefined
      ? undefined
      : figure.better === "higher"
        ? measured >= figure.target
        : measured <= figure.target;
  return { figure, measured, deviation, reproduces: Math.abs(deviation) <= TOLERANCE, meetsTarget, note };
}

/** The side-by-side table bench:check prints (Markdown). */
export function formatComparisons(rows: readonly Comparison[]): string {
  const lines = [
    "| figure | documented | measured | measured / documented | within 15% | target |",
    "| --- | ---: | ---: | ---: | --- | --- |",
  ];
  for (const row of rows) {
    const { figure } = row;
    const target =
      figure.target === undefined
        ? "-"
        : `${figure.better === "higher" ? ">=" : "<="} ${formatValue(figure.target, figure.unit)}: ${
            row.meetsTarget === undefined ? "not measured" : row.meetsTarget ? "met" : "NOT met"
          }`;
    lines.push(
      `| ${figure.figure} | ${formatValue(figure.value, figure.unit)} | ${
        row.measured === undefined
          ? `not measured${row.note ? ` (${row.note})` : ""}`
          : formatValue(row.measured, figure.unit)
      } | ${row.deviation === undefined ? "-" : `${(1 + row.deviation).toFixed(2)}`} | ${
        row.reproduces === undefined ? "-" : row.reproduces ? "yes" : "NO"
      } | ${target} |`,
    );
  }
  return lines.join("\n");
}

/**
 * The figures whose documented value docs/PERFORMANCE.md does not quote in its headline table
 * (a row naming the figure and its value as formatValue prints it): the doc and the JSON disagree.
 */
export function unquotedFigures(doc: string, figures: readonly HeadlineFigure[]): HeadlineFigure[] {
  const rows = doc.split("\n").filter((line) => line.startsWith("|"));
  return figures.filter((figure) => {
    const value = formatValue(figure.value, figure.unit);
    return !rows.some((row) => row.includes(`| ${figure.figure} |`) && row.includes(`| ${value} |`));
  });
}
