/**
 * Nothing measured: a cell whose every trial errored, whose answered trials have no score (an
 * imported log without scores), or whose every answer failed to parse (its outcome is then
 * constant by construction: ITT scores every row 0, PP has no rows).
 */
import { registerIntegrityCheck, type CellFinding } from "./registry.js";

registerIntegrityCheck({
  name: "nothing_measured",
  title: "Nothing measured",
  run({ cells }) {
    const findings: CellFinding[] = [];
    for (const { cell, rows } of cells.values()) {
      if (rows.length === 0) continue;
      const answered = rows.filter((r) => !r.errored);
      if (answered.length === 0) {
        findings.push({ ...cell, status: "fail", reason: "every trial errored" });
        continue;
      }
      const scored = answered.filter((r) => r.outcome !== null);
      if (scored.length === 0) {
        findings.push({ ...cell, status: "fail", reason: "not scored: no trial has a score" });
        continue;
      }
      if (scored.every((r) => r.parseFailed)) findings.push({ ...cell, status: "fail", reason: "no answer parsed" });
    }
    return {
      threshold: "every trial errored, none scored or no answer parsed",
      detail: `${findings.length} cell(s)`,
      findings,
    };
  },
});
