/**
 * Judge quality: where judges scored, their cross-judge agreement (Cohen's kappa) must reach the
 * declared floor and their blinding must hold (|Bang's blinding index| within the declared bound).
 * A judge scores every cell, so a failure reaches every verdict. "Not available" without the
 * study directory's judge-agreement.json / blinding.json (an imported table, or no judges).
 */
import { type CellFinding, registerIntegrityCheck } from "./registry.js";

registerIntegrityCheck({
  name: "judge_quality",
  title: "Judge agreement and blinding",
  run({ cells, judges, thresholds }) {
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
      ? [...cells.values()].map(({ cell }) => ({ ...cell, status: "fail" as const, reason: reasons.join("; ") }))
      : [];
    const detail = [
      kappa === null ? "kappa not recorded" : `kappa ${kappa.toFixed(2)}`,
      index === null ? "blinding index not recorded" : `blinding index ${index.toFixed(2)}`,
    ].join(", ");
    return { threshold, detail, findings };
  },
});
