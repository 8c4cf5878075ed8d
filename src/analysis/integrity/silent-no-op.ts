/**
 * Silent no-ops (Auditing the Audit F1, gate G1): in a perturbation study, the share of a cell's
 * applied perturbed trials whose scorer-consumed bytes (the stored messages on the free-form path,
 * the rebuilt continuation prompts on the log-prob path) are identical to their original's. A cell
 * at or above `no_op_rate` fails: its perturbation never reached what was scored. Without the stored
 * bytes (an imported table) the check is "not available", never a pass.
 */
import { type CellFinding, registerIntegrityCheck, share } from "./registry.js";
import { valueOfRow } from "../core/trial-id-map.js";

registerIntegrityCheck({
  name: "silent_no_op",
  title: "Silent no-op perturbations (scorer-consumed bytes)",
  run({ cells, thresholds, facts }) {
    const threshold = `>= ${share(thresholds.no_op_rate)} of a cell's perturbed trials`;
    const audit = facts.audit;
    if (audit === undefined) return { threshold, detail: "no perturbations in this study", findings: [] };
    if ("unavailable" in audit) return { status: "not available", threshold, detail: audit.unavailable, findings: [] };
    if ("unavailable" in audit.noOp)
      return { status: "not available", threshold, detail: audit.noOp.unavailable, findings: [] };
    const byTrial = audit.noOp.trials;
    const findings: CellFinding[] = [];
    let compared = 0;
    let noOps = 0;
    for (const { cell, rows } of cells.values()) {
      let cellCompared = 0;
      let cellNoOps = 0;
      for (const row of rows) {
        const fact = valueOfRow(byTrial, row);
        if (fact?.status !== "applied" || fact.noOp === null) continue;
        cellCompared++;
        if (fact.noOp) cellNoOps++;
      }
      compared += cellCompared;
      noOps += cellNoOps;
      if (cellCompared > 0 && cellNoOps / cellCompared >= thresholds.no_op_rate)
        findings.push({
          ...cell,
          status: "fail",
          reason: `${share(cellNoOps / cellCompared)} of perturbed trials are silent no-ops (${cellNoOps} of ${cellCompared}: the scorer consumed the original's bytes)`,
        });
    }
    const rates = audit.noOp.rates
      .filter((r) => r.applied > 0)
      .map((r) => `${r.benchmark}/${r.family}/${r.path} ${Number.isNaN(r.rate) ? "n/a" : share(r.rate)}`);
    return {
      threshold,
      detail: `${noOps} of ${compared} perturbed trials are no-ops${rates.length ? `; per benchmark/family/path: ${rates.join(", ")}` : ""}`,
      findings,
    };
  },
});
