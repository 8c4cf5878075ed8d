/**
 * Measurement integrity: the registered integrity checks (../integrity/) on the cells of the
 * analysed rows, run before any verdict. The gate (study.ts) then downgrades the verdicts whose
 * cells failed a check; this entry prints the section at the top of the summary and scorecard.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type IntegrityCheckResult, type IntegrityResult, runIntegrityChecks } from "./gate.js";
import { plantedLines } from "./planted.js";
import { cardField, registerAnalysis } from "../registry.js";
import { md, textTable } from "../text.js";

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

function summaryLines(integrity: IntegrityResult): string[] {
  return [
    "measurement integrity (checks on the cells each verdict uses)",
    ...textTable(
      ["check", "status", "threshold", "cells affected", "verdicts downgraded"],
      integrity.checks.map((c) => [
        c.title,
        c.status,
        c.threshold,
        cellsText(c),
        c.downgraded.length ? c.downgraded.join(", ") : "-",
      ]),
    ),
    ...(integrity.failed ? ["", INTEGRITY_FAILED_LINE] : []),
    ...plantedLines(integrity.planted ?? []),
    "",
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
  plan: AnalysisPlanSchema.pick({ integrity: true }),
  result: "integrity",
  run: (ctx) =>
    runIntegrityChecks(
      ctx.rows,
      ctx.plan,
      ctx.resolved.comparisonFacet,
      ctx.resolved.reference,
      ctx.judges,
      ctx.integrityFacts,
    ),
  summary: ({ analysis }) => summaryLines(analysis.integrity),
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
