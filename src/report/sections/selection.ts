/** The study's kinds and the analyses left out of it, each with its reason (the selection `analyze` made). */
import { kindCard } from "../../analysis/index.js";
import { SUBJECT_FACET } from "../../contracts/analysis.js";
import type { StudyKind } from "../../contracts/study-kind.js";
import { LEFT_OUT_TABLE } from "../../analysis/core/study-tables.js";
import { el } from "../html.js";
import { htmlTable } from "../result-table.js";
import { type ReportContext, registerReportSection } from "./registry.js";

/**
 * What a kind measures in this study: a comparison of models (an import of several models' logs)
 * or of one condition described is no scaffold and format comparison.
 */
function kindWhat(kind: StudyKind, { analysis }: Pick<ReportContext, "analysis">): string {
  if (kind === "comparison" && analysis.meta.levels.length < 2) return "one condition described (rates with intervals)";
  if (kind === "comparison" && analysis.meta.comparisonFacet === SUBJECT_FACET) return "model comparison";
  return kindCard(kind).what;
}

function selection({ analysis }: ReportContext) {
  const s = analysis.meta.selection;
  // A record written before study kinds ran every analysis: nothing to say.
  if (!s) return "";
  return [
    el("h2", { id: "selection" }, "Study kinds and analyses left out"),
    el(
      "p",
      {},
      `This study is ${s.kinds.map((k) => `${k} (${kindWhat(k, { analysis })}: ${s.kindReasons[k] ?? "declared"})`).join("; ")}${
        s.kindsFrom === "spec" ? ", as its spec declares." : ", from its design (a spec may declare `kind:`)."
      }`,
    ),
    s.leftOut.length ? htmlTable(LEFT_OUT_TABLE, s.leftOut) : el("p", {}, "Every registered analysis ran."),
  ];
}

registerReportSection({
  name: "selection",
  toc: { id: "selection", label: "Kinds and left-out analyses" },
  render: selection,
});
