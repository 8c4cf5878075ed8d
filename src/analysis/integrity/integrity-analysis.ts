/**
 * Measurement integrity: the registered integrity checks (../integrity/) on the cells of the
 * analysed rows, run before any verdict. The gate (study.ts) then downgrades the verdicts whose
 * cells failed a check; this entry prints the section at the top of the summary and scorecard.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type IntegrityCheckResult, type IntegrityResult, runIntegrityChecks } from "./gate.js";
import { plantedLines } from "./planted.js";
import { cardField, registerAnalysis } from "../registry.js";
import { clip, md, textTable } from "../text.js";

declare module "../registry.js" {
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

/** The checks as a table (cells counted, not named), then each affected cell on a line of its own. */
function summaryLines(integrity: IntegrityResult): string[] {
  const affected = integrity.checks.filter((c) => c.cells.length > 0);
  return [
    "measurement integrity (checks on the cells each verdict uses)",
    ...textTable(
      ["check", "status", "threshold", "cells affected", "verdicts downgraded"],
      integrity.checks.map((c) => [
        c.title,
        c.status,
        c.threshold,
        c.cells.length ? cellCount(c.cells.length) : "-",
        c.downgraded.length ? String(c.downgraded.length) : "-",
      ]),
    ),
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
    "| check | status | threshold | detail | cells affected | verdicts downgraded |",
    "|---|---|---|---|---|---|",
    ...integrity.checks.map(
      (c) =>
        `| ${md(c.title)} | ${c.status} | ${md(c.threshold)} | ${md(c.detail)} | ${md(cellsText(c))} | ${md(c.downgraded.join(", ") || "-")} |`,
    ),
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
