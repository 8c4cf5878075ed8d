/**
 * The perturbation audit's cells (Auditing the Audit §3, Table 1, App. E-G), built from the
 * analysis rows and the study's audit facts. A cell is one model x benchmark x the other facets
 * (the scoring path among them); each of its items carries its original score and, per family and
 * seed, its perturbed scores (one per slot; attempts averaged; a parse failure or error is null and
 * drops its pair symmetrically). CSR, its item-paired bootstrap, seed CV, placebo specificity and
 * the evidence of G1-G6 come from src/stats/csr.ts and src/perturb/gate.ts.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { canonicalJson } from "../../core/hash.js";
import { type CellEvidence, type CellStatus, cellStatus, type GateThresholds } from "../../perturb/gate.js";
import { isFamily, perturbations } from "../../perturb/registry.js";
import type { NoOpSample } from "../../run/score/no-op-audit.js";
import { scorers, validatedFor } from "../../scoring/index.js";
import {
  CSR_FAMILIES,
  type CsrFamily,
  csr,
  type FamilyDelta,
  type PairedItem,
  pairedCsrBootstrap,
  placeboSpecificity,
  seedStability,
} from "../../stats/csr.js";
import type { AuditFacts } from "../core/audit-facts.js";
import type { IntegrityFacts } from "../integrity/registry.js";
import type { AnalysisRow } from "../core/table.js";
import { valueOfRow } from "../core/trial-id-map.js";

export const ORIGINAL = "none";
const DEFAULT_SEED = 42;

/** A row's perturbation: the original, or a family with its seed and slot. */
export interface RowPerturbation {
  family: CsrFamily | "original";
  seed: number;
  /** The slot (family values) or the perturbation's name (named values): one perturbed score per item each. */
  slot: string;
}

