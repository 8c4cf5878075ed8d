/**
 * Scorer validation: a verdict's numbers come from scorers, and a scorer is only known to read
 * answers right where it was checked against a reference. Each scorer declares the benchmarks
 * (loaders) and formats it is validated for (`validated` in its own file; a plugin's scorer
 * does the same); this check warns on a cell whose outcomes come, for more than the declared
 * share of its scored trials, from a scorer not marked validated for the cell's benchmark and
 * the trial's format. Judges are the judge-quality check's. "Not available" without what scored
 * each trial (an imported table).
 */
import { JUDGE_SCORER, scorers, validatedFor } from "../../scoring/index.js";
import { type CellFinding, registerIntegrityCheck, share } from "./registry.js";
import { valueOfRow } from "../core/trial-id-map.js";

registerIntegrityCheck({
  name: "scorer_validation",
  title: "Scorers validated for the benchmark and format",
  run({ cells, thresholds, facts }) {
    const threshold = `> ${share(thresholds.unvalidated_scorer)} of a cell's scored trials (warning)`;
    const scoring = facts.scoring;
    if (scoring === undefined || "unavailable" in scoring)
      return {
        status: "not available",
        threshold,
        detail: scoring ? scoring.unavailable : "what scored each trial is not recorded (an imported table)",
        findings: [],
      };
    const findings: CellFinding[] = [];
    const unvalidated = new Set<string>();
    // Which scorer produced the numbers, stamped on every card that shows this section.
    const used = new Map<string, number>();
    for (const { cell, rows } of cells.values()) {
      const loader = scoring.loaders[cell.benchmark];
      if (loader === undefined) continue;
      const misses = new Map<string, number>();
      let scored = 0;
      // A cell's trials have few (scorer, format) pairs: each pair's keys and verdict are worked out once.
      const pairs = new Map<string | null, Map<string | null, ScoredBy>>();
      for (const row of rows) {
        if (row.errored || row.outcome === null) continue;
        const trial = valueOfRow(scoring.trials, row);
        // A row without a trial id is not a stored trial's: not scored by a recorded scorer.
        if (trial === undefined && row.trialId === null) continue;
        const name = row.scorer ?? trial?.scorer ?? null;
        const format = trial?.format ?? null;
        let ofName = pairs.get(name);
        if (ofName === undefined) {
          ofName = new Map();
          pairs.set(name, ofName);
        }
        let by = ofName.get(format);
        if (by === undefined) {
          by = scoredBy(name, format, cell.benchmark, loader);
          ofName.set(format, by);
        }
        if (by.used !== null) used.set(by.used, (used.get(by.used) ?? 0) + 1);
        if (!by.scored) continue;
        scored++;
        if (by.miss !== null) misses.set(by.miss, (misses.get(by.miss) ?? 0) + 1);
      }
      const missed = [...misses.values()].reduce((a, b) => a + b, 0);
      if (scored === 0 || missed / scored <= thresholds.unvalidated_scorer) continue;
      for (const key of misses.keys()) unvalidated.add(key);
      findings.push({
        ...cell,
        status: "warn",
        reason: `scorer not marked validated: ${[...misses].map(([key, n]) => `${key} (${n} trials)`).join(", ")}`,
      });
    }
    const verdict = unvalidated.size
      ? `not validated: ${[...unvalidated].sort().join("; ")}`
      : "every scorer is marked validated for its benchmark and format";
    const stamp = [...used].sort(([a], [b]) => a.localeCompare(b)).map(([key, n]) => `${key}: ${n}`);
    const detail = stamp.length ? `scored by ${stamp.join(", ")}; ${verdict}` : verdict;
    return { threshold, detail, findings };
  },
});

/** What a trial scored by `name` in `format` counts for in a cell of `benchmark` (loaded by `loader`). */
interface ScoredBy {
  /** Its key in the scorers-used stamp (null: no scorer recorded). */
  used: string | null;
  /** Whether it counts among the cell's scored trials (a known scorer and format, not a judge). */
  scored: boolean;
  /** Its key among the unvalidated scorers (null: validated, or not scored). */
  miss: string | null;
}

function scoredBy(name: string | null, format: string | null, benchmark: string, loader: string): ScoredBy {
  const used = name === null ? null : `${name} (${benchmark}${format === null ? "" : ` / ${format}`})`;
  if (name === null || format === null || name.startsWith(JUDGE_SCORER)) return { used, scored: false, miss: null };
  const validated = scorers.has(name) && validatedFor(scorers.get(name), loader, format);
  return { used, scored: true, miss: validated ? null : `${name} on ${loader} / ${format}` };
}
