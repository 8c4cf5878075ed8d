/**
 * Scorecard field 2: NNT/NNH per configuration against the reference, per scope (pooled, per
 * benchmark, per model; within each format when format is a facet), and App. I's headline and
 * residual NNH of the option-preserving variant. Every number needed goes through
 * `numberNeededText` (rounded up, Altman's interval).
 */
import {
  NNH_TABLE,
  type NnhCard,
  type NnhRow,
  nnhExplanation,
  RESIDUAL_NNH_TABLE,
  residualExplanation,
} from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { registerCardRenderer } from "../../sections/registry.js";

registerCardRenderer({
  field: "nnh",
  render: (value, { card }) => {
    // A scorecard written before the card held residual NNHs stores the rows alone.
    const nnh: NnhCard = Array.isArray(value)
      ? { reference: card.comparison.reference, rows: value as NnhRow[], residual: { skipped: "older record" } }
      : value;
    const residual = nnh.residual;
    return [
      el("p", { class: "muted" }, nnhExplanation(card.comparison.reference, nnh.noun)),
      htmlTable(NNH_TABLE, nnh.rows),
      "skipped" in residual
        ? []
        : [
            el(
              "p",
              { class: "muted" },
              residualExplanation(residual.standard, residual.preserving, residual.restrictedTo),
            ),
            htmlTable(RESIDUAL_NNH_TABLE, residual.rows),
          ],
    ];
  },
});
