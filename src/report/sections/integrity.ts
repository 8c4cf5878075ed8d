/** Measurement integrity: the gate's checks, one row each, their details folded (cards/integrity.ts). */
import "../cards/index.js";
import { el } from "../html.js";
import { cardRenderer, type ReportContext, registerReportSection } from "./registry.js";

function integrity(context: ReportContext) {
  if (!("integrity" in context.card)) return "";
  return [
    el("h2", { id: "integrity" }, "Measurement integrity"),
    cardRenderer("integrity").render(context.card.integrity, context),
  ];
}

registerReportSection({
  name: "integrity",
  toc: { id: "integrity", label: "Measurement integrity" },
  render: integrity,
});
