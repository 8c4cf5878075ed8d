/**
 * The report-section registry: each section of report.html is one file here, registered under
 * the name of the analysis it renders (or a report-wide name: scorecard, charts, cells), in page
 * order. Scorecard fields render through the card registry (src/report/cards/), keyed by the
 * field a registered analysis declares. A study kind's sections sit in the folder named as its
 * analyses' folder in src/analysis (comparison/, grid/, audit/, agents/); a new analysis adds its
 * section there and one import in index.ts; report.ts does not change.
 */
import type { StudyBeside } from "../across.js";
import type { CardFieldKey, PresentedAnalysis, Scorecard, ScorecardFields } from "../../analysis/index.js";
import type { StudyKind } from "../../contracts/study-kind.js";
import type { Content } from "../html.js";

/** The trials behind a fine cell: how many, the trials pages holding them, its viewer filters. */
export interface CellTrials {
  model: string;
  benchmark: string;
  /** The configuration facets' labels: the viewer's facet filters that select the cell. */
  facets: Record<string, string>;
  /** Trials in the cell (pending and errored ones included). */
  trials: number;
  /** The trials page files (base names, in order) holding the cell's trials. */
  pages: string[];
  /** The number (1-based) of the first of them; the others follow it. */
  firstPage: number;
}

export interface ReportOptions {
  /** Relative link to the trials page. */
  trialsHref: string;
  /** The trials behind each fine cell id (model x benchmark x configuration); absent: link the index. */
  cellTrials?: ReadonlyMap<string, CellTrials>;
  /**
   * The trials page file holding each trial anchor and fine cell id (the trials are split into
   * pages); an anchor not in it links to `trialsHref`, the index of the pages.
   */
  pageOf?: ReadonlyMap<string, string>;
  /** The viewer's URL (`parallax view`): trial links open the trial there instead. */
  viewerUrl?: string;
  /** The study's folder, when it holds the study's SQLite store. */
  studyDir?: string;
  /** Other study folders beside it that share items with it (src/report/across.ts). */
  studiesBeside?: readonly StudyBeside[];
}

export interface ReportContext extends PresentedAnalysis {
  card: Scorecard;
  options: ReportOptions;
}

export interface ReportSection {
  /** The analysis it renders (or a report-wide name). */
  name: string;
  /** Its entry in the table of contents: the anchor id and label (none for a subsection). */
  toc?: { id: string; label: string };
  /**
   * The study kind whose card this section is (or is part of): the report opens with it, before
   * the kind's other sections, when the study is of that kind. A report-wide section that is a
   * kind's card (the comparison's scorecard and charts) goes among the shared sections of a study
   * of other kinds.
   */
  card?: StudyKind;
  render(context: ReportContext): Content;
}

export interface CardRenderer<K extends CardFieldKey = CardFieldKey> {
  field: K;
  render(value: ScorecardFields[K], context: ReportContext): Content;
}

const sections: ReportSection[] = [];
const cards = new Map<string, CardRenderer>();

/** Adds a section; registration order is page order. */
export function registerReportSection(section: ReportSection): void {
  if (sections.some((s) => s.name === section.name))
    throw new Error(`report section '${section.name}' is registered twice`);
  sections.push(section);
}

export function reportSections(): readonly ReportSection[] {
  return sections;
}

export function registerCardRenderer<K extends CardFieldKey>(renderer: CardRenderer<K>): void {
  if (cards.has(renderer.field)) throw new Error(`scorecard field renderer '${renderer.field}' is registered twice`);
  cards.set(renderer.field, renderer as unknown as CardRenderer);
}

/** The renderer of a scorecard field; a field without one is a programming error, named. */
export function cardRenderer(field: CardFieldKey): CardRenderer {
  const renderer = cards.get(field);
  if (!renderer)
    throw new Error(`no report renderer for the scorecard field '${field}' (add one in src/report/cards/)`);
  return renderer;
}
