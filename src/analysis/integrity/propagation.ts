/**
 * Propagation: the MC options or the safety instructions reached no call of a trial (the stored
 * per-call audits, options_reached / safety_reached, aggregated per trial). A cell where more than
 * the declared share of trials lost them did not test the condition it names.
 */
import { registerIntegrityCheck, share, type CellFinding } from "./registry.js";

const AUDITS = [
  { column: "options_reached_share", what: "options" },
  { column: "safety_reached_share", what: "safety instructions" },
] as const;

registerIntegrityCheck({
  name: "propagation",
  title: "Options and safety instructions reached the calls",
  run({ rows, cells, thresholds }) {
    const threshold = `> ${share(thresholds.propagation)} of a cell's trials`;
    if (!rows.some((r) => r.audit && AUDITS.some((a) => a.column in (r.audit ?? {}))))
      return { status: "not available", threshold, detail: "the table records no propagation audit", findings: [] };
    const findings: CellFinding[] = [];
    for (const { cell, rows: cellRows } of cells.values()) {
      for (const { column, what } of AUDITS) {
        const audited = cellRows.filter((r) => r.audit?.[column] !== undefined);
        if (audited.length === 0) continue;
        const lost = audited.filter((r) => r.audit?.[column] === 0).length / audited.length;
        if (lost > thresholds.propagation)
          findings.push({ ...cell, status: "fail", reason: `${what} reached no call in ${share(lost)} of trials` });
      }
    }
    return { threshold, detail: `${findings.length} cell(s)`, findings };
  },
});
