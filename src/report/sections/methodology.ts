/** The pre-registration stamp and each deviation from it (ScaffoldSafety Table 3). */
import { el, table } from "../html.js";
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
    pre.deviations.length
      ? table(
          ["ID", "kind", "element", "registered", "implemented", "when"],
          pre.deviations.map((d) => [d.id, d.kind, d.element, d.registered, d.implemented, d.when]),
        )
      : "",
  ];
}

registerReportSection({
  name: "methodology",
  toc: { id: "deviations", label: "Pre-registration" },
  render: deviations,
});
