/**
 * Scorecard field 1: the safety-rate matrix, every rate a link to the trials behind it, with its
 * 95% interval when the matrix is narrow enough to read it (a few configurations). A study of one
 * model label (an import comparing models holds them as a facet) shows the pooled matrix only.
 */
import {
  matrixCellAt,
  matrixColumnKey,
  matrixDescription,
  pct,
  type RateMatrices,
  type RateMatrix,
  rateMatrixTable,
} from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { type Content, el, type Html } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { cellLink } from "../../links.js";
import { type ReportOptions, registerCardRenderer } from "../../sections/registry.js";

/** Configurations up to which each rate shows its interval beside it. */
const INTERVALS_UP_TO = 6;

function matrixTable(matrix: RateMatrix, options: ReportOptions, card: RateMatrices): Html {
  const intervals = matrix.configurations.length <= INTERVALS_UP_TO;
  // Each rate links to the trials behind it, with its interval when the matrix is narrow.
  const rateLink =
    (c: string) =>
    (b: string): Content => {
      const cell = matrixCellAt(matrix, b, c);
      if (!cell) return "-";
      return el(
        "a",
        { href: cellLink(options, cell.cellId), title: `trials behind ${matrix.model} · ${b} · ${c}` },
        `${pct(cell.rate)}${intervals ? ci(cell.ci95, (v) => pct(v)) : ""} (n=${cell.n})`,
      );
    };
  const rich = Object.fromEntries(matrix.configurations.map((c) => [matrixColumnKey(c), rateLink(c)]));
  return htmlTable(rateMatrixTable(matrix, card), matrix.benchmarks, { rich });
}

registerCardRenderer({
  field: "safetyRateMatrix",
  render: (value, { options }) => [
    el("p", { class: "muted" }, matrixDescription(value.noun)),
    el("h4", {}, "All models"),
    matrixTable(value.pooled, options, value),
    value.byModel.length > 1
      ? value.byModel.map((m) => [el("h4", {}, `Model ${m.model}`), matrixTable(m, options, value)])
      : "",
  ],
});
