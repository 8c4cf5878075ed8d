/**
 * Gold-position bias: the share of the items' gold answers at each option letter, as the items
 * were formatted (after any shuffle), against uniform (an item with k options puts 1/k at each
 * of its letters), by a chi-square goodness-of-fit test per benchmark. A benchmark whose gold
 * sits mostly at one letter rewards a position preference (Auditing the Audit, F3b), so every
 * verdict in it is suspect: a finding covers all of the benchmark's cells. Fails when p is below
 * gold_position_p and a letter's share departs from uniform by more than gold_position_excess;
 * warns when p is below gold_position_warn_p. "Not available" without the gold letters (an
 * imported table, or a study whose items could not be re-loaded).
 */
import { chiSquareGoodnessOfFit } from "../../stats/index.js";
import { type CellFinding, type FormattedGold, registerIntegrityCheck, share } from "./registry.js";

interface BenchmarkGolds {
  benchmark: string;
  n: number;
  letters: string[];
  observed: number[];
  expected: number[];
  p: number;
}

/** The gold letters of one benchmark's items against uniform; null with fewer than two letters. */
export function goldPositionTest(benchmark: string, units: readonly FormattedGold[]): BenchmarkGolds | null {
  const letters = [...new Set(units.flatMap((u) => u.letters))].sort();
  if (letters.length < 2 || units.length === 0) return null;
  const observed = letters.map((l) => units.filter((u) => u.letter === l).length);
  const expected = letters.map(
    (l) => units.reduce((sum, u) => sum + (u.letters.includes(l) ? 1 / u.letters.length : 0), 0) / units.length,
  );
  const { p } = chiSquareGoodnessOfFit(observed, expected);
  return { benchmark, n: units.length, letters, observed, expected, p };
}

function pText(p: number): string {
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

registerIntegrityCheck({
  name: "gold_position",
  title: "Gold-position bias of the items as formatted",
  run({ cells, thresholds, facts }) {
    const threshold = `chi-square p < ${thresholds.gold_position_p} and a letter's share off uniform by > ${share(thresholds.gold_position_excess)} (warn: p < ${thresholds.gold_position_warn_p})`;
    const golds = facts.golds;
    if (golds === undefined || "unavailable" in golds || golds.units.length === 0)
      return {
        status: "not available",
        threshold,
        detail:
          golds && "unavailable" in golds
            ? golds.unavailable
            : "no gold letters recorded (an imported table, or no multiple-choice items)",
        findings: [],
      };
    const findings: CellFinding[] = [];
    const details: string[] = [];
    const benchmarks = [...new Set(golds.units.map((u) => u.benchmark))].sort();
    for (const benchmark of benchmarks) {
      const test = goldPositionTest(
        benchmark,
        golds.units.filter((u) => u.benchmark === benchmark),
      );
      if (!test) continue;
      const shares = test.observed.map((o) => o / test.n);
      const departures = shares.map((s, i) => s - test.expected[i]);
      const worst = departures.reduce((w, d, i) => (Math.abs(d) > Math.abs(departures[w]) ? i : w), 0);
      details.push(
        `${benchmark}: ${test.letters.map((l, i) => `${l} ${share(shares[i])}`).join(" ")} of ${test.n} items (${pText(test.p)})`,
      );
      const fail = test.p < thresholds.gold_position_p && Math.abs(departures[worst]) > thresholds.gold_position_excess;
      const warn = test.p < thresholds.gold_position_warn_p;
      if (!fail && !warn) continue;
      const reason = `gold at ${test.letters[worst]} in ${share(shares[worst])} of ${test.n} items (uniform ${share(test.expected[worst])}; ${pText(test.p)})`;
      for (const { cell } of cells.values())
        if (cell.benchmark === benchmark) findings.push({ ...cell, status: fail ? "fail" : "warn", reason });
    }
    return { threshold, detail: details.join("; ") || "fewer than two option letters", findings };
  },
});
