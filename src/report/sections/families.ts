/**
 * The study's families other than the primary, each analysed apart and labelled with its role
 * (the primary family is the rest of the report). Absent without families.
 */
import { bracket, controlText, pEquals, pp, pValue } from "../../analysis/index.js";
import { el, table } from "../html.js";
import { type ReportContext, registerReportSection } from "./registry.js";

function families({ card }: ReportContext) {
  const f = card.families;
  if (!f || f.others.length === 0) return "";
  return [
    el("h2", { id: "families" }, "Other families"),
    el(
      "p",
      {},
      f.primary === null
        ? "No family is primary: the sections above analyse every row; each family is also analysed apart here."
        : `The sections above analyse the primary family (${f.primary}) only. Each family below is analysed apart: not in the primary model, its omnibus test or its corrections.`,
    ),
    ...f.others.flatMap((family) => [
      el(
        "h3",
        {},
        `${family.name} (${family.role}): vs ${family.reference}, ${family.correction} within the family, TOST margin ${pp(family.margin)}${
          family.omnibus ? `; omnibus chi2(${family.omnibus.df}) ${pEquals(family.omnibus.p)}` : ""
        }${controlText(family)}`,
      ),
      table(
        ["condition", "RD [95% CI]", "p adjusted", "verdict"],
        family.contrasts.map((c) => [
          c.condition,
          c.rd === null ? "-" : `${pp(c.rd)} ${c.ci95 ? bracket(c.ci95, pp) : ""}`,
          c.pAdjusted === null ? "-" : pValue(c.pAdjusted),
          c.verdict,
        ]),
      ),
    ]),
  ];
}

registerReportSection({ name: "families", toc: { id: "families", label: "Other families" }, render: families });
