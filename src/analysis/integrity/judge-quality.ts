/**
 * Judge quality: where judges scored, their cross-judge agreement (Cohen's kappa) must reach the
 * declared floor and their blinding must hold (|Bang's blinding index| within the declared bound).
 * A failure reaches the cells whose outcomes a judge produced (every cell when the table does not
 * say which scorer produced a row, e.g. an imported table). "Not available" without the study
 * directory's judge-agreement.json / blinding.json (an imported table, or no judges).
 */
import type { AnalysisRow } from "../core/table.js";
import { JUDGE_SCORER } from "../../scoring/index.js";
import { kappaInformative, kappaReading } from "../../scoring/judge/agreement.js";
import { type CellFinding, type IntegrityFacts, type JudgeFacts, registerIntegrityCheck } from "./registry.js";
import { valueOfRow } from "../core/trial-id-map.js";

/** Whether a judge produced some outcome of these rows (a row of unknown scorer counts as judged). */
function judged(rows: readonly AnalysisRow[], facts: IntegrityFacts): boolean {
  const scoring = facts.scoring && "trials" in facts.scoring ? facts.scoring : undefined;
  return rows.some((row) => {
    if (row.scorer) return row.scorer.startsWith(JUDGE_SCORER);
    const trial = scoring === undefined ? undefined : valueOfRow(scoring.trials, row);
    if (trial === undefined) return true;
    return trial.scorer?.startsWith(JUDGE_SCORER);
  });
}

/**
 * Per benchmark (null: every benchmark), why its judged cells fail or warn: a cross-judge kappa
 * below the floor fails; a pair whose kappa cannot measure agreement (a judge gave one label
 * only, or both the same one throughout) warns, with its raw agreement. A file without rows: the
 * headline kappa for every benchmark.
 */
function agreementFindings(
  agreement: JudgeFacts["agreement"] | undefined,
  floor: number,
): Map<string | null, { status: "fail" | "warn"; reason: string }[]> {
  const out = new Map<string | null, { status: "fail" | "warn"; reason: string }[]>();
  const add = (benchmark: string | null, status: "fail" | "warn", reason: string) =>
    out.set(benchmark, [...(out.get(benchmark) ?? []), { status, reason }]);
  if (!agreement) return out;
  if (agreement.rows === undefined) {
    if (agreement.kappa !== null && agreement.kappa < floor)
      add(null, "fail", `judge agreement kappa ${agreement.kappa.toFixed(2)} below ${floor}`);
    return out;
  }
  for (const row of agreement.rows) {
    const pair = `${row.judges.join(" vs ")}${row.polarity ? `, ${row.polarity.labels.join(" vs ")}` : ""}`;
    if (!kappaInformative(row))
      add(row.benchmark, "warn", `judge agreement not measured on ${row.benchmark}: ${kappaReading(row)}`);
    else if (row.kappa < floor)
      add(
        row.benchmark,
        "fail",
        `judge agreement kappa ${row.kappa.toFixed(2)} below ${floor} (${pair}: ${kappaReading(row)})`,
      );
  }
  for (const skip of agreement.skipped ?? [])
    add(skip.benchmark, "warn", `judge agreement not measured on ${skip.benchmark}: ${skip.reason}`);
  return out;
}

registerIntegrityCheck({
  name: "judge_quality",
  title: "Judge agreement and blinding",
  run({ cells, judges, thresholds, facts }) {
    const threshold = `kappa < ${thresholds.judge_kappa} or |blinding index| > ${thresholds.blinding_index}`;
    const agreement = judges?.agreement;
    const kappa = agreement?.crossValidated ? agreement.kappa : null;
    const index = judges?.blinding.blindingIndex ?? null;
    const pairs = (agreement?.rows?.length ?? 0) + (agreement?.skipped?.length ?? 0);
    if (kappa === null && index === null && pairs === 0)
      return {
        status: "not available",
        threshold,
        detail: "no judge agreement or blinding check recorded",
        findings: [],
      };
    const byBenchmark = agreementFindings(agreement, thresholds.judge_kappa);
    const blinding =
      index !== null && Math.abs(index) > thresholds.blinding_index
        ? `blinding check failed (blinding index ${index.toFixed(2)})`
        : null;
    const findings: CellFinding[] = [];
    for (const { cell, rows } of cells.values()) {
      const found = [...(byBenchmark.get(null) ?? []), ...(byBenchmark.get(cell.benchmark) ?? [])];
      if (blinding) found.push({ status: "fail", reason: blinding });
      if (found.length === 0 || !judged(rows, facts)) continue;
      const failed = found.filter((f) => f.status === "fail");
      const shown = failed.length ? failed : found;
      findings.push({
        ...cell,
        status: failed.length ? "fail" : "warn",
        reason: shown.map((f) => f.reason).join("; "),
      });
    }
    // The numbers the methodology stamp prints: each judged benchmark's own kappa, a headline
    // only when every judged benchmark has one.
    const each = (agreement?.perBenchmark ?? []).map(
      (b) => `${b.benchmark} ${b.kappa === null ? "not measured" : b.kappa.toFixed(2)}`,
    );
    const head =
      kappa === null ? (each.length ? "kappa per benchmark" : "kappa not recorded") : `kappa ${kappa.toFixed(2)}`;
    const detail = [
      `${head}${each.length ? ` (${each.join(", ")})` : ""}`,
      index === null
        ? "blinding index not recorded"
        : `blinding index ${index.toFixed(2)}${armsBeyond(judges, thresholds.blinding_index)}`,
    ].join(", ");
    return { threshold, detail, findings };
  },
});

/**
 * The arms whose own Blinding Index is beyond the bound: the check reads the overall index, and
 * says so when an arm gives itself away (the methodology stamp then reads "not confirmed").
 */
function armsBeyond(judges: JudgeFacts | undefined, bound: number): string {
  const arms = Object.entries(judges?.blinding.details ?? {}).flatMap(([key, value]) => {
    const arm = /(?:^|\.)per_arm\.(.+)$/.exec(key)?.[1];
    return arm !== undefined && Math.abs(value) > bound ? [`${arm} ${value.toFixed(2)}`] : [];
  });
  return arms.length ? ` (overall; beyond ±${bound} in ${arms.sort().join(", ")})` : "";
}
