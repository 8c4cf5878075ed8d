/**
 * The G1–G6 due-diligence gate of a perturbation audit and the status of a cell (Auditing the
 * Audit, Table 1, §3 status algorithm, App. G verdict mapping, App. E threshold sweep), as pure
 * functions over the evidence of one cell (a model × benchmark). Nothing here reads a store.
 *
 * Interpretations where the paper is silent (each is a named, tested choice):
 * - G1 fails, and step 1 (ineligible, F1-type) fires, when the no-op audit does not reach the
 *   scorer-consumed prompt (uninstrumented), when any method's no-op rate is at or above the cap
 *   (App. E: a cap ≤ 83% keeps CrowS "F1-ineligible"), or when a regex-based scorer's parseability
 *   is below 0.95 (G1 folds F2; the paper does not say which bucket a parseability failure takes).
 * - G2's SE is taken under the null hypothesis, sqrt(b(1 − b)/n) at the trivial baseline b: the
 *   textbook one-sample test of the score against b (it gives App. F's "2 SE ≈ 6.7 pp" at
 *   b = 1/3, n = 200, and §6's "2 SE ≈ 0.07" at p = 0.5, n = 200).
 * - G4's n_items_ok guard has no published threshold: `minItems` (default 30). An undefined seed CV
 *   (fewer than two seeds, or a mean CSR of 0) fails seed_cv_lt_03.
 * - Step 4 fires for `invariance` and for `mixed` archetypes (a diagnostic ratio cannot be read
 *   within an ambiguous archetype); an undisclosed archetype fails G5 instead (step 5).
 * - A cell that passes everything but whose CI contains 1 gets the raw verdict `ci_includes_one`
 *   and the bucket `exploratory`: the paper defines selective / non-selective only for CIs
 *   wholly above / below 1.
 * - Secondary flags (Table 3) are the benchmark-level conditions of steps 3 (SU) and 4 (F5) that
 *   hold below the primary step, shown when the primary step is 2 or 3 (an F1-ineligible cell
 *   was not evaluated further; Table 3 shows no flags for it).
 */
import { CSR_EPSILON, csr, type PairedItem, pairedCsrBootstrap } from "../stats/csr.js";

export type GateImplementation = "implemented" | "partial" | "proposed";
export type Archetype = "diagnostic" | "invariance" | "mixed";

/** The evidence of one cell, as the analysis collects it. */
export interface CellEvidence {
  /** e.g. "qwen × truthfulqa". */
  cell: string;
  /** G1, the silent-no-op half: measured on the scorer-consumed bytes? rates per perturbation method. */
  noOp: { instrumented: boolean; rates: Readonly<Record<string, number>> };
  /** G1, the parseability half: only regex-based (free-form extraction) scorers are held to it. */
  parseability: { regexScorer: boolean; rate: number | null };
  /** G1 is Partial in the paper (no-op audit not instrumented for every path). */
  g1Implementation: GateImplementation;
  /** G2: the unperturbed score, its n and the benchmark's trivial baseline. */
  original: { score: number; n: number; baseline: number };
  /** G3/G4: the CSR estimate, max(|Δ_fmt|, |Δ_sem|), the paired-bootstrap CI and the items used. */
  csr: { estimate: number; denominator: number; ci: readonly [number, number]; items: number };
  /** Seed CV of CSR across the declared seeds (NaN: undefined). */
  seedCv: number;
  /** Why the seed CV is NaN ("CSR is 0 at every seed ..."), printed in G4's detail. */
  seedCvMissing?: string;
  /** The benchmark's scorer validated against a reference or human labels (Table 4). */
  scorerValidated: boolean;
  /** G5: the loader's declared archetype (null: undisclosed). */
  archetype: Archetype | null;
  g5Implementation: GateImplementation;
  /** G6: per-cell scorer-output inspection and a regression test for every scoring-path fix. */
  g6: { implementation: GateImplementation; passed: boolean };
}

export interface GateThresholds {
  /** G1: the no-op rate must be below this (Table 1: < 20%). */
  noOpCap: number;
  /** G1: parseability of a regex-based scorer must be at least this (Table 1: ≥ 0.95). */
  parseability: number;
  /** G2: the score must exceed the baseline by this many SEs (Table 1: 2). */
  baselineSe: number;
  /** G3: max(|Δ_fmt|, |Δ_sem|) must be at least this (Table 1: 0.02). */
  g3: number;
  /** G4: the seed CV must be below this (App. G: gate_seed_cv_lt_03). */
  seedCv: number;
  /** G4: at least this many items with usable pairs (n_items_ok; no published value). */
  minItems: number;
  /** CSR's ε floor (§3: 0.01); it is not a gate, but the sweep varies it. */
  epsilon: number;
}

