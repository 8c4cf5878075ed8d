/**
 * Readers for the methodology stamp's inputs that other stages leave in a study directory:
 * DIR/blinding.json (the blinding step: Bang's Blinding Index, ScaffoldSafety App. Q.2) and
 * DIR/judge-agreement.json (cross-judge Cohen's kappa). Absence means "not done": a study
 * without blinding.json is reported as not blinded. Both readers accept a top-level number
 * under the documented key, or the same key nested (e.g. per benchmark), and report what they
 * found verbatim enough to audit.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Chronology } from "../../contracts/chronology.js";
import type { PreregistrationCheck } from "./preregistration.js";
import type { BlindingSensitivity } from "../../scoring/blinding/guessing.js";
import type { LookRecord } from "../../run/sequential/run-looks.js";
import { type AgreementRow, type AgreementSkip, kappaInformative } from "../../scoring/judge/agreement.js";

/** The methodology facts of a study directory the scorecard's stamp reports. */
export interface Methodology {
  preregistration: PreregistrationCheck | { status: "not preregistered"; note: string };
  blinding: BlindingStatus;
  judgeAgreement: AgreementStatus;
  /** The self-audit chronology (DIR/chronology.jsonl); null or absent when the study has none. */
  chronology?: Chronology | null;
  /** A sequential run's analysed looks, as the run recorded them; absent for a fixed-n run. */
  sequential?: LookRecord[];
}

export const BLINDING_FILE = "blinding.json";
export const JUDGE_AGREEMENT_FILE = "judge-agreement.json";

export interface BlindingStatus {
  blinded: boolean;
  /** Bang's Blinding Index (near 0 = blinding held); null when absent or not reported. */
  blindingIndex: number | null;
  /** Per arm / per benchmark values when the file gives several. */
  details: Record<string, number>;
  source: string | null;
  note: string;
  /** The guessing check (Parallax's blinding.json): correct guesses vs chance. */
  guessing?: { n: number; correct: number; chance: number; chi2: number; p: number } | null;
  /** The sensitivity analysis on incorrectly-guessed cases (computed when the guessing check failed). */
  sensitivity?: BlindingSensitivity | null;
}

export interface AgreementStatus {
  crossValidated: boolean;
  /** The headline: the smallest cross-judge kappa (the judge-quality check and the stamp read this). */
  kappa: number | null;
  details: Record<string, number>;
  source: string | null;
  note: string;
  /** The cross-judge rows of judge-agreement.json (raters, scale, kappa), when it has rows. */
  rows?: AgreementRow[];
  /** The scorer-vs-judge rows: the scorer-artefact check (ScaffoldSafety 6.5). */
  scorerRows?: AgreementRow[];
  /** Cross-judge pairs whose kappa is undefined (both raters gave one and the same label throughout). */
  skipped?: AgreementSkip[];
  /**
   * Per judged benchmark (every benchmark with a cross-judge row or skip): its own kappa, or
   * "not measured" when kappa cannot measure agreement there (one label only, or no pair).
   */
  perBenchmark?: BenchmarkAgreement[];
}

/** A benchmark's cross-judge agreement: its smallest informative kappa, or why it is not measured. */
export interface BenchmarkAgreement {
  benchmark: string;
  /** null: not measured on this benchmark (`reason` says why). */
  kappa: number | null;
  n: number;
  reason?: string;
}

function readJson(path: string): { value: unknown } | { error: string } | null {
  if (!existsSync(path)) return null;
  try {
    return { value: JSON.parse(readFileSync(path, "utf8")) };
  } catch (error) {
    return { error: `${path}: not valid JSON (${(error as Error).message})` };
  }
}

/** Every finite number under a key matching `key` (at any depth below it), with its path. */
function numbersUnder(value: unknown, key: RegExp, path = "", inside = false): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof value !== "object" || value === null) return out;
  for (const [k, v] of Object.entries(value)) {
    const here = path ? `${path}.${k}` : k;
    const matched = inside || key.test(k);
    if (matched && typeof v === "number" && Number.isFinite(v)) out[here] = v;
    else Object.assign(out, numbersUnder(v, key, here, matched));
  }
  return out;
}

