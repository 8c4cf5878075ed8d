/**
 * Which sections pool formats. When format is a facet, the contrasts (each condition vs the
 * reference: RD, NNT/NNH, TOST) are computed within each format and never pooled; the analyses
 * that read the rows of every format together (interactions and trend, all-pairwise, the Wald
 * intervals, paired flips, variance, baseline dependence, sensitivity profiles, the
 * specification curve, sub-hypotheses, the BBQ bias score) declare `pooledFormats` with this
 * note, and their summary and report section carry it, so the contrasts' claim is true of what
 * each section shows.
 */
import type { StudyAnalysis } from "../core/registry.js";

/** The formats the contrasts keep apart (two or more), or none when format is not a facet. */
export function formatsKeptApart(analysis: StudyAnalysis): string[] {
  const groups = analysis.contrasts?.[analysis.meta.primaryPopulation]?.byFormat ?? [];
  return groups.flatMap((g) => (g.format ? [g.format] : []));
}

/** The note a section that pools formats carries, or null when format is not a facet. */
export function pooledFormatsNote(analysis: StudyAnalysis): string | null {
  const formats = formatsKeptApart(analysis);
  if (formats.length < 2) return null;
  return `pooled across formats (${formats.join(", ")}): this section's numbers mix the rows of every format, unlike the within-format contrasts`;
}
