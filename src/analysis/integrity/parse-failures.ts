/** Parse failures: a cell where more than the declared share of the answers could not be read. */
import { registerIntegrityCheck, share, type CellFinding } from "./registry.js";

registerIntegrityCheck({
  name: "parse_failures",
  title: "Parse failures per cell",
  run({ cells, thresholds }) {
    const findings: CellFinding[] = [];
    let worst = 0;
    for (const { cell, rows } of cells.values()) {
      const answered = rows.filter((r) => !r.errored && r.outcome !== null);
      if (answered.length === 0) continue;
      const failed = answered.filter((r) => r.parseFailed).length / answered.length;
      worst = Math.max(worst, failed);
      // A cell with no answer parsed fails here too (nothing-measured names it first).
      if (failed > thresholds.parse_failures)
        findings.push({ ...cell, status: "fail", reason: `${share(failed)} of answers not parsed` });
    }
    return {
      threshold: `> ${share(thresholds.parse_failures)} of a cell`,
      detail: `largest share ${share(worst)}`,
      findings,
    };
  },
});
