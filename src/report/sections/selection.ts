/** The study's kinds and the analyses left out of it, each with its reason (the selection `analyze` made). */
import { kindCard } from "../../analysis/index.js";
import { el, table } from "../html.js";
import { type ReportContext, registerReportSection } from "./registry.js";

function selection({ analysis }: ReportContext) {
  const s = analysis.meta.selection;
  // A record written before study kinds ran every analysis: nothing to say.
  if (!s) return "";
  return [
    el("h2", { id: "selection" }, "Study kinds and analyses left out"),
    el(
      "p",
      {},
      `This study is ${s.kinds.map((k) => `${k} (${kindCard(k).what}: ${s.kindReasons[k] ?? "declared"})`).join("; ")}${
        s.kindsFrom === "spec" ? ", as its spec declares." : ", from its design (a spec may declare `kind:`)."
      }`,
    ),
    s.leftOut.length
      ? table(
          ["analysis", "left out because"],
          s.leftOut.map((l) => [l.analysis, l.reason]),
        )
      : el("p", {}, "Every registered analysis ran."),
  ];
}

registerReportSection({
  name: "selection",
  toc: { id: "selection", label: "Kinds and left-out analyses" },
  render: selection,
});
