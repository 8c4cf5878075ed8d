/**
 * Errored trials: left out of every contrast; beyond the declared share of a cell, what is left
 * may be selected. A cell where every trial errored fails here too (and in nothing_measured):
 * "excluded: pass" would claim the exclusion left something to read.
 */
import { registerIntegrityCheck, share, type CellFinding } from "./registry.js";

registerIntegrityCheck({
  name: "errored",
  title: "Errored trials excluded",
  run({ cells, thresholds }) {
    const findings: CellFinding[] = [];
    let worst = 0;
    for (const { cell, rows } of cells.values()) {
      if (rows.length === 0) continue;
      const errored = rows.filter((r) => r.errored).length / rows.length;
      worst = Math.max(worst, errored);
      if (errored > thresholds.errored)
        findings.push({
          ...cell,
          status: "fail",
          reason:
            errored === 1
              ? "every trial errored: nothing left to read"
              : `${share(errored)} of trials errored and were excluded`,
        });
    }
    return { threshold: `> ${share(thresholds.errored)} of a cell`, detail: `largest share ${share(worst)}`, findings };
  },
});
