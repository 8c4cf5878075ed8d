/**
 * The study's families other than the primary, each analysed apart and labelled with its role
 * (the primary family is the rest of the report). Absent without families.
 */
import { controlText, pEquals, pp } from "../../analysis/index.js";
import { FAMILY_CONTRASTS_TABLE } from "../../analysis/core/study-tables.js";
import { el } from "../html.js";
import { htmlTable } from "../result-table.js";
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
      htmlTable(FAMILY_CONTRASTS_TABLE, family.contrasts),
    ]),
  ];
}

registerReportSection({ name: "families", toc: { id: "families", label: "Other families" }, render: families });