/** Reads a perturbation facet label back ("format(seed=42,slot=1)", "case_change", "none"); null: unknown name. */
export function parsePerturbationLabel(label: string | undefined): RowPerturbation | null {
  if (label === undefined || label === ORIGINAL) return { family: "original", seed: DEFAULT_SEED, slot: "" };
  const match = /^([^(]+)(?:\((.*)\))?$/.exec(label);
  if (!match) return null;
  const name = match[1];
  const params = new Map(
    (match[2] ?? "")
      .split(",")
      .filter(Boolean)
      .map((kv) => kv.split("=") as [string, string]),
  );
  const seed = params.has("seed") ? Number(params.get("seed")) : DEFAULT_SEED;
  if (isFamily(name)) return { family: name, seed, slot: params.get("slot") ?? "0" };
  if (!perturbations.has(name)) return null;
  return { family: perturbations.get(name).family, seed, slot: label.replace(/\(?seed=[^,)]*,?/, "") };
}

export interface FamilyNoOp {
  compared: number;
  noOps: number;
  notApplicable: number;
  rate: number | null;
}

export interface AuditCell {
  cell: string;
  model: string;
  benchmark: string;
  path: string;
  /** The other facets that define the cell (besides model, benchmark and perturbation). */
  facets: Record<string, string>;
  archetype: string | null;
  baseline: number | null;
  original: { score: number | null; n: number };
  deltas: Record<CsrFamily, { delta: number | null; items: number; pairs: number; droppedPairs: number }>;
  csr: number | null;
  denominator: number;
  ci: [number | null, number | null];
  /** Pr(CSR > 1) over the item-paired bootstrap replicates: bootstrap support, not a p-value. */
  support: number | null;
  undefinedReplicates: number;
  seedCsr: { seed: number; csr: number | null }[];
  seedCv: number | null;
  csrPlacebo: number | null;
  placeboSpecificity: number | null;
  noOp: { instrumented: boolean; families: Record<string, FamilyNoOp>; reason: string | null };
  parseability: { regexScorer: boolean; rate: number | null; pairs: number; droppedPairs: number };
  scorers: string[];
  scorerValidated: boolean;
  status: CellStatus;
  samples: NoOpSample[];
}

/** The gate thresholds of a plan: G1's from the integrity section, the rest from the audit section. */
export function gateThresholds(plan: AnalysisPlan): GateThresholds {
  const a = plan.audit;
  return {
    noOpCap: plan.integrity.no_op_rate,
    parseability: plan.integrity.parseability,
    baselineSe: a.baseline_se,
    g3: a.g3,
    seedCv: a.seed_cv,
    minItems: a.min_items,
    epsilon: a.epsilon,
  };
}

export function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

interface Grouped {
  model: string;
  benchmark: string;
  facets: Record<string, string>;
  rows: { row: AnalysisRow; p: RowPerturbation }[];
}

/** The rows grouped into cells (model x benchmark x the other facets); rows of unknown perturbations are left out. */
export function groupCells(rows: readonly AnalysisRow[]): Grouped[] {
  const cells = new Map<string, Grouped>();
  for (const row of rows) {
    const p = parsePerturbationLabel(row.facets.perturbation);
    if (!p) continue;
    const { perturbation: _p, ...facets } = row.facets;
    const key = canonicalJson([row.model, row.benchmark, facets]);
    const cell = cells.get(key) ?? { model: row.model, benchmark: row.benchmark, facets, rows: [] };
    cell.rows.push({ row, p });
    cells.set(key, cell);
  }
  return [...cells.values()].sort((a, b) =>
    canonicalJson([a.model, a.benchmark, a.facets]).localeCompare(canonicalJson([b.model, b.benchmark, b.facets])),
  );
}

/** Per seed, each item's original score and per-family perturbed scores (one per slot, attempts averaged). */
export function pairedItems(cell: Grouped, isNotApplicable: (row: AnalysisRow) => boolean): Map<number, PairedItem[]> {
  const originals = new Map<string, (number | null)[]>();
  const perturbed = new Map<number, Map<string, Map<CsrFamily, Map<string, (number | null)[]>>>>();
  for (const { row, p } of cell.rows) {
    const score = row.errored || row.outcome === null || row.parseFailed ? null : row.outcome;
    if (p.family === "original") {
      originals.set(row.item, [...(originals.get(row.item) ?? []), score]);
      continue;
    }
    // A perturbation recorded as not applicable rendered the original item: not a perturbed score.
    if (isNotApplicable(row)) continue;
    const bySeed = perturbed.get(p.seed) ?? new Map();
    const byItem = bySeed.get(row.item) ?? new Map();
    const bySlot = byItem.get(p.family) ?? new Map();
    bySlot.set(p.slot, [...(bySlot.get(p.slot) ?? []), score]);
    byItem.set(p.family, bySlot);
    bySeed.set(row.item, byItem);
    perturbed.set(p.seed, bySeed);
  }
  const out = new Map<number, PairedItem[]>();
  for (const [seed, byItem] of perturbed) {
    const items: PairedItem[] = [...originals.keys()].sort().map((id) => {
      const families = byItem.get(id) ?? new Map();
      const scores: Partial<Record<CsrFamily, (number | null)[]>> = {};
      for (const [family, bySlot] of families) scores[family as CsrFamily] = [...bySlot.values()].map(meanOf);
      return { id, original: meanOf(originals.get(id)!), perturbed: scores };
    });
    out.set(seed, items);
  }
  return out;
}

/** The mean of the non-null scores (attempts); null when none parsed. */
function meanOf(scores: readonly (number | null)[]): number | null {
  const parsed = scores.filter((s): s is number => s !== null);
  return parsed.length === 0 ? null : parsed.reduce((a, b) => a + b, 0) / parsed.length;
}

export interface CellInputs {
  plan: AnalysisPlan;
  facts: IntegrityFacts | undefined;
}

/** One cell's numbers, evidence and status, with the primary seed's paired items (for the sweep). */
export function auditCell(cell: Grouped, { plan, facts }: CellInputs): { cell: AuditCell; items: PairedItem[] } {
  const a = plan.audit;
  const audit = facts?.audit !== undefined && !("unavailable" in facts.audit) ? facts.audit : undefined;
  const noOpFacts = audit && !("unavailable" in audit.noOp) ? audit.noOp : undefined;
  const notApplicable = (row: AnalysisRow) =>
    noOpFacts !== undefined && valueOfRow(noOpFacts.trials, row)?.status === "not_applicable";
  const bySeed = pairedItems(cell, notApplicable);
  const seeds = a.seeds.filter((s) => bySeed.has(s));
  const primarySeed = seeds[0] ?? [...bySeed.keys()].sort((x, y) => x - y)[0];
  const items = bySeed.get(primarySeed) ?? [];
  const path = cell.facets.scoring_path ?? "free_form";
  const name = [cell.model, cell.benchmark, ...Object.entries(cell.facets).map(([k, v]) => `${k}=${v}`)].join(" × ");
  const estimate = csr(items, { epsilon: a.epsilon });
  const boot =
    items.length > 0
      ? pairedCsrBootstrap(items, {
          epsilon: a.epsilon,
          resamples: a.resamples,
          seed: a.bootstrap_seed,
          level: a.level,
        })
      : null;
  const seedCsr = seeds.map((s) => ({ seed: s, csr: csr(bySeed.get(s)!, { epsilon: a.epsilon }).csr }));
  const stability = seedStability(seedCsr.map((s) => s.csr));
  const placebo = csr(items, { epsilon: a.epsilon, numerator: "placebo" });
  const originals = items.map((i) => i.original).filter((s): s is number => s !== null);
  const originalScore = originals.length > 0 ? originals.reduce((x, y) => x + y, 0) / originals.length : Number.NaN;
  const noOp = cellNoOp(cell, noOpFacts, audit === undefined ? facts?.audit : undefined);
  const parse = cellParseability(cell, path);
  const meta = audit?.benchmarks[cell.benchmark];
  const { names: scorerNames, validated } = cellScorers(cell, facts, meta?.loader);
  const ci = boot?.ci ?? [Number.NaN, Number.NaN];
  const evidence: CellEvidence = {
    cell: name,
    noOp: {
      instrumented: noOp.instrumented,
      rates: Object.fromEntries(
        Object.entries(noOp.families).flatMap(([f, r]) => (r.rate === null ? [] : [[f, r.rate]])),
      ),
    },
    parseability: { regexScorer: parse.regexScorer, rate: parse.rate },
    g1Implementation: noOp.instrumented ? "implemented" : "partial",
    original: { score: originalScore, n: originals.length, baseline: meta?.baseline ?? Number.NaN },
    csr: {
      estimate: estimate.csr,
      denominator: estimate.denominator,
      ci,
      items: Math.min(
        estimate.deltas.attribute.items,
        Math.max(estimate.deltas.format.items, estimate.deltas.semantic.items),
      ),
    },
    seedCv: stability.cv,
    ...(stability.cvMissing ? { seedCvMissing: stability.cvMissing } : {}),
    scorerValidated: validated,
    archetype: meta?.archetype ?? null,
    g5Implementation: a.g5,
    g6: { implementation: a.g6, passed: a.g6 === "implemented" },
  };
  const status = cellStatus(evidence, gateThresholds(plan));
  const samples = (noOpFacts?.samples ?? [])
    .filter((s) => s.model === cell.model && s.benchmark === cell.benchmark && s.path === path)
    .slice(0, a.diff_samples * CSR_FAMILIES.length);
  return {
    items,
    cell: {
      cell: name,
      model: cell.model,
      benchmark: cell.benchmark,
      path,
      facets: cell.facets,
      archetype: meta?.archetype ?? null,
      baseline: meta?.baseline ?? null,
      original: { score: finite(originalScore), n: originals.length },
      deltas: Object.fromEntries(CSR_FAMILIES.map((f) => [f, deltaOut(estimate.deltas[f])])) as AuditCell["deltas"],
      csr: finite(estimate.csr),
      denominator: estimate.denominator,
      ci: [finite(ci[0]), finite(ci[1])],
      support: boot ? finite(boot.support) : null,
      undefinedReplicates: boot?.undefinedReplicates ?? 0,
      seedCsr: seedCsr.map((s) => ({ seed: s.seed, csr: finite(s.csr) })),
      seedCv: finite(stability.cv),
      csrPlacebo: finite(placebo.csr),
      placeboSpecificity: finite(placeboSpecificity(estimate.csr, placebo.csr)),
      noOp,
      parseability: parse,
      scorers: scorerNames,
      scorerValidated: validated,
      status: jsonSafe(status),
      samples,
    },
  };
}

function deltaOut(d: FamilyDelta): AuditCell["deltas"][CsrFamily] {
  return { delta: finite(d.delta), items: d.items, pairs: d.pairs, droppedPairs: d.droppedPairs };
}

/** The status with its numbers as JSON keeps them (no NaN). */
function jsonSafe(status: CellStatus): CellStatus {
  return JSON.parse(JSON.stringify(status)) as CellStatus;
}

/** G1's no-op half: per family, the cell's applied trials whose scorer-consumed bytes equal the original's. */
function cellNoOp(
  cell: Grouped,
  facts: AuditFacts["noOp"] | undefined,
  unavailable: IntegrityFacts["audit"],
): AuditCell["noOp"] {
  if (!facts || "unavailable" in facts) {
    const reason =
      facts && "unavailable" in facts
        ? facts.unavailable
        : unavailable && "unavailable" in unavailable
          ? unavailable.unavailable
          : "the scorer-consumed bytes are not available (not a study directory)";
    return { instrumented: false, families: {}, reason };
  }
  const families: Record<string, FamilyNoOp> = {};
  let unknown = 0;
  for (const { row, p } of cell.rows) {
    if (p.family === "original") continue;
    const fact = valueOfRow(facts.trials, row);
    if (fact === undefined && row.trialId === null) continue;
    const entry = families[p.family] ?? { compared: 0, noOps: 0, notApplicable: 0, rate: null };
    if (fact?.status === "not_applicable") entry.notApplicable++;
    else if (fact?.status === "applied" && fact.noOp !== null) {
      entry.compared++;
      if (fact.noOp) entry.noOps++;
    } else unknown++;
    families[p.family] = entry;
  }
  for (const entry of Object.values(families)) entry.rate = entry.compared > 0 ? entry.noOps / entry.compared : null;
  const uncompared = Object.entries(families).filter(([, e]) => e.compared === 0 && e.notApplicable === 0);
  const instrumented = uncompared.length === 0 && Object.keys(families).length > 0;
  const reason = instrumented
    ? null
    : uncompared.length > 0
      ? `no perturbed trial of ${uncompared.map(([f]) => f).join(", ")} could be compared with its original (${unknown} unknown)`
      : "no perturbed trials";
  return { instrumented, families, reason };
}

/** G1's parseability half: free-form trials are regex-scored; the symmetric drops of (original, perturbed) pairs. */
function cellParseability(cell: Grouped, path: string): AuditCell["parseability"] {
  const answered = cell.rows.filter(({ row }) => !row.errored);
  const parsed = answered.filter(({ row }) => row.outcome !== null && !row.parseFailed).length;
  const unparsed = (row: AnalysisRow) => row.errored || row.outcome === null || row.parseFailed;
  const originals = new Map<string, AnalysisRow[]>();
  for (const { row, p } of cell.rows)
    if (p.family === "original") originals.set(`${row.item}\u0000${row.attempt}`, [row]);
  let pairs = 0;
  let dropped = 0;
  for (const { row, p } of cell.rows) {
    if (p.family === "original") continue;
    const original = originals.get(`${row.item}\u0000${row.attempt}`)?.[0];
    if (!original) continue;
    pairs++;
    if (unparsed(row) || unparsed(original)) dropped++;
  }
  return {
    regexScorer: path !== "logprob",
    rate: answered.length > 0 ? parsed / answered.length : null,
    pairs,
    droppedPairs: dropped,
  };
}

/** The scorers of the cell's outcomes and whether each is marked validated for the benchmark's loader and format. */
function cellScorers(
  cell: Grouped,
  facts: IntegrityFacts | undefined,
  loader: string | undefined,
): { names: string[]; validated: boolean } {
  const scoring = facts?.scoring !== undefined && !("unavailable" in facts.scoring) ? facts.scoring : undefined;
  const names = new Set<string>();
  let validated = loader !== undefined && scoring !== undefined;
  for (const { row } of cell.rows) {
    if (row.errored) continue;
    const trial = scoring === undefined ? undefined : valueOfRow(scoring.trials, row);
    if (trial === undefined && row.trialId === null) continue;
    const name = row.scorer ?? trial?.scorer ?? null;
    if (name === null) continue;
    names.add(name);
    const format = trial?.format ?? row.facets.format ?? null;
    if (!loader || format === null || !scorers.has(name) || !validatedFor(scorers.get(name), loader, format))
      validated = false;
  }
  return { names: [...names].sort(), validated: validated && names.size > 0 };
}
