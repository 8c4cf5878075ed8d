/**
 * The scorecard: a comparison study's Scaffold Safety Scorecard (its card, first in the report),
 * or in a study of another kind the study's rates and numbers needed, among the shared sections.
 * The fields of the analyses that ran, numbered, each rendered by its card renderer; measurement
 * integrity has its own section (integrity.ts) and the verdict line atop the report.
 */
import { cardFields, cardHeading, isScaffoldSafetyScorecard } from "../../analysis/index.js";
import "../cards/index.js";
import { el } from "../html.js";
import { cardRenderer, type ReportContext, registerReportSection } from "./registry.js";

/** The card fields with their section numbers (null: a header section). */
function numberedFields(card: ReportContext["card"]) {
  let number = 0;
  return cardFields()
    .filter((field) => field.field in card && field.field !== "integrity")
    .map((field) => ({ field, number: field.unnumbered ? null : ++number }));
}

function scorecard(context: ReportContext) {
  const { card } = context;
  return [
    el("h2", { id: "scorecard" }, `${card.title}${card.simulated ? " (SIMULATED)" : ""}`),
    el(
      "p",
      { class: "muted" },
      `Population ${card.population.toUpperCase()}; ${
        context.analysis.meta.levels.length < 2
          ? `one level of ${card.comparison.facet} (${card.comparison.reference}), described, nothing compared`
          : `comparison ${card.comparison.facet} vs ${card.comparison.reference}`
      }. Each rate links to the trials behind it.`,
    ),
    numberedFields(card).map(({ field, number }) => [
      el(
        "h3",
        {},
        number === null ? cardHeading(field, card[field.field]) : `${number}. ${cardHeading(field, card[field.field])}`,
      ),
      cardRenderer(field.field).render(card[field.field], context),
    ]),
    isScaffoldSafetyScorecard(card) ? el("p", { class: "muted" }, el("em", {}, card.compositeNote)) : "",
  ];
}

registerReportSection({
  name: "scorecard",
  toc: { id: "scorecard", label: "Scorecard" },
  card: "comparison",
  render: scorecard,
});
