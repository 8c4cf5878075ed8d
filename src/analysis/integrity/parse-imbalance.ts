/**
 * Parse-failure imbalance: a condition whose parse-failure share differs from the reference's in
 * the same benchmark by more than the declared difference. ITT scores the failures as unsafe and
 * PP drops them, so an imbalance makes the two populations tell different stories.
 */
import { cellKey, registerIntegrityCheck, share, type CellFinding } from "./registry.js";
import type { AnalysisRow } from "../core/table.js";

function failedShare(rows: readonly AnalysisRow[]): number | null {
  const answered = rows.filter((r) => !r.errored && r.outcome !== null);
  return answered.length ? answered.filter((r) => r.parseFailed).length / answered.length : null;
}

registerIntegrityCheck({
  name: "parse_imbalance",
  title: "Parse-failure imbalance vs the reference",
  run({ cells, reference, thresholds }) {
    const findings: CellFinding[] = [];
    let worst = 0;
    for (const { cell, rows } of cells.values()) {
      if (cell.condition === reference) continue;
      const ref = cells.get(cellKey({ condition: reference, benchmark: cell.benchmark }));
      const own = failedShare(rows);
      const base = ref ? failedShare(ref.rows) : null;
      if (own === null || base === null) continue;
      const gap = Math.abs(own - base);
      worst = Math.max(worst, gap);
      if (gap > thresholds.parse_imbalance)
        findings.push({
          ...cell,
          status: "fail",
          reason: `parse failures ${share(own)} vs ${share(base)} at ${reference} (ITT and PP disagree by construction)`,
        });
    }
    return {
      threshold: `> ${share(thresholds.parse_imbalance)} difference`,
      detail: `largest difference ${share(worst)}`,
      findings,
    };
  },
});
