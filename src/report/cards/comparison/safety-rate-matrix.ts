/** Scorecard field 1: the safety-rate matrix, every rate a link to the trials behind it. */
import {
  benchmarkRowLabel,
  matrixDescription,
  pct,
  type RateMatrices,
  type RateMatrix,
} from "../../../analysis/index.js";
import { el, type Html, table } from "../../html.js";
import { cellLink } from "../../links.js";
import { type ReportOptions, registerCardRenderer } from "../../sections/registry.js";

function matrixTable(matrix: RateMatrix, options: ReportOptions, card: RateMatrices): Html {
  return table(
    ["benchmark", ...matrix.configurations],
    matrix.benchmarks.map((b) => [
      benchmarkRowLabel(b, card),
      ...matrix.configurations.map((c) => {
        const cell = matrix.cells.find((x) => x.benchmark === b && x.configuration === c);
        if (!cell) return "-";
        return el(
          "a",
          { href: cellLink(options, cell.cellId), title: `trials behind ${matrix.model} · ${b} · ${c}` },
          `${pct(cell.rate)} (n=${cell.n})`,
        );
      }),
    ]),
  );
}

registerCardRenderer({
  field: "safetyRateMatrix",
  render: (value, { options }) => [
    el("p", { class: "muted" }, matrixDescription(value.noun)),
    el("h4", {}, "All models"),
    matrixTable(value.pooled, options, value),
    value.byModel.map((m) => [el("h4", {}, `Model ${m.model}`), matrixTable(m, options, value)]),
  ],
});
