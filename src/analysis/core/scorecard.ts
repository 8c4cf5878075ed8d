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
import "../all-analyses.js";
import { SUBJECT_FACET } from "../../contracts/analysis.js";
import { kindCard } from "./kinds.js";
import {
  cardFields,
  cardHeading,
  type ScorecardFamily,
  type ScorecardFields,
  type ScorecardHeader,
  type StudyAnalysis,
} from "./registry.js";
import { renderMarkdown } from "./result-table.js";
import { FAMILY_CONTRASTS_TABLE } from "./study-tables.js";
import { md, num, pp, pEquals } from "./text.js";

export type { MatrixCell, MethodologyStamp, NnhCard, NnhRow, RateMatrix, ResidualNnhRow } from "../all-analyses.js";

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
 * The scorecard's title, by what the study holds: one level (a single-condition import, say) is a
 * card of rates with their intervals; an import comparing models is a model comparison; any other
 * comparison of conditions is the Scaffold Safety Scorecard; a study of another kind has its own
 * card (`kindCard`), and this one is the study's scorecard of rates.
 */
function titleOf(analysis: StudyAnalysis): string {
  const m = analysis.meta;
  const kinds = m.selection?.kinds;
  if (kinds && !kinds.includes("comparison")) return "Study scorecard";
  if (m.levels.length < 2) return "Rates card";
  if (m.comparisonFacet === SUBJECT_FACET) return "Model comparison scorecard";
  return kindCard("comparison").title;
}

function headerOf(analysis: StudyAnalysis): ScorecardHeader {
  const source = analysis.meta.source;
  const kinds = analysis.meta.selection?.kinds;
  return {
    title: titleOf(analysis),
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
    ...(analysis.families ? { families: scorecardFamilies(analysis.families) } : {}),
  };
}

function scorecardFamilies(families: NonNullable<StudyAnalysis["families"]>): NonNullable<ScorecardHeader["families"]> {
  return {
    primary: families.primary,
    others: families.others.map((f): ScorecardFamily => {
      const o = f.omnibus;
      return {
        name: f.name,
        role: f.role,
        reference: f.reference,
        correction: f.correction,
        margin: f.margin,
        omnibus: o && !("error" in o) ? { df: o.df, chi2: o.chi2, p: o.p } : null,
        contrasts: f.pooled.map((c) => ({
          condition: c.condition,
          rd: c.riskDifference?.estimate ?? null,
          ci95: c.riskDifference?.ci95 ?? null,
          pAdjusted: "error" in c.oddsRatio ? null : c.oddsRatio.pAdjusted,
          verdict: c.verdict,
        })),
        ...(f.control ? { controlStable: f.control.stable, controlReading: f.control.reading } : {}),
      };
    }),
  };
}

/** A control family's check as the scorecard and the report print it ("" for other families). */
export function controlText(f: ScorecardFamily): string {
  if (f.controlStable === undefined) return "";
  // Records written before the reading was kept carry the verdict only.
  return `; control check ${f.controlReading ?? (f.controlStable ? "stable" : "moved")}`;
}

/** The other families, each labelled with its role, after the primary family's sections. */
function familiesMarkdown(card: Scorecard): string[] {
  const families = card.families;
  if (!families || families.others.length === 0) return [];
  const lines = [
    "## Other families (each analysed apart: not in the primary model, its omnibus test or its corrections)",
    "",
  ];
  for (const f of families.others) {
    const omnibus = f.omnibus
      ? `; omnibus chi2(${f.omnibus.df}) = ${num(f.omnibus.chi2)}, ${pEquals(f.omnibus.p)}`
      : "";
    const control = controlText(f);
    lines.push(
      `**${md(f.name)}** (${f.role}): vs ${md(f.reference)}, ${f.correction} within the family, TOST margin ${pp(f.margin)}${omnibus}${control}`,
      "",
      ...renderMarkdown(FAMILY_CONTRASTS_TABLE, f.contrasts),
      "",
    );
  }
  return lines;
}

/** Whether the card is the Scaffold Safety Scorecard (its no-composite note is that paper's). */
export function isScaffoldSafetyScorecard(card: Pick<Scorecard, "title">): boolean {
  return card.title === kindCard("comparison").title;
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
  if (card.families)
    lines.push(
      card.families.primary === null
        ? "Families: none is primary, so the sections below analyse every row; each family is analysed apart after them."
        : `Family: ${md(card.families.primary)} (primary). The sections below analyse its rows only; the other families follow them.`,
      "",
    );
  for (const kind of card.kinds ?? [])
    if (kind !== "comparison") lines.push(`The ${kindCard(kind).title} of this study: ${kindCard(kind).file}.`, "");
  let number = 0;
  // The fields of the analyses that ran on this study (a left-out analysis has none).
  for (const field of cardFields().filter((f) => f.field in card)) {
    const title = cardHeading(field, card[field.field]);
    lines.push(field.unnumbered ? `## ${title}` : `## ${++number}. ${title}`, "");
    lines.push(...field.markdown(card[field.field], card));
    // Sections are separated by one blank line.
    if (lines[lines.length - 1] !== "") lines.push("");
  }
  lines.push(...familiesMarkdown(card));
  if (isScaffoldSafetyScorecard(card)) lines.push(`_${card.compositeNote}_`, "");
  if (card.notice) lines.push(`> **${card.notice}**`, "");
  return lines.join("\n");
}
