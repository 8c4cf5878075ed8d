/** The Scaffold Safety Scorecard: its registered fields, numbered, each rendered by its card renderer. */
import { cardFields, cardHeading } from "../../analysis/index.js";
import "../cards/index.js";
import { el } from "../html.js";
import { cardRenderer, type ReportContext, registerReportSection } from "./registry.js";

/** The card fields with their section numbers (null: a header section such as measurement integrity). */
function numberedFields() {
  let number = 0;
  return cardFields().map((field) => ({ field, number: field.unnumbered ? null : ++number }));
}

function scorecard(context: ReportContext) {
  const { card } = context;
  return [
    el("h2", { id: "scorecard" }, `Scaffold Safety Scorecard${card.simulated ? " (SIMULATED)" : ""}`),
    el(
      "p",
      { class: "muted" },
      `Population ${card.population.toUpperCase()}; comparison ${card.comparison.facet} vs ${card.comparison.reference}. Each rate links to the trials behind it.`,
    ),
    numberedFields().map(({ field, number }) => [
      el(
        "h3",
        {},
        number === null ? cardHeading(field, card[field.field]) : `${number}. ${cardHeading(field, card[field.field])}`,
      ),
      cardRenderer(field.field).render(card[field.field], context),
    ]),
    el("p", { class: "muted" }, el("em", {}, card.compositeNote)),
  ];
}

registerReportSection({ name: "scorecard", toc: { id: "scorecard", label: "Scorecard" }, render: scorecard });