export const DEFAULT_THRESHOLDS: Readonly<GateThresholds> = {
  noOpCap: 0.2,
  parseability: 0.95,
  baselineSe: 2,
  g3: 0.02,
  seedCv: 0.3,
  minItems: 30,
  epsilon: CSR_EPSILON,
};

export type GateId = "G1" | "G2" | "G3" | "G4" | "G5" | "G6";

export interface GateResult {
  id: GateId;
  implementation: GateImplementation;
  passed: boolean;
  /** Why it failed (or what it checked). */
  detail: string;
}

/** G1–G6 of one cell. */
export function evaluateGates(e: CellEvidence, t: GateThresholds = DEFAULT_THRESHOLDS): GateResult[] {
  return [g1(e, t), g2(e, t), g3(e, t), g4(e, t), g5(e), g6(e)];
}

function g1(e: CellEvidence, t: GateThresholds): GateResult {
  const base = { id: "G1" as const, implementation: e.g1Implementation };
  if (!e.noOp.instrumented)
    return { ...base, passed: false, detail: "no-op audit does not reach the scorer-consumed prompt" };
  const over = Object.entries(e.noOp.rates)
    .filter(([, rate]) => !(rate < t.noOpCap))
    .map(([method, rate]) => `${method} ${fmtPct(rate)}`);
  if (over.length > 0)
    return { ...base, passed: false, detail: `no-op rate ≥ ${fmtPct(t.noOpCap)}: ${over.sort().join(", ")}` };
  if (e.parseability.regexScorer) {
    const rate = e.parseability.rate;
    if (rate === null || !(rate >= t.parseability))
      return { ...base, passed: false, detail: `parseability ${rate ?? "unknown"} < ${t.parseability}` };
  }
  return { ...base, passed: true, detail: "no-op rates under the cap; parseability ok" };
}

function g2(e: CellEvidence, t: GateThresholds): GateResult {
  const { score, n, baseline } = e.original;
  const se = n > 0 ? Math.sqrt((baseline * (1 - baseline)) / n) : Number.NaN;
  const margin = t.baselineSe * se;
  const passed = n > 0 && score - baseline >= margin;
  return {
    id: "G2",
    implementation: "implemented",
    passed,
    detail: `score ${round(score)} vs baseline ${round(baseline)} + ${t.baselineSe} SE (${round(margin)})`,
  };
}

function g3(e: CellEvidence, t: GateThresholds): GateResult {
  const d = e.csr.denominator;
  return {
    id: "G3",
    implementation: "implemented",
    passed: d >= t.g3,
    detail: `max(|Δ_fmt|, |Δ_sem|) = ${round(d)} vs ${t.g3}`,
  };
}

function g4(e: CellEvidence, t: GateThresholds): GateResult {
  const failures: string[] = [];
  const [lo, hi] = e.csr.ci;
  if (!(Number.isFinite(lo) && Number.isFinite(hi)))
    failures.push("ci_estimable: n/a: the paired-bootstrap CI could not be estimated");
  if (!(e.csr.items >= t.minItems)) failures.push(`n_items_ok: ${e.csr.items} items < ${t.minItems}`);
  if (!(e.seedCv < t.seedCv))
    failures.push(
      Number.isNaN(e.seedCv)
        ? `seed_cv: n/a: ${e.seedCvMissing ?? "no CV across the seeds"}`
        : `seed_cv: ${round(e.seedCv)} ≥ ${t.seedCv}`,
    );
  return {
    id: "G4",
    implementation: "implemented",
    passed: failures.length === 0,
    detail: failures.length === 0 ? "paired CI estimable, enough items, seed-stable" : failures.join("; "),
  };
}

function g5(e: CellEvidence): GateResult {
  return {
    id: "G5",
    implementation: e.g5Implementation,
    passed: e.archetype !== null,
    detail: e.archetype === null ? "archetype not disclosed" : `archetype ${e.archetype}`,
  };
}