/** The headline value: a top-level number, else an `overall` entry, else the worst of the rest. */
function headline(found: Record<string, number>, worst: (a: number, b: number) => number): number | null {
  const entries = Object.entries(found);
  if (entries.length === 0) return null;
  const top = entries.find(([k]) => !k.includes(".")) ?? entries.find(([k]) => /(^|\.)overall$/.test(k));
  return top ? top[1] : entries.map(([, v]) => v).reduce(worst);
}

export function readBlinding(dir: string): BlindingStatus {
  const path = join(dir, BLINDING_FILE);
  const read = readJson(path);
  if (read === null) {
    return {
      blinded: false,
      blindingIndex: null,
      details: {},
      source: null,
      note: `not blinded (no ${BLINDING_FILE})`,
    };
  }
  if ("error" in read) return { blinded: false, blindingIndex: null, details: {}, source: path, note: read.error };
  const found = numbersUnder(read.value, /^(blinding_?index|bang_?(bi|index)|bi)$/i);
  const index = headline(found, (a, b) => (Math.abs(b) > Math.abs(a) ? b : a));
  const check = (read.value as { guessing_check?: Record<string, unknown> | null } | null)?.guessing_check;
  const guessing =
    check && typeof check.n === "number" && typeof check.p === "number"
      ? {
          n: check.n,
          correct: Number(check.correct),
          chance: Number(check.chance),
          chi2: Number(check.chi2),
          p: check.p,
        }
      : null;
  return {
    blinded: true,
    blindingIndex: index,
    details: found,
    source: path,
    note: index === null ? "blinded; no Blinding Index reported" : "blinded",
    guessing,
    sensitivity: (check?.sensitivity as BlindingSensitivity | null | undefined) ?? null,
  };
}

/** The rows of a judge-agreement.json that has them (`per_benchmark` entries with a kappa). */
function agreementRows(value: unknown): AgreementRow[] | undefined {
  const rows = (value as { per_benchmark?: unknown } | null)?.per_benchmark;
  if (!Array.isArray(rows)) return undefined;
  return rows.filter(
    (row): row is AgreementRow =>
      typeof row === "object" &&
      row !== null &&
      typeof row.kappa === "number" &&
      Number.isFinite(row.kappa) &&
      Array.isArray(row.judges),
  );
}

/**
 * Judge agreement is between judges: rows of a deterministic scorer against a judge (kind
 * "scorer_vs_judge", the scorer-artefact check) are reported apart and left out of the headline
 * kappa, the smallest cross-judge one (a file without rows: any number under a kappa key).
 */
export function readJudgeAgreement(dir: string): AgreementStatus {
  const path = join(dir, JUDGE_AGREEMENT_FILE);
  const read = readJson(path);
  if (read === null) {
    return {
      crossValidated: false,
      kappa: null,
      details: {},
      source: null,
      note: `no cross-judge check (no ${JUDGE_AGREEMENT_FILE})`,
    };
  }
  if ("error" in read) return { crossValidated: false, kappa: null, details: {}, source: path, note: read.error };
  const rows = agreementRows(read.value);
  if (rows === undefined) {
    const found = numbersUnder(read.value, /^(cohens_?)?kappa$/i);
    const kappa = headline(found, (a, b) => Math.min(a, b));
    return {
      crossValidated: kappa !== null,
      kappa,
      details: found,
      source: path,
      note: kappa === null ? `${JUDGE_AGREEMENT_FILE} holds no kappa` : "cross-validated",
    };
  }
  const cross = rows.filter((row) => row.kind !== "scorer_vs_judge");
  const scorerRows = rows.filter((row) => row.kind === "scorer_vs_judge");
  const informative = cross.filter(kappaInformative);
  const details = Object.fromEntries(
    informative.map((row) => [`${row.benchmark}: ${row.judges.join(" vs ")}`, row.kappa]),
  );
  const skipped = skippedRows(read.value);
  const perBenchmark = benchmarkAgreement(cross, skipped);
  const measured = perBenchmark.filter((b) => b.kappa !== null);
  // A headline kappa only when every judged benchmark has its own: never one benchmark's
  // number standing for another where agreement was not measured.
  const all = measured.length > 0 && measured.length === perBenchmark.length;
  return {
    crossValidated: all,
    kappa: all ? Math.min(...measured.map((b) => b.kappa as number)) : null,
    details,
    source: path,
    note: agreementNote(perBenchmark),
    rows: cross,
    scorerRows,
    skipped,
    perBenchmark,
  };
}

