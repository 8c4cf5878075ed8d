/**
 * The methodology of a study directory: pre-registration and its deviations, blinding and judge
 * agreement. Computed by the study-directory reader (it reads files, not rows), so this entry only
 * presents it: its summary lines and the scorecard's methodology stamp (ScaffoldSafety App. F.2).
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { agreementLine, kappaInformative, kappaReading } from "../../scoring/judge/agreement.js";
import { agreementOverviewNote } from "../core/methodology.js";
import { cardField, type PresentedAnalysis, registerAnalysis } from "../core/registry.js";
import { md, num, pct, pEquals, pp, wrap } from "../core/text.js";

export interface MethodologyStamp {
  preregistered: { status: string; stampHash: string | null; deviations: number; detail: string };
  /**
   * blinded: the protocol was applied (blinding.json); held: what the numbers say (true only when
   * the Blinding Index, every arm's and the guessing check are within bounds; null: not known).
   */
  blinded: { blinded: boolean; blindingIndex: number | null; held?: boolean | null; detail: string };
  /**
   * kappa: the smallest per-benchmark kappa, only when every judged benchmark has one (null
   * otherwise: no other benchmark's number stands in); perBenchmark: each judged benchmark's.
   */
  crossValidated: {
    crossValidated: boolean;
    kappa: number | null;
    detail: string;
    perBenchmark?: { benchmark: string; kappa: number | null; n: number; reason?: string }[];
  };
  specificationCurve: {
    run: boolean;
    contrast: string | null;
    medianOddsRatio: number | null;
    shareSignificant: number | null;
    permutationP: number | null;
    detail: string;
  };
}

declare module "../core/registry.js" {
  interface ScorecardFields {
    methodologyStamp: MethodologyStamp;
  }
}

function summaryLines({ analysis, methodology }: PresentedAnalysis, rows = true): string[] {
  const pre = methodology.preregistration;
  const out = ["methodology"];
  if (pre.status === "not preregistered") out.push(`  pre-registration: none (${pre.note})`);
  else {
    out.push(
      `  pre-registration: ${pre.status === "matches" ? "the run matches its stamp" : `${pre.deviations.length} deviation(s) from the stamp`} (stamp ${pre.stampHash.slice(0, 16)}, ${pre.stampedAt})`,
    );
    for (const d of pre.deviations) {
      out.push(
        `    ${d.id} [${d.kind}] ${d.element}: registered ${d.registered}; implemented ${d.implemented} (${d.when})`,
      );
    }
  }
  const blinding = blindingReading(methodology.blinding, analysis.meta.plan.integrity.blinding_index).words;
  out.push(...wrap(`  blinding: ${blinding}`, 120, "  "));
  out.push(...blindingCheckLines(methodology.blinding));
  const agreement = methodology.judgeAgreement;
  // The overview names the benchmarks not measured and the others' range; --full lists each.
  const note = !rows && agreement.perBenchmark ? agreementOverviewNote(agreement.perBenchmark) : agreement.note;
  out.push(
    ...wrap(
      `  judge agreement: ${note}${agreement.kappa !== null && !agreement.perBenchmark ? `, kappa ${num(agreement.kappa, 3)}` : ""}`,
      120,
      "  ",
    ),
  );
  out.push(...(rows ? agreementLines(methodology.judgeAgreement) : agreementOverview(methodology.judgeAgreement)));
  return out;
}

/** The overview's one line for the scorer-artefact rows (`--full` lists every row). */
function agreementOverview(agreement: PresentedAnalysis["methodology"]["judgeAgreement"]): string[] {
  const rows = agreement.scorerRows ?? [];
  if (rows.length === 0) return [];
  const low = rows.reduce((a, b) => (b.kappa < a.kappa ? b : a));
  return [`  scorer-artefact check: ${rows.length} row(s), lowest ${agreementLine(low)} (all rows: --full)`];
}

/**
 * Every agreement row behind the headline, and the scorer-artefact rows (ScaffoldSafety 6.5: a
 * heuristic scorer against the judge) with what their kappa's sign says.
 */
function agreementLines(agreement: PresentedAnalysis["methodology"]["judgeAgreement"]): string[] {
  const out = (agreement.rows ?? []).flatMap((row) => [
    `    ${agreementLine(row)}`,
    ...(kappaInformative(row) ? [] : [`      ${kappaReading(row)}`]),
  ]);
  for (const skip of agreement.skipped ?? [])
    out.push(`    ${skip.benchmark}: ${skip.judges.join(" vs ")}: ${skip.reason}`);
  const scorer = agreement.scorerRows ?? [];
  if (scorer.length === 0) return out;
  out.push("  scorer-artefact check (ScaffoldSafety 6.5: a heuristic scorer against the primary judge)");
  for (const row of scorer) out.push(`    ${agreementLine(row)}`, `      ${kappaReading(row)}`);
  return out;
}