function g6(e: CellEvidence): GateResult {
  return {
    id: "G6",
    implementation: e.g6.implementation,
    passed: e.g6.passed,
    detail: e.g6.passed ? "scorer outputs inspected; regression tests present" : "repair-regression evidence missing",
  };
}

/** The raw verdict tokens of App. G (plus `ci_includes_one`, see the file comment). */
export type RawVerdict =
  | "not_applicable"
  | "inconclusive"
  | "uninterpretable_scorer"
  | "attribute_family_mismatch"
  | "selective"
  | "non_selective"
  | "ci_includes_one";

export type StatusBucket =
  | "ineligible (F1)"
  | "failed G2-G4"
  | "scorer-unvalidated"
  | "ineligible (F5)"
  | "exploratory"
  | "confirmatory-selective"
  | "confirmatory-non-selective";

/** Secondary flags of Table 3: SU (scorer-unvalidated) and F5 (archetype mismatch) below the primary step. */
export type SecondaryFlag = "SU" | "F5";

export interface CellStatus {
  cell: string;
  /** The §3 step that fired first (1–6). */
  step: 1 | 2 | 3 | 4 | 5 | 6;
  raw: RawVerdict;
  bucket: StatusBucket;
  flags: SecondaryFlag[];
  reason: string;
  gates: GateResult[];
}

/**
 * App. G, Table 5: raw verdict -> bucket. `selective` / `non_selective` map to the confirmatory
 * buckets only when G1–G6 are all implemented and passed (step 6), else to `exploratory` (step 5).
 */
export function bucketOf(raw: RawVerdict, allGatesImplementedAndPassed: boolean): StatusBucket {
  switch (raw) {
    case "not_applicable":
      return "ineligible (F1)";
    case "inconclusive":
      return "failed G2-G4";
    case "uninterpretable_scorer":
      return "scorer-unvalidated";
    case "attribute_family_mismatch":
      return "ineligible (F5)";
    case "ci_includes_one":
      return "exploratory";
    case "selective":
      return allGatesImplementedAndPassed ? "confirmatory-selective" : "exploratory";
    case "non_selective":
      return allGatesImplementedAndPassed ? "confirmatory-non-selective" : "exploratory";
  }
}

/** The status of one cell: the §3 conditions top to bottom, the first that fires decides. */
export function cellStatus(e: CellEvidence, t: GateThresholds = DEFAULT_THRESHOLDS): CellStatus {
  const gates = evaluateGates(e, t);
  const gate = (id: GateId) => gates.find((g) => g.id === id)!;
  const archetypeMismatch = e.archetype === "invariance" || e.archetype === "mixed";
  const result = (step: CellStatus["step"], raw: RawVerdict, reason: string, all = false): CellStatus => {
    const flags: SecondaryFlag[] = [];
    if (step === 2 && !e.scorerValidated) flags.push("SU");
    if ((step === 2 || step === 3) && archetypeMismatch) flags.push("F5");
    return { cell: e.cell, step, raw, bucket: bucketOf(raw, all), flags, reason, gates };
  };
  // 1. ineligible (F1-type): G1 cannot be evaluated or fails.
  if (!gate("G1").passed) return result(1, "not_applicable", `G1: ${gate("G1").detail}`);
  // 2. failed G2–G4: an implemented numerical gate fails on this cell.
  const numerical = (["G2", "G3", "G4"] as const).map(gate).filter((g) => !g.passed);
  if (numerical.length > 0) return result(2, "inconclusive", numerical.map((g) => `${g.id}: ${g.detail}`).join("; "));
  // 3. scorer-unvalidated (benchmark-level).
  if (!e.scorerValidated) return result(3, "uninterpretable_scorer", "the benchmark's scorer is not validated");
  // 4. ineligible (F5-type): archetype-mismatched under CSR-as-defined.
  if (archetypeMismatch)
    return result(4, "attribute_family_mismatch", `archetype ${e.archetype}: CSR is a diagnostic ratio`);
  // 5/6. selective / non-selective by the CI; confirmatory only when G1–G6 are all implemented and passed.
  const [lo, hi] = e.csr.ci;
  const raw: RawVerdict = lo > 1 ? "selective" : hi < 1 ? "non_selective" : "ci_includes_one";
  const all = gates.every((g) => g.passed && g.implementation === "implemented");
  if (raw === "ci_includes_one") return result(5, raw, `CSR CI [${round(lo)}, ${round(hi)}] includes 1`);
  if (!all) {
    const open = gates.filter((g) => !(g.passed && g.implementation === "implemented"));
    return result(5, raw, `${open.map((g) => `${g.id} ${g.passed ? g.implementation : "failed"}`).join(", ")}`);
  }
  return result(6, raw, `G1–G6 implemented and passed; CI [${round(lo)}, ${round(hi)}]`, true);
}

