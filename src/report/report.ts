/**
 * report.html: the registered sections (sections/) in order — the scorecard, the charts and the
 * analysis tables — self-contained (inline CSS, inline SVG, no script), with links from every
 * cell to its trials in trials.html. Renders a stored analysis; computes nothing.
 */
import { analysisRan, type PresentedAnalysis, registeredAnalyses, type Scorecard } from "../analysis/index.js";
import { el, page, raw, render } from "./html.js";
import "./sections/index.js";
import { type ReportOptions, reportSections } from "./sections/registry.js";

export type { CellTrials, ReportOptions } from "./sections/registry.js";

export function renderReport(presented: PresentedAnalysis, card: Scorecard, options: ReportOptions): string {
  const { analysis } = presented;
  const m = analysis.meta;
  const banner = m.simulated ? el("div", { class: "simulated", role: "alert" }, card.notice ?? "SIMULATED DATA") : "";
  const context = { ...presented, card, options };
  // A section of an analysis left out of this study is not rendered; one with nothing to show
  // for this study (no chronology) gets no TOC entry.
  const sections = reportSections()
    .filter((s) => analysisRan(analysis, s.name))
    .map((s) => ({ section: s, html: withPoolingNote(render(s.render(context)), s.name, presented) }))
    .filter((s) => s.html !== "");
  const toc = el(
    "nav",
    { class: "toc" },
    sections.flatMap(({ section: s }) =>
      s.toc ? [el("div", {}, el("a", { href: `#${s.toc.id}` }, s.toc.label))] : [],
    ),
  );
  return page(`${card.title} · ${m.source.study ?? m.source.path}`, [
    banner,
    el("h1", {}, `${m.source.study ?? m.source.path}: study report`),
    el(
      "p",
      { class: "lead" },
      `${analysis.counts.analysed} trials, ${analysis.counts.models.length} model(s), ${analysis.counts.benchmarks.length} benchmark(s), ${analysis.counts.clusters} cases. Analysed ${m.analyzedAt} with Parallax ${m.parallaxVersion}. `,
      el("a", { href: options.trialsHref }, "All trials"),
      raw("."),
    ),
    toc,
    raw(sections.map((s) => s.html).join("")),
    banner,
  ]);
}

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
