/** Errored trials: left out of every contrast; beyond the declared share of a cell, what is left may be selected. */
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
      // A cell where every trial errored is the nothing-measured check's finding.
      if (errored > thresholds.errored && errored < 1)
        findings.push({ ...cell, status: "fail", reason: `${share(errored)} of trials errored and were excluded` });
    }
    return { threshold: `> ${share(thresholds.errored)} of a cell`, detail: `largest share ${share(worst)}`, findings };
  },
});
