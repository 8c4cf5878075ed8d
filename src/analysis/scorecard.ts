/**
 * The Scaffold Safety Scorecard (ScaffoldSafety App. F.2): a fixed header, then the card fields
 * the registered analyses declare, in registration order: (1) the safety-rate matrix (rates),
 * (2) NNT/NNH per configuration against the reference, pooled, per benchmark and per model
 * (within each format when format is a facet), with App. I's residual NNH (contrasts), (3) the
 * methodology stamp
 * (methodology). No composite index, by design: the variance decomposition and G-study show why
 * (App. O).
 */
import type { Methodology } from "./methodology.js";
import "./all-analyses.js";
import type { StudyKind } from "../contracts/study-kind.js";
import { KIND_CARDS } from "./kinds.js";
import { cardFields, cardHeading, type ScorecardFields, type ScorecardHeader, type StudyAnalysis } from "./registry.js";
import { md } from "./text.js";

export type { MatrixCell, MethodologyStamp, NnhCard, NnhRow, RateMatrix, ResidualNnhRow } from "./all-analyses.js";

export const SIMULATED_NOTICE =
  "SIMULATED DATA: every response in this study comes from a simulated respondent with planted effects. These numbers describe the simulator, not any real model.";

const NO_COMPOSITE =
  "No composite index, by design (ScaffoldSafety App. F.2): rates depend on the configuration x benchmark surface, which one number hides.";

export type Scorecard = ScorecardHeader &
  ScorecardFields & {
    compositeIndex: null;
    compositeNote: string;
  };

/**
 * The scorecard's title: a comparison study's is the Scaffold Safety Scorecard; another kind's
 * card is its own file (KIND_CARDS), and this one is the study's scorecard of rates.
 */
function titleOf(kinds: readonly StudyKind[] | undefined): string {
  return !kinds || kinds.includes("comparison") ? KIND_CARDS.comparison.title : "Study scorecard";
}

function headerOf(analysis: StudyAnalysis): ScorecardHeader {
  const source = analysis.meta.source;
  const kinds = analysis.meta.selection?.kinds;
  return {
    title: titleOf(kinds),
    ...(kinds ? { kinds } : {}),
    simulated: analysis.meta.simulated,
    notice: analysis.meta.simulated ? SIMULATED_NOTICE : null,
    study: source.study,
    runId: source.runId,
    source: source.path,
    analyzedAt: analysis.meta.analyzedAt,
    population: analysis.meta.primaryPopulation,
    comparison: {
      facet: analysis.meta.comparisonFacet,
      reference: analysis.meta.reference,
      restrict: analysis.meta.restrict,
    },
  };
}

export function buildScorecard(analysis: StudyAnalysis, methodology: Methodology): Scorecard {
  const fields = Object.fromEntries(cardFields(analysis).map((f) => [f.field, f.build({ analysis, methodology })]));
  return {
    ...headerOf(analysis),
    ...(fields as unknown as ScorecardFields),
    compositeIndex: null,
    compositeNote: NO_COMPOSITE,
  };
}

export function scorecardMarkdown(card: Scorecard): string {
  const lines: string[] = [];
  if (card.notice) lines.push(`> **${card.notice}**`, "");
  lines.push(`# ${card.title}${card.simulated ? " (SIMULATED)" : ""}`, "");
  lines.push(
    `Study: ${md(card.study ?? card.source)}${card.runId ? ` (run ${card.runId})` : ""}. Analysed ${card.analyzedAt}. ` +
      `Population: ${card.population.toUpperCase()}. Comparison: ${md(card.comparison.facet)} vs ${md(card.comparison.reference)}` +
      `${
        Object.keys(card.comparison.restrict).length
          ? ` at ${Object.entries(card.comparison.restrict)
              .map(([f, v]) => `${f}=${v}`)
              .join(", ")}`
          : ""
      }.`,
    "",
  );
  for (const kind of card.kinds ?? [])
    if (kind !== "comparison") lines.push(`The ${KIND_CARDS[kind].title} of this study: ${KIND_CARDS[kind].file}.`, "");
  let number = 0;
  // The fields of the analyses that ran on this study (a left-out analysis has none).
  for (const field of cardFields().filter((f) => f.field in card)) {
    const title = cardHeading(field, card[field.field]);
    lines.push(field.unnumbered ? `## ${title}` : `## ${++number}. ${title}`, "");
    lines.push(...field.markdown(card[field.field], card));
    // Sections are separated by one blank line.
    if (lines[lines.length - 1] !== "") lines.push("");
  }
  lines.push(`_${card.compositeNote}_`, "");
  if (card.notice) lines.push(`> **${card.notice}**`, "");
  return lines.join("\n");
}