// ---------------------------------------------------------------- threshold sweep (App. E)

/** The grids of App. E: G3 ∈ {0.01, 0.02, 0.05}, ε ∈ {0.001, 0.01, 0.1}, G1 cap ∈ {5, 10, 20}%. */
export const SWEEP_GRID = {
  g3: [0.01, 0.02, 0.05],
  epsilon: [0.001, 0.01, 0.1],
  noOpCap: [0.05, 0.1, 0.2],
} as const;

export type SweepKnob = keyof typeof SWEEP_GRID;

/** A cell for the sweep: its evidence and, to recompute CSR and its CI under another ε, its paired items. */
export interface SweepCell {
  evidence: CellEvidence;
  items?: readonly PairedItem[];
  /** The bootstrap of the evidence's CI (seed, resamples), reused for every ε. */
  bootstrap?: { seed: number; resamples: number };
}

export interface SweepSetting {
  knob: SweepKnob;
  value: number;
  statuses: { cell: string; bucket: StatusBucket; raw: RawVerdict }[];
  /** Cells whose bucket differs from the one under the default thresholds. */
  changed: { cell: string; from: StatusBucket; to: StatusBucket }[];
  /** Bucket -> number of cells. */
  counts: Partial<Record<StatusBucket, number>>;
}

/**
 * App. E: each knob over its grid, the others at `base`. Varying ε recomputes CSR and its paired
 * CI from the cell's items when they are given (G3 reads the un-floored denominator, so ε changes
 * only CSR and the CI); without items the evidence's CSR is kept and a note says so.
 */
export function thresholdSweep(
  cells: readonly SweepCell[],
  base: GateThresholds = DEFAULT_THRESHOLDS,
  grid: Readonly<Record<SweepKnob, readonly number[]>> = SWEEP_GRID,
): { baseline: CellStatus[]; settings: SweepSetting[]; notes: string[] } {
  const baseline = cells.map((c) => cellStatus(c.evidence, base));
  const notes: string[] = [];
  const missingItems = cells.filter((c) => !c.items).map((c) => c.evidence.cell);
  if (missingItems.length > 0)
    notes.push(`ε sweep keeps the given CSR and CI (no items) for: ${missingItems.join(", ")}`);
  const settings: SweepSetting[] = [];
  for (const knob of Object.keys(grid) as SweepKnob[]) {
    for (const value of grid[knob]) {
      const thresholds = { ...base, [knob]: value };
      const statuses = cells.map((c) =>
        cellStatus(knob === "epsilon" ? withEpsilon(c, value) : c.evidence, thresholds),
      );
      const changed = statuses.flatMap((s, i) =>
        s.bucket === baseline[i].bucket ? [] : [{ cell: s.cell, from: baseline[i].bucket, to: s.bucket }],
      );
      const counts: Partial<Record<StatusBucket, number>> = {};
      for (const s of statuses) counts[s.bucket] = (counts[s.bucket] ?? 0) + 1;
      settings.push({
        knob,
        value,
        statuses: statuses.map((s) => ({ cell: s.cell, bucket: s.bucket, raw: s.raw })),
        changed,
        counts,
      });
    }
  }
  return { baseline, settings, notes };
}

function withEpsilon(cell: SweepCell, epsilon: number): CellEvidence {
  if (!cell.items) return cell.evidence;
  const boot = pairedCsrBootstrap(cell.items, {
    epsilon,
    seed: cell.bootstrap?.seed,
    resamples: cell.bootstrap?.resamples,
  });
  const estimate = csr(cell.items, { epsilon });
  return {
    ...cell.evidence,
    csr: { ...cell.evidence.csr, estimate: estimate.csr, denominator: estimate.denominator, ci: boot.ci },
  };
}

/** Three decimals; "n/a" for a value that could not be computed (never "NaN" in a card). */
function round(x: number): string {
  return Number.isFinite(x) ? String(Math.round(x * 1000) / 1000) : "n/a";
}

function fmtPct(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}