/** Each judged benchmark's smallest informative kappa, or why agreement is not measured there. */
function benchmarkAgreement(cross: readonly AgreementRow[], skipped: readonly AgreementSkip[]): BenchmarkAgreement[] {
  const names = [...new Set([...cross.map((r) => r.benchmark), ...skipped.map((s) => s.benchmark)])].sort();
  return names.map((benchmark) => {
    const rows = cross.filter((r) => r.benchmark === benchmark);
    const informative = rows.filter(kappaInformative);
    if (informative.length) {
      const worst = informative.reduce((a, b) => (b.kappa < a.kappa ? b : a));
      return { benchmark, kappa: worst.kappa, n: worst.n };
    }
    const skip = skipped.find((s) => s.benchmark === benchmark);
    const oneLabel = rows[0];
    const reason = skip
      ? skip.reason
      : `one judge gave one label only (kappa ${oneLabel.kappa.toFixed(3)} by construction, raw agreement ${
          oneLabel.observed === undefined ? "-" : `${(100 * oneLabel.observed).toFixed(1)}%`
        })`;
    return { benchmark, kappa: null, n: skip?.n ?? oneLabel.n, reason };
  });
}

/** The overview's short form: which judged benchmarks are not measured, the others' kappa range. */
export function agreementOverviewNote(perBenchmark: readonly BenchmarkAgreement[]): string {
  const measured = perBenchmark.flatMap((b) => (b.kappa === null ? [] : [b.kappa]));
  const missing = perBenchmark.filter((b) => b.kappa === null).map((b) => b.benchmark);
  if (missing.length === 0) return agreementNote(perBenchmark).split(";")[0];
  const range =
    measured.length === 0
      ? ""
      : `; kappa ${Math.min(...measured).toFixed(3)} to ${Math.max(...measured).toFixed(3)} on the other ${measured.length}`;
  return `not measured on ${missing.length} of ${perBenchmark.length} judged benchmark(s) (${missing.join(", ")})${range}`;
}

/** "kappa per judged benchmark: a 0.812 (n 40), b not measured (...)" in one line. */
export function agreementNote(perBenchmark: readonly BenchmarkAgreement[]): string {
  if (perBenchmark.length === 0) return `no cross-judge pair in ${JUDGE_AGREEMENT_FILE}`;
  const measured = perBenchmark.flatMap((b) => (b.kappa === null ? [] : [b.kappa]));
  const missing = perBenchmark.length - measured.length;
  const head =
    missing === 0
      ? `cross-validated on every judged benchmark (smallest kappa ${Math.min(...measured).toFixed(3)})`
      : `${missing} of ${perBenchmark.length} judged benchmark(s) not measured`;
  const each = perBenchmark.map((b) =>
    b.kappa === null ? `${b.benchmark} not measured (${b.reason})` : `${b.benchmark} ${b.kappa.toFixed(3)} (n ${b.n})`,
  );
  return `${head}; kappa per benchmark: ${each.join("; ")}`;
}

/** The `skipped` entries of a judge-agreement.json (pairs whose kappa is undefined), cross-judge ones. */
function skippedRows(value: unknown): AgreementSkip[] {
  const skipped = (value as { skipped?: unknown } | null)?.skipped;
  if (!Array.isArray(skipped)) return [];
  return skipped.filter(
    (row): row is AgreementSkip =>
      typeof row === "object" &&
      row !== null &&
      typeof row.benchmark === "string" &&
      Array.isArray(row.judges) &&
      row.kind !== "scorer_vs_judge",
  );
}
