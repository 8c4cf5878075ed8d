/**
 * report.html: the study's verdict on measurement integrity in one line, then each of its kinds'
 * cards (a section declares the kind whose card it is), then each kind's other sections, then the
 * sections every study shares (integrity, the rates of a study that is no comparison,
 * methodology, chronology, trials), each group in registration order. Self-contained (inline CSS,
 * inline SVG, no script), with links from every cell to its trials in trials.html. Renders a
 * stored analysis; computes nothing.
 */
import {
  analysisRan,
  type PresentedAnalysis,
  registeredAnalyses,
  type Scorecard,
  studyModels,
} from "../analysis/index.js";
import { STUDY_KINDS, type StudyKind } from "../contracts/study-kind.js";
import { integrityVerdictLine } from "./cards/integrity.js";
import { el, page, raw, render } from "./html.js";
import "./sections/index.js";
import { type ReportOptions, type ReportSection, reportSections } from "./sections/registry.js";

export type { CellTrials, ReportOptions } from "./sections/registry.js";

/** The kinds of the analysis a section renders ("every" for a shared or report-wide section). */
function sectionKinds(section: ReportSection): readonly StudyKind[] | "every" {
  return registeredAnalyses().find((a) => a.name === section.name)?.kinds ?? "every";
}

/**
 * The sections in page order: the cards of the study's kinds (in the kinds' order), each kind's
 * other sections (a section of several kinds under the first the study has), then the shared ones.
 */
export function orderedSections(sections: readonly ReportSection[], kinds: readonly StudyKind[]): ReportSection[] {
  const cards = kinds.flatMap((k) => sections.filter((s) => s.card === k));
  const ofKind = (k: StudyKind) => (s: ReportSection) => {
    const of = sectionKinds(s);
    return of !== "every" && kinds.find((x) => of.includes(x)) === k;
  };
  const own = kinds.flatMap((k) => sections.filter((s) => !cards.includes(s) && ofKind(k)(s)));
  const shared = sections.filter((s) => !cards.includes(s) && !own.includes(s));
  return [...cards, ...own, ...shared];
}

export function renderReport(presented: PresentedAnalysis, card: Scorecard, options: ReportOptions): string {
  const { analysis } = presented;
  const m = analysis.meta;
  const banner = m.simulated ? el("div", { class: "simulated", role: "alert" }, card.notice ?? "SIMULATED DATA") : "";
  const context = { ...presented, card, options };
  // A record written before study kinds ran every analysis.
  const kinds = m.selection?.kinds ?? STUDY_KINDS;
  // A section of an analysis left out of this study is not rendered; one with nothing to show
  // for this study (no chronology) gets no TOC entry.
  const sections = orderedSections(reportSections(), kinds)
    .filter((s) => analysisRan(analysis, s.name))
    .map((s) => ({ section: s, html: withPoolingNote(render(s.render(context)), s.name, presented) }))
    .filter((s) => s.html !== "")
    // A kind's card is marked, so a reader's tools (and the layout tests) find it.
    .map(({ section, html }) => ({
      section,
      html:
        section.card && kinds.includes(section.card)
          ? render(el("section", { class: "kind-card", "data-kind": section.card }, raw(html)))
          : html,
    }));
  const toc = el(
    "nav",
    { class: "toc" },
    sections.flatMap(({ section: s }) =>
      s.toc ? [el("div", {}, el("a", { href: `#${s.toc.id}` }, s.toc.label))] : [],
    ),
  );
  const models = studyModels(analysis).length;
  const entries = sections.filter((s) => s.section.toc).length;
  return page(`${card.title} · ${m.source.study ?? m.source.path}`, [
    banner,
    el("h1", {}, `${m.source.study ?? m.source.path}: study report`),
    el(
      "p",
      { class: "lead" },
      `${analysis.counts.analysed} trials, ${models} model${models === 1 ? "" : "s"}, ${count(analysis.counts.benchmarks.length, "benchmark")}, ${analysis.counts.clusters} cases. Analysed ${m.analyzedAt} with Parallax ${m.parallaxVersion}. `,
      el("a", { href: options.trialsHref }, "All trials"),
      raw("."),
    ),
    "integrity" in card ? integrityVerdictLine(card.integrity) : "",
    // Folded to one line, so the first screen holds the card.
    el("details", { class: "contents" }, el("summary", {}, `Contents (${count(entries, "section")})`), toc),
    raw(sections.map((s) => s.html).join("")),
    banner,
  ]);
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A section of an analysis that pools formats gets its note under its heading. */
function withPoolingNote(html: string, name: string, { analysis }: PresentedAnalysis): string {
  const note = registeredAnalyses()
    .find((a) => a.name === name)
    ?.pooledFormats?.(analysis);
  if (!note || html === "") return html;
  const paragraph = render(
    el("p", { class: "muted pooled-formats" }, `${note.charAt(0).toUpperCase()}${note.slice(1)}.`),
  );
  const end = html.indexOf("</h2>");
  return end < 0 ? paragraph + html : html.slice(0, end + 5) + paragraph + html.slice(end + 5);
}
