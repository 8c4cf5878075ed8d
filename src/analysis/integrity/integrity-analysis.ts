/**
 * Measurement integrity: the registered integrity checks (../integrity/) on the cells of the
 * analysed rows, run before any verdict. The gate (study.ts) then downgrades the verdicts whose
 * cells failed a check; this entry prints the section at the top of the summary and scorecard.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type IntegrityCheckResult, type IntegrityResult, runIntegrityChecks } from "./gate.js";
import { plantedLines } from "./planted.js";
import { cardField, registerAnalysis } from "../core/registry.js";
import { defineTable, renderMarkdown, renderText } from "../core/result-table.js";
import { clip, md } from "../core/text.js";

declare module "../core/registry.js" {
  interface AnalysisResults {
    integrity: IntegrityResult;
  }
  interface ScorecardFields {
    integrity: IntegrityResult;
  }
}

export const INTEGRITY_FAILED_LINE =
  "MEASUREMENT INTEGRITY FAILED: verdicts on the affected cells are not interpretable (see 'Measurement integrity').";

function cellsText(check: IntegrityCheckResult): string {
  if (check.cells.length === 0) return "-";
  return check.cells.map((c) => `${c.condition} / ${c.benchmark}: ${c.reason}`).join("; ");
}

const cellCount = (n: number) => `${n} cell${n === 1 ? "" : "s"}`;

/**
 * One row per check. The terminal counts the cells and verdicts (each affected cell follows on a
 * line of its own); the card names them and adds the check's detail; the report counts them and
 * folds the threshold, the detail and the cells into a details column (src/report/cards/integrity.ts).
 */
export const INTEGRITY_CHECKS_TABLE = defineTable<IntegrityCheckResult>({
  name: "integrity checks",
  columns: [
    { key: "check", header: "check", cell: (c) => c.title },
    { key: "status", header: "status", cell: (c) => c.status },
    { key: "threshold", header: "threshold", cell: (c) => c.threshold, shownIn: ["text", "markdown"] },
    { key: "detail", header: "detail", cell: (c) => c.detail, shownIn: ["markdown"] },
    {
      key: "cells",
      header: "cells affected",
      cell: (c, rendering) =>
        rendering === "markdown" ? cellsText(c) : c.cells.length ? cellCount(c.cells.length) : "-",
    },
    {
      key: "downgraded",
      header: "verdicts downgraded",
      cell: (c, rendering) =>
        rendering === "markdown"
          ? c.downgraded.join(", ") || "-"
          : c.downgraded.length
            ? String(c.downgraded.length)
            : "-",
    },
    { key: "details", header: "details", cell: (c) => c.detail, shownIn: ["html"] },
  ],
});

/** The checks as a table (cells counted, not named), then each affected cell on a line of its own. */
function summaryLines(integrity: IntegrityResult): string[] {
  const affected = integrity.checks.filter((c) => c.cells.length > 0);
  return [
    "measurement integrity (checks on the cells each verdict uses)",
    ...renderText(INTEGRITY_CHECKS_TABLE, integrity.checks),
    ...affected.flatMap((c) => [
      `${c.title} (${c.status}):`,
      ...c.cells.map((cell) => clip(`  ${cell.condition} / ${cell.benchmark}: ${cell.reason}`)),
      ...(c.downgraded.length ? [clip(`  verdicts downgraded: ${c.downgraded.join(", ")}`)] : []),
    ]),
    ...(integrity.failed ? ["", INTEGRITY_FAILED_LINE] : []),
    ...plantedLines(integrity.planted ?? []),
    "",
  ];
}

/** The verdict in a few lines: the counts by status, then each check that did not pass. */
function overviewLines(integrity: IntegrityResult): string[] {
  const counts = new Map<string, number>();
  for (const c of integrity.checks) counts.set(c.status, (counts.get(c.status) ?? 0) + 1);
  const notable = integrity.checks.filter((c) => c.status === "fail" || c.status === "warn");
  return [
    `measurement integrity: ${integrity.failed ? "FAILED" : "passed"} (${[...counts]
      .map(([status, n]) => `${n} ${status}`)
      .join(", ")})`,
    ...notable.map((c) =>
      clip(
        `  ${c.status}: ${c.title}: ${cellCount(c.cells.length)} affected${
          c.downgraded.length ? `, ${c.downgraded.length} verdict(s) downgraded` : ""
        }`,
      ),
    ),
    ...(integrity.failed ? [INTEGRITY_FAILED_LINE] : []),
  ];
}

function markdown(integrity: IntegrityResult): string[] {
  return [
    ...(integrity.failed ? [`**${INTEGRITY_FAILED_LINE}**`, ""] : []),
    ...plantedLines(integrity.planted ?? []).flatMap((line) => [md(line), ""]),
    ...renderMarkdown(INTEGRITY_CHECKS_TABLE, integrity.checks),
  ];
}

registerAnalysis({
  name: "integrity",
  kinds: "every",
  plan: AnalysisPlanSchema.pick({ integrity: true }),
  result: "integrity",
  run: (ctx) =>
    runIntegrityChecks({
      rows: ctx.rows,
      plan: ctx.plan,
      comparisonFacet: ctx.resolved.comparisonFacet,
      reference: ctx.resolved.reference,
      judges: ctx.judges,
      facts: ctx.integrityFacts,
    }),
  summary: ({ analysis }) => summaryLines(analysis.integrity),
  overview: ({ analysis }) => overviewLines(analysis.integrity),
  card: [
    cardField({
      field: "integrity",
      title: "Measurement integrity",
      unnumbered: true,
      build: ({ analysis }) => analysis.integrity,
      markdown: (value) => markdown(value),
    }),
  ],
});