/**
 * What the blinding numbers say, against the plan's bound on |Bang's Blinding Index| (Bang et
 * al. 2004: 0 = the judge's guesses at chance, 1 = every guess right, -1 = every guess wrong;
 * docs/SCORING.md for its k-arm form): blinding is read as held only when the overall index,
 * every arm's index and the guessing check (correct guesses vs chance) all say so; the words
 * name whichever does not.
 */
export function blindingReading(
  blinding: PresentedAnalysis["methodology"]["blinding"],
  bound: number,
): { held: boolean | null; words: string; numbers: string } {
  if (!blinding.blinded) return { held: null, words: blinding.note, numbers: blinding.note };
  const index = blinding.blindingIndex;
  if (index === null) return { held: null, words: `protocol applied; ${blinding.note}`, numbers: blinding.note };
  const within = Math.abs(index) <= bound;
  const arms = Object.entries(blinding.details)
    .flatMap(([key, value]) => {
      const arm = /(?:^|\.)per_arm\.(.+)$/.exec(key)?.[1];
      return arm !== undefined && Math.abs(value) > bound ? [`${arm} ${num(value, 3)}`] : [];
    })
    .sort();
  const alpha = blinding.sensitivity?.alpha ?? 0.05;
  const guessed = blinding.guessing && blinding.guessing.p < alpha ? blinding.guessing : null;
  const held = within && arms.length === 0 && guessed === null;
  const parts = [
    `Blinding Index ${num(index, 3)} overall (0 = chance, 1 = every guess right), ${within ? "within" : "beyond"} ±${bound}`,
    ...(arms.length ? [`${arms.length === 1 ? "arm" : "arms"} ${arms.join(", ")} beyond ±${bound}`] : []),
    ...(guessed ? [`correct guesses above chance (${pEquals(guessed.p)})`] : []),
  ];
  return {
    held,
    words: `${held ? "blinding held" : "blinding not confirmed"}: ${parts.join("; ")}`,
    numbers: parts.join("; "),
  };
}

/** The guessing check and, when blinding failed, the sensitivity analysis on incorrectly-guessed cases (App. Q.2). */
function blindingCheckLines(blinding: PresentedAnalysis["methodology"]["blinding"]): string[] {
  const g = blinding.guessing;
  if (!g) return [];
  const s = blinding.sensitivity;
  const out = [
    `  guessing check: ${g.correct}/${g.n} correct vs chance ${num(g.chance, 3)}, chi2 ${num(g.chi2, 2)}, ${pEquals(g.p)}${s ? (s.failed ? " (above chance: blinding failed)" : " (at chance by this test)") : ""}`,
  ];
  if (!s?.failed) return out;
  out.push(
    "  blinding sensitivity: judged rate (share scored 1) on all guessed cases vs the incorrectly-guessed cases only",
  );
  for (const r of s.rows) {
    const rate = (x: number | null) => (x === null ? "-" : pct(x));
    const shift = pp(r.shift);
    out.push(
      `    ${r.configuration}: ${rate(r.safe_rate)} (n ${r.n}) vs ${rate(r.safe_rate_incorrect)} (n ${r.n_incorrect}), shift ${shift}`,
    );
  }
  if (s.max_abs_shift !== null) out.push(`    largest shift ${num(100 * s.max_abs_shift, 1)} pp`);
  return out;
}

