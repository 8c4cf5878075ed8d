/**
 * The scorer-artefact check (ScaffoldSafety 6.5, "Scoring methodology validation"): a heuristic
 * scorer (the refusal patterns) rated the same judged responses as the primary judge, and their
 * Cohen's kappa per benchmark (judge-agreement.json, kind "scorer_vs_judge") says whether the
 * heuristic would have reproduced the judge's classification. Below the plan's kappa floor it
 * would not: the paper found such a heuristic manufacturing or reversing findings. The cells
 * whose numbers that scorer produced fail; the benchmark's other cells (scored by the judge) get
 * a warning naming the disagreement, with what the kappa's sign says. A kappa that cannot
 * measure agreement (one rater gave one label only) warns, with the raw agreement. "Not
 * available" without scorer-vs-judge rows.
 */
import { JUDGE_SCORER } from "../../scoring/index.js";
import { agreementLine, kappaInformative, kappaReading } from "../../scoring/judge/agreement.js";
import type { AnalysisRow } from "../core/table.js";
import { type CellFinding, type IntegrityFacts, registerIntegrityCheck } from "./registry.js";
import { valueOfRow } from "../core/trial-id-map.js";

/** The scorers (registered names, without version) that produced these rows' outcomes. */
function scorersOf(rows: readonly AnalysisRow[], facts: IntegrityFacts): Set<string> {
  const scoring = facts.scoring && "trials" in facts.scoring ? facts.scoring : undefined;
  const names = new Set<string>();
  for (const row of rows) {
    const scorer = row.scorer ?? (scoring === undefined ? undefined : valueOfRow(scoring.trials, row)?.scorer);
    if (scorer) names.add(scorer.replace(/@[^@]*$/, ""));
  }
  return names;
}

registerIntegrityCheck({
  name: "scorer_artefact",
  title: "Heuristic scorer against the judge (scorer artefact)",
  run({ cells, judges, thresholds, facts }) {
    const threshold = `scorer-vs-judge kappa < ${thresholds.judge_kappa} (fails the cells that scorer scored)`;
    const rows = judges?.agreement.scorerRows ?? [];
    if (rows.length === 0)
      return {
        status: "not available",
        threshold,
        detail: "no heuristic scorer was compared with a judge",
        findings: [],
      };
    const findings: CellFinding[] = [];
    for (const row of rows) {
      const informative = kappaInformative(row);
      if (informative && row.kappa >= thresholds.judge_kappa) continue;
      const [scorer, judge] = row.judges;
      const reason = informative
        ? `${scorer} disagrees with ${judge} (kappa ${row.kappa.toFixed(2)} below ${thresholds.judge_kappa}: ${kappaReading(row)})`
        : `${scorer} vs ${judge}: ${kappaReading(row)}`;
      for (const { cell, rows: cellRows } of cells.values()) {
        if (cell.benchmark !== row.benchmark) continue;
        const scorers = scorersOf(cellRows, facts);
        if (scorers.has(scorer)) findings.push({ ...cell, status: informative ? "fail" : "warn", reason });
        else if ([...scorers].some((name) => name.startsWith(JUDGE_SCORER)))
          findings.push({ ...cell, status: "warn", reason: `scored by the judge; ${reason}` });
      }
    }
    return { threshold, detail: rows.map((row) => agreementLine(row)).join("; "), findings };
  },
});
