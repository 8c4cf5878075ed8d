/**
 * Judge quality: where judges scored, their cross-judge agreement (Cohen's kappa) must reach the
 * declared floor and their blinding must hold (|Bang's blinding index| within the declared bound).
 * A failure reaches the cells whose outcomes a judge produced (every cell when the table does not
 * say which scorer produced a row, e.g. an imported table). "Not available" without the study
 * directory's judge-agreement.json / blinding.json (an imported table, or no judges).
 */
import type { AnalysisRow } from "../table.js";
import { JUDGE_SCORER } from "../../scoring/index.js";
import { type CellFinding, type IntegrityFacts, registerIntegrityCheck } from "./registry.js";

/** Whether a judge produced some outcome of these rows (a row of unknown scorer counts as judged). */
function judged(rows: readonly AnalysisRow[], facts: IntegrityFacts): boolean {
  const scoring = facts.scoring && "trials" in facts.scoring ? facts.scoring : undefined;
  return rows.some((row) => {
    if (row.scorer) return row.scorer.startsWith(JUDGE_SCORER);
    const trial = row.trialId === null ? undefined : scoring?.trials.get(row.trialId);
    if (trial === undefined) return true;
    return trial.scorer?.startsWith(JUDGE_SCORER);
  });
}

registerIntegrityCheck({
  name: "judge_quality",
  title: "Judge agreement and blinding",
  run({ cells, judges, thresholds, facts }) {
    const threshold = `kappa < ${thresholds.judge_kappa} or |blinding index| > ${thresholds.blinding_index}`;
    const kappa = judges?.agreement.crossValidated ? judges.agreement.kappa : null;
    const index = judges?.blinding.blindingIndex ?? null;
    if (kappa === null && index === null)
      return {
        status: "not available",
        threshold,
        detail: "no judge agreement or blinding check recorded",
        findings: [],
      };
    const reasons: string[] = [];
    if (kappa !== null && kappa < thresholds.judge_kappa)
      reasons.push(`judge agreement kappa ${kappa.toFixed(2)} below ${thresholds.judge_kappa}`);
    if (index !== null && Math.abs(index) > thresholds.blinding_index)
      reasons.push(`blinding check failed (blinding index ${index.toFixed(2)})`);
    const findings: CellFinding[] = reasons.length
      ? [...cells.values()]
          .filter(({ rows }) => judged(rows, facts))
          .map(({ cell }) => ({ ...cell, status: "fail" as const, reason: reasons.join("; ") }))
      : [];
    const detail = [
      kappa === null ? "kappa not recorded" : `kappa ${kappa.toFixed(2)}`,
      index === null ? "blinding index not recorded" : `blinding index ${index.toFixed(2)}`,
    ].join(", ");
    return { threshold, detail, findings };
  },
});
