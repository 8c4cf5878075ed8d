/**
 * What `parallax analyze` prints. The overview (the default) fits a 120-column terminal: the
 * header, the study's kinds, the integrity verdict, each kind's card heading with the lines its
 * analyses give, and the analyses left out; `formatSummary` (`--full`) prints every table of the
 * analyses that ran. The JSON record and the report always hold everything.
 */
import "./all-analyses.js";
import type { StudyKind } from "../contracts/study-kind.js";
import { KIND_CARDS, kindsLine } from "./kinds.js";
import type { Methodology } from "./methodology.js";
import { type LeftOut, type RegisteredAnalysis, ranAnalyses, type StudyAnalysis } from "./registry.js";
import { SIMULATED_NOTICE } from "./scorecard.js";
import { clip, pp, wrap } from "./text.js";

/** The overview's width: it fits a 120-column terminal. */
const WIDTH = 120;

function headerLines(analysis: StudyAnalysis): string[] {
  const m = analysis.meta;
  const c = analysis.counts;
  return [
    `analysis of ${m.source.study ?? m.source.path}${m.source.runId ? ` (run ${m.source.runId})` : ""}${
      m.source.scorer ? `; outcomes from scorer ${m.source.scorer}` : ""
    }`,
    `rows ${c.analysed} analysed | ${c.clusters} cases | ${c.models.length} model(s) | ${c.benchmarks.length} benchmark(s) | errored ${c.errored} | parse failures ${c.parseFailures} | unscored ${c.unscored} | pending ${c.pending}`,
    `${m.levels.length < 2 ? `described (one level): ${m.comparisonFacet} = ${m.reference}, nothing compared` : `comparison: ${m.comparisonFacet} vs ${m.reference}`}${
      Object.keys(m.restrict).length
        ? ` at ${Object.entries(m.restrict)
            .map(([f, v]) => `${f}=${v}`)
            .join(", ")}`
        : ""
    }; primary population ${m.primaryPopulation.toUpperCase()}; TOST margin ${pp(m.plan.equivalence.margin)}`,
    ...m.notes.flatMap((n) => wrap(`note: ${n}`, WIDTH, "  ")),
    ...(m.selection ? wrap(kindsLine(m.selection), WIDTH, "  ") : []),
    "",
  ];
}

function simulatedLines(): string[] {
  return wrap(`*** ${SIMULATED_NOTICE} ***`, WIDTH, "    ");
}

/**
 * The left-out analyses, one line per reason: those of other kinds together, each analysis whose
 * plan or data lacks what it needs on its own line.
 */
export function leftOutLines(leftOut: readonly LeftOut[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const l of leftOut) byReason.set(l.reason, [...(byReason.get(l.reason) ?? []), l.analysis]);
  return [...byReason].flatMap(([reason, names]) =>
    wrap(`left out: ${names.join(", ")} (${reason})`, WIDTH, "  ").map((line) => clip(line)),
  );
}

/** The kind whose card an analysis's overview lines go under: its first kind the study has. */
function sectionOf(analysis: RegisteredAnalysis, kinds: readonly StudyKind[]): StudyKind | null {
  if (analysis.kinds === "every") return null;
  return kinds.find((k) => analysis.kinds.includes(k)) ?? null;
}

function cardHeadingLine(kind: StudyKind, simulated: boolean): string {
  const card = KIND_CARDS[kind];
  return `== ${card.title}${simulated ? " (SIMULATED)" : ""}: ${card.what}; in ${card.file} ==`;
}

/** The default `analyze` output: at most about 60 lines for a quickstart, no line over 160 characters. */
export function formatOverview(analysis: StudyAnalysis, methodology: Methodology): string {
  const out: string[] = [];
  const simulated = analysis.meta.simulated;
  if (simulated) out.push(...simulatedLines(), "");
  out.push(...headerLines(analysis));
  const ran = ranAnalyses(analysis);
  const kinds = analysis.meta.selection?.kinds ?? [];
  // What every study gets: the integrity verdict (registered first) above the cards, the
  // methodology and chronology (registered last) below them.
  const firstOfKind = ran.findIndex((a) => sectionOf(a, kinds) !== null);
  const common = (above: boolean) =>
    ran.filter((a, i) => sectionOf(a, kinds) === null && (firstOfKind < 0 || i < firstOfKind) === above);
  for (const registered of common(true)) out.push(...(registered.overview?.({ analysis, methodology }) ?? []));
  for (const kind of kinds) {
    out.push("", cardHeadingLine(kind, simulated));
    // The kind's own analyses (its card) first, then those it shares with other kinds.
    const under = ran.filter((a) => sectionOf(a, kinds) === kind);
    const own = (a: RegisteredAnalysis) => a.kinds !== "every" && a.kinds.length === 1;
    for (const registered of [...under.filter(own), ...under.filter((a) => !own(a))]) {
      const lines = registered.overview?.({ analysis, methodology }) ?? [];
      if (lines.length) out.push(...lines, "");
    }
  }
  const below = common(false);
  if (below.some((a) => a.overview)) out.push("");
  for (const registered of below) out.push(...(registered.overview?.({ analysis, methodology }) ?? []));
  const leftOut = analysis.meta.selection?.leftOut ?? [];
  if (leftOut.length) out.push("", ...leftOutLines(leftOut));
  out.push("", "every table: parallax analyze DIR --full; all numbers: analysis.json; the report: parallax report DIR");
  if (simulated) out.push("*** SIMULATED DATA (see the notice above) ***");
  const lines = out.map((line) => clip(line)).filter((line, i, all) => line !== "" || all[i - 1] !== "");
  return `${lines.join("\n")}\n`;
}

/** Every table of the analyses that ran (`analyze --full`), in registration order, then the left-out ones. */
export function formatSummary(analysis: StudyAnalysis, methodology: Methodology): string {
  const out: string[] = [];
  if (analysis.meta.simulated) out.push(...simulatedLines(), "");
  out.push(...headerLines(analysis));
  for (const registered of ranAnalyses(analysis))
    out.push(...withPoolingNote(registered.summary?.({ analysis, methodology }) ?? [], registered, analysis));
  const leftOut = analysis.meta.selection?.leftOut ?? [];
  if (leftOut.length) out.push(...leftOutLines(leftOut), "");
  if (analysis.meta.simulated) out.push("", ...simulatedLines());
  return `${out.join("\n")}\n`;
}

/** A section's lines with its pooled-formats note under its first line, when it pools formats. */
function withPoolingNote(lines: string[], registered: RegisteredAnalysis, analysis: StudyAnalysis): string[] {
  const note = registered.pooledFormats?.(analysis);
  const first = lines.findIndex((line) => line.trim() !== "");
  if (!note || first < 0) return lines;
  return [...lines.slice(0, first + 1), `(${note})`, ...lines.slice(first + 1)];
}
