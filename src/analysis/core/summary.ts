/**
 * What `parallax analyze` prints. The overview (the default) fits a 120-column terminal: the
 * header, the study's kinds, the integrity verdict, each kind's card heading with the lines its
 * analyses give, and the analyses left out; `formatSummary` (`--full`) prints every table of the
 * analyses that ran. The JSON record and the report always hold everything.
 */
import "../all-analyses.js";
import type { StudyKind } from "../../contracts/study-kind.js";
import { kindCard, kindsLine, studyModels } from "./kinds.js";
import type { Methodology } from "./methodology.js";
import { type LeftOut, type RegisteredAnalysis, ranAnalyses, type StudyAnalysis } from "./registry.js";
import { SIMULATED_NOTICE } from "./scorecard.js";
import { bracket, clip, num, pct, pp, pEquals, pValue, wrap } from "./text.js";

/** The overview's width: it fits a 120-column terminal. */
const WIDTH = 120;

function headerLines(analysis: StudyAnalysis): string[] {
  const m = analysis.meta;
  const c = analysis.counts;
  return [
    `analysis of ${m.source.study ?? m.source.path}${m.source.runId ? ` (run ${m.source.runId})` : ""}${
      m.source.scorer ? `; outcomes from scorer ${m.source.scorer}` : ""
    }`,
    `rows ${c.analysed} analysed | ${c.clusters} cases | ${studyModels(analysis).length} model(s) | ${c.benchmarks.length} benchmark(s) | errored ${c.errored} | parse failures ${c.parseFailures} | unscored ${c.unscored} | pending ${c.pending}`,
    `${m.levels.length < 2 ? `described (one level): ${m.comparisonFacet} = ${m.reference}, nothing compared` : `comparison: ${m.comparisonFacet} vs ${m.reference}`}${
      Object.keys(m.restrict).length
        ? ` at ${Object.entries(m.restrict)
            .map(([f, v]) => `${f}=${v}`)
            .join(", ")}`
        : ""
    }; primary population ${m.primaryPopulation.toUpperCase()}; TOST margin ${pp(m.plan.equivalence.margin)}`,
    ...m.notes.flatMap((n) => wrap(`note: ${n}`, WIDTH, "  ")),
    ...(m.selection ? wrap(kindsLine(m.selection), WIDTH, "  ") : []),
    ...primaryFamilyLines(analysis),
    "",
  ];
}

/** With families: which family the tables below analyse (the primary comes first). */
function primaryFamilyLines(analysis: StudyAnalysis): string[] {
  const f = analysis.families;
  if (!f) return [];
  const others = f.others.map((o) => `${o.name} (${o.role})`).join(", ");
  const main =
    f.primary === null
      ? "families: none is primary, so the tables below analyse every row"
      : `family: ${f.primary} (primary): the tables below are its rows only`;
  return wrap(`${main}${others ? `; analysed apart after them: ${others}` : ""}`, WIDTH, "  ");
}

/** The other families in two lines each (the overview); `--full` prints familyLines. */
function familyOverviewLines(analysis: StudyAnalysis): string[] {
  const f = analysis.families;
  if (!f || f.others.length === 0) return [];
  const out = ["other families (analysed apart: not in the primary model, its omnibus test or its corrections)"];
  for (const family of f.others) {
    const o = family.omnibus;
    const omnibus = o ? ("error" in o ? "omnibus not estimable" : `omnibus chi2(${o.df}) ${pEquals(o.p)}`) : "";
    out.push(
      `  ${family.name} (${family.role}): vs ${family.reference}, ${family.correction}${omnibus ? `; ${omnibus}` : ""}${family.control ? `; control check: ${family.control.verdict}` : ""}`,
      `    ${
        family.skipped
          ? `skipped: ${family.skipped}`
          : family.pooled
              .map((c) => `${c.condition} ${c.riskDifference ? pp(c.riskDifference.estimate) : "-"} ${c.verdict}`)
              .join("; ")
      }`,
    );
  }
  return out;
}

/** The families other than the primary, each analysed apart (labelled with its role). */
export function familyLines(analysis: StudyAnalysis): string[] {
  const f = analysis.families;
  if (!f || f.others.length === 0) return [];
  const out = ["other families (analysed apart: not in the primary model, its omnibus test or its corrections)"];
  for (const family of f.others) {
    out.push(
      `  ${family.name} (${family.role}): ${family.nRows} rows, ${family.nClusters} cases; ${family.contrasts.length} contrast(s) vs ${family.reference}, ${family.correction} within the family, TOST margin ${pp(family.margin)}`,
    );
    if (family.skipped) {
      out.push(`    skipped: ${family.skipped}`);
      continue;
    }
    out.push(
      `    rates: ${family.rates.map((r) => `${r.condition} ${r.rate === null ? "-" : pct(r.rate)} (n ${r.n})`).join(", ")}`,
    );
    const o = family.omnibus;
    if (o)
      out.push(
        "error" in o
          ? `    omnibus: not estimable (${o.error})`
          : `    omnibus: Wald chi2(${o.df}) = ${num(o.chi2)}, ${pEquals(o.p)}`,
      );
    for (const c of family.pooled) {
      const rd = c.riskDifference;
      const or = c.oddsRatio;
      out.push(
        `    ${c.condition} vs ${family.reference}: RD ${rd ? `${pp(rd.estimate)} ${bracket(rd.ci95, pp)}` : "-"}${
          "error" in or ? "" : `, ${pEquals(or.p)}, adjusted ${or.pAdjusted === null ? "-" : pValue(or.pAdjusted)}`
        }; ${c.verdict}`,
      );
    }
    const control = family.control;
    if (control) {
      out.push(...wrap(`    control check (ScaffoldSafety 6.3) ${control.reading}`, WIDTH, "  "));
    }
  }
  return [...out, ""];
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
  const card = kindCard(kind);
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
  const others = familyOverviewLines(analysis);
  if (others.length) out.push("", ...others);
  const below = common(false);
  if (below.some((a) => a.overview)) out.push("");
  for (const registered of below) out.push(...(registered.overview?.({ analysis, methodology }) ?? []));
  const leftOut = analysis.meta.selection?.leftOut ?? [];
  if (leftOut.length) out.push("", ...leftOutLines(leftOut));
  out.push("", "every table: parallax analyze DIR --full; all numbers: analysis.json; the report: parallax report DIR");
  if (simulated) out.push("*** SIMULATED DATA (see the notice above) ***");
  // A long line is wrapped to the terminal, never cut: its end (a verdict, a reason) is what a reader needs.
  const lines = out
    .flatMap((line) => (line.length > WIDTH ? wrap(line, WIDTH, "  ") : [line]))
    .filter((line, i, all) => line !== "" || all[i - 1] !== "");
  return `${lines.join("\n")}\n`;
}

/** Every table of the analyses that ran (`analyze --full`), in registration order, then the left-out ones. */
export function formatSummary(analysis: StudyAnalysis, methodology: Methodology): string {
  const out: string[] = [];
  if (analysis.meta.simulated) out.push(...simulatedLines(), "");
  out.push(...headerLines(analysis));
  for (const registered of ranAnalyses(analysis))
    out.push(...withPoolingNote(registered.summary?.({ analysis, methodology }) ?? [], registered, analysis));
  out.push(...familyLines(analysis));
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