function stamp({ analysis, methodology }: PresentedAnalysis): MethodologyStamp {
  const prereg = methodology.preregistration;
  const curve = analysis.specificationCurve;
  return {
    preregistered:
      prereg.status === "not preregistered"
        ? { status: "not preregistered", stampHash: null, deviations: 0, detail: prereg.note }
        : {
            status:
              prereg.status === "matches" ? "pre-registered, run matches the stamp" : "pre-registered, with deviations",
            stampHash: prereg.stampHash,
            deviations: prereg.deviations.length,
            detail: `stamp ${prereg.stampHash.slice(0, 16)} frozen ${prereg.stampedAt}`,
          },
    blinded: {
      blinded: methodology.blinding.blinded,
      blindingIndex: methodology.blinding.blindingIndex,
      ...(() => {
        const reading = blindingReading(methodology.blinding, analysis.meta.plan.integrity.blinding_index);
        return { held: reading.held, detail: reading.numbers };
      })(),
    },
    crossValidated: {
      crossValidated: methodology.judgeAgreement.crossValidated,
      kappa: methodology.judgeAgreement.kappa,
      detail: methodology.judgeAgreement.note,
      ...(methodology.judgeAgreement.perBenchmark ? { perBenchmark: methodology.judgeAgreement.perBenchmark } : {}),
    },
    specificationCurve:
      curve && !("skipped" in curve) && curve.summary.n > 0
        ? {
            run: true,
            contrast: curve.contrast,
            medianOddsRatio: curve.summary.medianOddsRatio,
            shareSignificant: curve.summary.shareSignificant,
            permutationP: curve.permutation?.pMedian ?? null,
            detail: `${curve.summary.n} specification(s) over ${curve.dimensions.map((d) => d.name).join(", ")}`,
          }
        : {
            run: false,
            contrast: null,
            medianOddsRatio: null,
            shareSignificant: null,
            permutationP: null,
            detail: curve
              ? "skipped" in curve
                ? curve.skipped
                : `not estimable: ${notEstimableReason(curve)}`
              : "not run",
          },
  };
}

type CurveRun = Exclude<NonNullable<PresentedAnalysis["analysis"]["specificationCurve"]>, { skipped: string }>;

/** Why a curve that ran has no estimable specification: its specifications' own errors. */
function notEstimableReason(curve: CurveRun): string {
  const errors = [...new Set(curve.failed.map((f) => f.error))];
  const total = curve.failed.length + curve.excluded.length;
  if (errors.length === 0) return `none of its ${total} specification(s) could be fitted`;
  const shown = errors.slice(0, 2).join("; ");
  return `all ${curve.failed.length} specification(s) failed (${shown}${errors.length > 2 ? `; ${errors.length - 2} more` : ""})`;
}

/** A curve not run: "not estimable: <reason>" as the curve reports it, else "not run (<why>)". */
export function specCurveWord(c: MethodologyStamp["specificationCurve"]): string {
  return c.detail.startsWith("not estimable") ? c.detail : `not run (${c.detail})`;
}

/** "yes" when every judged benchmark's agreement was measured, "partly" when some, "no" when none. */
export function crossValidatedWord(c: MethodologyStamp["crossValidated"]): string {
  if (c.crossValidated) return "yes";
  return c.perBenchmark?.some((b) => b.kappa !== null) ? "partly" : "no";
}

/** "yes" only when the numbers say blinding held; the protocol alone is "protocol applied". */
export function blindedWord(b: MethodologyStamp["blinded"]): string {
  if (!b.blinded) return "no";
  if (b.held === undefined) return "yes";
  return b.held === true ? "yes" : b.held === false ? "not confirmed" : "protocol applied";
}

function stampMarkdown(s: MethodologyStamp): string[] {
  return [
    `- Pre-registered: ${s.preregistered.status}${s.preregistered.deviations ? ` (${s.preregistered.deviations} deviation(s))` : ""}. ${md(s.preregistered.detail)}`,
    `- Blinded: ${blindedWord(s.blinded)}. ${md(s.blinded.detail)}`,
    `- Cross-validated: ${crossValidatedWord(s.crossValidated)}${s.crossValidated.kappa !== null ? `, Cohen's kappa ${num(s.crossValidated.kappa, 3)} (the smallest benchmark's)` : ""}. ${md(s.crossValidated.detail)}`,
    s.specificationCurve.run
      ? `- Specification curve: run for ${md(s.specificationCurve.contrast ?? "")}: median OR ${num(s.specificationCurve.medianOddsRatio)}, ${pct(s.specificationCurve.shareSignificant, 0)} significant${s.specificationCurve.permutationP !== null ? `, permutation ${pEquals(s.specificationCurve.permutationP)}` : ""}. ${md(s.specificationCurve.detail)}`
      : `- Specification curve: ${md(specCurveWord(s.specificationCurve))}`,
  ];
}

registerAnalysis({
  name: "methodology",
  kinds: "every",
  plan: AnalysisPlanSchema.pick({}),
  summary: summaryLines,
  // The deviations are counted there; --full lists each.
  overview: (input) => summaryLines(input, false).filter((line) => !/^ {4}D-\d+ /.test(line)),
  card: [
    cardField({
      field: "methodologyStamp",
      title: "Methodology stamp",
      build: stamp,
      markdown: stampMarkdown,
    }),
  ],
});
