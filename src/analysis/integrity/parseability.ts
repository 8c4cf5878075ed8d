/**
 * Parseability (Auditing the Audit F2, folded into gate G1): in a perturbation study, the share of
 * a cell's free-form (regex-scored) trials resolved to a legal answer must reach `parseability`
 * (0.95); below it a perturbation's delta measures the extractor's coverage, not the model. The
 * detail also counts the (original, perturbed) pairs dropped symmetrically because either side did
 * not parse (App. C). Log-prob trials are parseable by construction and are not held to it.
 */
import { canonicalJson } from "../../core/hash.js";
import type { AnalysisRow } from "../core/table.js";
import { type CellFinding, registerIntegrityCheck, share } from "./registry.js";

const ORIGINAL = "none";

/** Model, item, attempt and every facet but the perturbation: what pairs a row with its original. */
export function pairKeyOf(row: AnalysisRow): string {
  const { perturbation: _p, ...rest } = row.facets;
  return canonicalJson([row.model, row.benchmark, row.item, row.attempt, row.scorer ?? null, rest]);
}

/** Pairs of each perturbed row with its original, and those dropped because either side did not parse. */
export function symmetricDrops(rows: readonly AnalysisRow[]): { pairs: number; dropped: number } {
  const originals = new Map<string, AnalysisRow>();
  for (const row of rows) if (row.facets.perturbation === ORIGINAL) originals.set(pairKeyOf(row), row);
  let pairs = 0;
  let dropped = 0;
  for (const row of rows) {
    if (row.facets.perturbation === undefined || row.facets.perturbation === ORIGINAL) continue;
    const original = originals.get(pairKeyOf(row));
    if (!original) continue;
    pairs++;
    if (unparsed(row) || unparsed(original)) dropped++;
  }
  return { pairs, dropped };
}

function unparsed(row: AnalysisRow): boolean {
  return row.errored || row.outcome === null || row.parseFailed;
}

registerIntegrityCheck({
  name: "parseability",
  title: "Parseability of a perturbation study (free-form scorers)",
  run({ rows, cells, thresholds, facts }) {
    const threshold = `< ${share(thresholds.parseability)} of a cell's free-form trials parsed`;
    if (facts.audit === undefined && !rows.some((r) => (r.facets.perturbation ?? ORIGINAL) !== ORIGINAL))
      return { threshold, detail: "no perturbations in this study", findings: [] };
    const findings: CellFinding[] = [];
    let lowest = 1;
    for (const { cell, rows: cellRows } of cells.values()) {
      const freeForm = cellRows.filter((r) => !r.errored && (r.facets.scoring_path ?? "free_form") !== "logprob");
      if (freeForm.length === 0) continue;
      const parsed = freeForm.filter((r) => r.outcome !== null && !r.parseFailed).length / freeForm.length;
      lowest = Math.min(lowest, parsed);
      if (parsed < thresholds.parseability)
        findings.push({ ...cell, status: "fail", reason: `parseability ${share(parsed)} of free-form trials` });
    }
    const { pairs, dropped } = symmetricDrops(rows);
    return {
      threshold,
      detail: `lowest parseability ${share(lowest)}; ${dropped} of ${pairs} (original, perturbed) pairs dropped symmetrically (either side unparsed)`,
      findings,
    };
  },
});
