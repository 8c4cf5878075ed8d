/**
 * Scorecard field 2: NNT/NNH per configuration against the reference, per scope (pooled, per
 * benchmark, per model; within each format when format is a facet), and App. I's headline and
 * residual NNH of the option-preserving variant. Every number needed goes through
 * `numberNeededText` (rounded up, Altman's interval).
 */
import {
  NUMBER_NEEDED_HEADING,
  type NnhCard,
  type NnhRow,
  nnhExplanation,
  numberNeededText,
  pp,
  recoveryText,
  residualExplanation,
} from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { el, table } from "../../html.js";
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
      table(
        ["scope", "configuration", "RD [95% CI]", NUMBER_NEEDED_HEADING, "TOST-equivalent", "verdict"],
        nnh.rows.map((r) => [
          r.scope,
          r.condition,
          `${pp(r.riskDifference)}${ci(r.rdCi95, (v) => pp(v))}`,
          numberNeededText(r.nnh),
          r.equivalent === null ? "-" : r.equivalent ? "yes" : "no",
          r.verdict,
        ]),
      ),
      "skipped" in residual
        ? []
        : [
            el(
              "p",
              { class: "muted" },
              residualExplanation(residual.standard, residual.preserving, residual.restrictedTo),
            ),
            table(
              ["model", `headline ${NUMBER_NEEDED_HEADING}`, `residual ${NUMBER_NEEDED_HEADING}`, "recovery", "note"],
              residual.rows.map((r) => [
                r.model === "all" ? "all models" : r.model,
                numberNeededText(r.headline),
                numberNeededText(r.residual),
                recoveryText(r.recovery, r.recoveryCi95),
                r.note ?? "",
              ]),
            ),
          ],
    ];
  },
});
