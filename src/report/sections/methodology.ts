/** The pre-registration stamp and each deviation from it (ScaffoldSafety Table 3). */
import { DEVIATIONS_TABLE } from "../../analysis/core/study-tables.js";
import { el } from "../html.js";
import { htmlTable } from "../result-table.js";
import { type ReportContext, registerReportSection } from "./registry.js";

function deviations({ methodology }: ReportContext) {
  const pre = methodology.preregistration;
  if (pre.status === "not preregistered")
    return [el("h2", { id: "deviations" }, "Pre-registration"), el("p", {}, `Not pre-registered: ${pre.note}`)];
  return [
    el("h2", { id: "deviations" }, "Pre-registration and deviations"),
    el(
      "p",
      {},
      `Stamp ${pre.stampHash} frozen ${pre.stampedAt}: ${pre.status === "matches" ? "the run matches it." : `${pre.deviations.length} deviation(s).`}`,
    ),
    pre.deviations.length ? htmlTable(DEVIATIONS_TABLE, pre.deviations) : "",
  ];
}

registerReportSection({
  name: "methodology",
  toc: { id: "deviations", label: "Pre-registration" },
  render: deviations,
});
