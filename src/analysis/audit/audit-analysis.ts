/**
 * The perturbation audit (Auditing the Audit §3-5, Table 1, App. D-G): per model x benchmark x
 * scoring path (and any other facet) cell, the family deltas, CSR with its item-paired bootstrap CI
 * and Pr(CSR > 1) as bootstrap support, the seed CV, placebo specificity, G1-G6 and the §3 status
 * with the secondary flags; then App. E's threshold sweep and Table 4's scorer-fidelity table.
 * G1 reads the F1 no-op audit over the stored scorer-consumed bytes and the parseability of the
 * same rows the integrity checks read, so a cell failing them is never called interpretable.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type CellEvidence, type StatusBucket, thresholdSweep } from "../../perturb/gate.js";
import { scorers } from "../../scoring/index.js";
import { seedStability } from "../../stats/csr.js";
import { type AuditCell, auditCell, gateThresholds, groupCells, ORIGINAL } from "./cells.js";
import { auditSummaryLines, writeAuditGate } from "./gate-report.js";
import { auditOverviewLines } from "./overview.js";
import type { AuditResult, ScorerFidelityRow } from "./result.js";
import { type AnalysisContext, registerAnalysis, type Skipped } from "../core/registry.js";

export type { AuditResult, ScorerFidelityRow } from "./result.js";

declare module "../core/registry.js" {
  interface AnalysisResults {
    audit: AuditResult | Skipped;
  }
}

export function perturbationAudit(ctx: AnalysisContext): AuditResult | Skipped {
  const rows = ctx.table.rows;
  if (!rows.some((r) => r.facets.perturbation !== undefined && r.facets.perturbation !== ORIGINAL))
    return { skipped: "no perturbation facet (or only `none`) in the data" };
  const plan = ctx.plan;
  const grouped = groupCells(rows);
  const built = grouped.map((g) => auditCell(g, { plan, facts: ctx.integrityFacts }));
  const cells = built.map((b) => b.cell);
  const counts: Partial<Record<StatusBucket, number>> = {};
  for (const c of cells) counts[c.status.bucket] = (counts[c.status.bucket] ?? 0) + 1;
  const thresholds = gateThresholds(plan);
  const sweep = thresholdSweep(
    built.map((b) => ({
      evidence: evidenceOf(b.cell),
      items: b.items.length > 0 ? b.items : undefined,
      bootstrap: { seed: plan.audit.bootstrap_seed, resamples: plan.audit.resamples },
    })),
    thresholds,
  );
  const notes = [
    "CSR is a contrastive-magnitude ratio: a CI wholly above 1 says |Δ_attr| exceeds the surface families' magnitudes, not that the changes go in the construct's direction (§3).",
    "Pr(CSR > 1) is bootstrap support for |Δ_attr| > max(|Δ_fmt|, |Δ_sem|), not a p-value.",
  ];
  const proposed = [
    ...(plan.audit.g5 !== "implemented" ? ["G5 (archetype disclosure)"] : []),
    ...(plan.audit.g6 !== "implemented" ? ["G6 (repair-regression)"] : []),
  ];
  if (proposed.length)
    notes.push(
      `${proposed.join(" and ")} ${proposed.length > 1 ? "are" : "is"} PROPOSED, as in the paper's Table 1: a ` +
        "selective / non-selective raw verdict is held as exploratory (App. G).",
    );
  return {
    plan: plan.audit,
    thresholds,
    cells,
    counts,
    sweep: { settings: sweep.settings, notes: sweep.notes },
    fidelity: fidelityOf(cells, ctx),
    notes,
  };
}

/** The cell's evidence again (with NaN for the JSON nulls), for the sweep. */
function evidenceOf(cell: AuditCell): CellEvidence {
  const nan = (x: number | null) => x ?? Number.NaN;
  return {
    cell: cell.cell,
    noOp: {
      instrumented: cell.noOp.instrumented,
      rates: Object.fromEntries(
        Object.entries(cell.noOp.families).flatMap(([f, r]) => (r.rate === null ? [] : [[f, r.rate]])),
      ),
    },
    parseability: cell.parseability,
    g1Implementation: cell.noOp.instrumented ? ("implemented" as const) : ("partial" as const),
    original: { score: nan(cell.original.score), n: cell.original.n, baseline: nan(cell.baseline) },
    csr: {
      estimate: nan(cell.csr),
      denominator: cell.denominator,
      ci: [nan(cell.ci[0]), nan(cell.ci[1])] as const,
      items: Math.min(cell.deltas.attribute.items, Math.max(cell.deltas.format.items, cell.deltas.semantic.items)),
    },
    seedCv: nan(cell.seedCv),
    ...(cell.seedCv === null ? { seedCvMissing: seedStability(cell.seedCsr.map((s) => nan(s.csr))).cvMissing } : {}),
    scorerValidated: cell.scorerValidated,
    archetype: cell.archetype as "diagnostic" | "invariance" | "mixed" | null,
    g5Implementation: cell.status.gates.find((g) => g.id === "G5")!.implementation,
    g6: {
      implementation: cell.status.gates.find((g) => g.id === "G6")!.implementation,
      passed: cell.status.gates.find((g) => g.id === "G6")!.passed,
    },
  };
}

/** Table 4 from the scorers' registry: per benchmark and scorer used, its validation for the benchmark. */
function fidelityOf(cells: readonly AuditCell[], ctx: AnalysisContext): ScorerFidelityRow[] {
  const facts = ctx.integrityFacts?.audit;
  const benchmarks = facts && !("unavailable" in facts) ? facts.benchmarks : {};
  const rows = new Map<string, ScorerFidelityRow>();
  for (const cell of cells) {
    const meta = benchmarks[cell.benchmark];
    for (const name of cell.scorers) {
      const key = `${cell.benchmark}\u0000${cell.path}\u0000${name}`;
      if (rows.has(key)) continue;
      const scorer = scorers.has(name) ? scorers.get(name) : undefined;
      const matching = (scorer?.validated ?? []).filter(
        (v) => meta !== undefined && (v.loaders === "any" || v.loaders.includes(meta.loader)),
      );
      const defaultScorer = meta?.scorers
        ? cell.path === "logprob"
          ? meta.scorers.logprob
          : `${meta.scorers.mc} (mc) / ${meta.scorers.open} (open-ended)`
        : "unknown";
      rows.set(key, {
        benchmark: cell.benchmark,
        loader: meta?.loader ?? null,
        path: cell.path,
        reference: meta
          ? `${meta.scoring ?? "unknown"} scoring; loader default ${defaultScorer}`
          : "unknown (no loader meta)",
        auditScorer: name,
        evidence:
          matching.length > 0 ? matching.map((v) => `${v.evidence} [${v.formats.join(", ")}]`).join("; ") : "NONE",
        validated: cell.scorerValidated,
      });
    }
  }
  return [...rows.values()];
}

registerAnalysis({
  name: "audit",
  kinds: ["audit"],
  plan: AnalysisPlanSchema.pick({ audit: true, integrity: true }),
  result: "audit",
  run: perturbationAudit,
  summary: ({ analysis }) => ("skipped" in analysis.audit ? [] : auditSummaryLines(analysis.audit)),
  overview: ({ analysis }) => ("skipped" in analysis.audit ? [] : auditOverviewLines(analysis.audit)),
  // The audit gate report, beside the scorecard.
  writeFiles: (dir, { audit, meta }) =>
    audit && !("skipped" in audit) ? writeAuditGate(dir, audit, meta.source.study ?? meta.source.path) : [],
});
