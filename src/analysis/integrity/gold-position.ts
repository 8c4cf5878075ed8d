/**
 * Gold-position bias: in each cell, the share of its items whose gold option was shown at each
 * position (after any reorder), against uniform (an item with k options puts 1/k at each of its
 * positions), by a chi-square goodness-of-fit test. A cell whose gold sits mostly at one position
 * rewards a position preference (Auditing the Audit, F3b), so its verdicts are suspect. Positions,
 * not the labels shown: a perturbation that relabels the options (A, B, C -> Z, Y, X or 1, 2, 3)
 * moves no gold, and a shuffle that moves it is read where it went. Positions are named by the
 * default letters (A: the first option shown, B: the second, ...), whatever the labels were.
 * Each item counts once per cell, whatever the number
 * of models, attempts or scoring paths that showed it; an item shown at several positions in one
 * cell is split evenly over them. Fails when p is below gold_position_p and a position's share
 * departs from uniform by more than gold_position_excess; warns when p is below
 * gold_position_warn_p. "Not available" without the gold positions (an imported table or run,
 * whose logs carry no items).
 */
import { OPTION_LETTERS } from "../../contracts/item.js";
import { chiSquareGoodnessOfFit } from "../../stats/index.js";
import type { AnalysisRow } from "../core/table.js";
import { type CellFinding, type FormattedGold, registerIntegrityCheck, share } from "./registry.js";
import { valueOfRow } from "../core/trial-id-map.js";

export interface GoldPositionTest {
  /** Distinct items. */
  n: number;
  /** Items (or parts of items) with their gold at each position (0-based). */
  observed: number[];
  /** The share uniform choice puts at each position, given each item's number of options. */
  expected: number[];
  p: number;
}

/** The gold positions of one cell's trials against uniform; null with fewer than two positions. */
export function goldPositionTest(units: readonly FormattedGold[]): GoldPositionTest | null {
  const shownAt = new Map<string, Map<string, FormattedGold>>();
  for (const unit of units) {
    const item = `${unit.benchmark}\u0000${unit.item}`;
    const positions = shownAt.get(item) ?? new Map<string, FormattedGold>();
    positions.set(`${unit.position}/${unit.options}`, unit);
    shownAt.set(item, positions);
  }
  const width = Math.max(0, ...units.map((u) => u.options));
  if (width < 2 || shownAt.size === 0) return null;
  const observed = new Array<number>(width).fill(0);
  const expected = new Array<number>(width).fill(0);
  for (const positions of shownAt.values()) {
    const weight = 1 / positions.size;
    for (const { position, options } of positions.values()) {
      observed[position] += weight;
      for (let j = 0; j < options; j++) expected[j] += weight / options / shownAt.size;
    }
  }
  const { p } = chiSquareGoodnessOfFit(observed, expected);
  return { n: shownAt.size, observed, expected, p };
}

function pText(p: number): string {
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

function unitsOf(rows: readonly AnalysisRow[], golds: ReadonlyMap<string, FormattedGold>): FormattedGold[] {
  const units: FormattedGold[] = [];
  for (const row of rows) {
    const gold = valueOfRow(golds, row);
    if (gold) units.push(gold);
  }
  return units;
}

/** A position by its default letter (A: the first option shown), whatever label it was shown with. */
function positionName(position: number): string {
  return OPTION_LETTERS[position] ?? `#${position + 1}`;
}

function distribution(test: GoldPositionTest): string {
  return `${test.observed.map((o, i) => `${positionName(i)} ${share(o / test.n)}`).join(" ")} of ${test.n} items (${pText(test.p)})`;
}

registerIntegrityCheck({
  name: "gold_position",
  title: "Gold-position bias of the items as formatted",
  run({ cells, reference, thresholds, facts }) {
    const threshold = `chi-square p < ${thresholds.gold_position_p} and a letter's share off uniform by > ${share(thresholds.gold_position_excess)} (warn: p < ${thresholds.gold_position_warn_p})`;
    const golds = facts.golds;
    if (golds === undefined || "unavailable" in golds || golds.trials.size === 0)
      return {
        status: "not available",
        threshold,
        detail:
          golds && "unavailable" in golds
            ? golds.unavailable
            : "no gold positions recorded (an imported table, or no multiple-choice items)",
        findings: [],
      };
    const findings: CellFinding[] = [];
    // Per benchmark: the reference cell's distribution (else the first tested cell's), and the cells shown otherwise.
    const tested = new Map<string, { condition: string; shown: string; flagged: boolean }[]>();
    for (const { cell, rows } of cells.values()) {
      const test = goldPositionTest(unitsOf(rows, golds.trials));
      if (!test) continue;
      const shares = test.observed.map((o) => o / test.n);
      const departures = shares.map((s, i) => s - test.expected[i]);
      const worst = departures.reduce((w, d, i) => (Math.abs(d) > Math.abs(departures[w]) ? i : w), 0);
      const fail = test.p < thresholds.gold_position_p && Math.abs(departures[worst]) > thresholds.gold_position_excess;
      const warn = test.p < thresholds.gold_position_warn_p;
      const entry = { condition: cell.condition, shown: distribution(test), flagged: fail || warn };
      tested.set(cell.benchmark, [...(tested.get(cell.benchmark) ?? []), entry]);
      if (!fail && !warn) continue;
      findings.push({
        ...cell,
        status: fail ? "fail" : "warn",
        reason: `gold at ${positionName(worst)} in ${share(shares[worst])} of ${test.n} items (uniform ${share(test.expected[worst])}; ${pText(test.p)})`,
      });
    }
    const detail = [...tested.keys()]
      .sort()
      .map((benchmark) => benchmarkDetail(benchmark, tested.get(benchmark)!, reference))
      .join("; ");
    return { threshold, detail: detail || "fewer than two option positions", findings };
  },
});

/**
 * One benchmark's gold positions as its reference cell shows them (else its first cell), and,
 * when some of its cells show them otherwise (a shuffle), how many and how many of those are biased.
 */
function benchmarkDetail(
  benchmark: string,
  cells: readonly { condition: string; shown: string; flagged: boolean }[],
  reference: string,
): string {
  const base = cells.find((c) => c.condition === reference) ?? cells[0];
  const other = cells.filter((c) => c.shown !== base.shown);
  const label = base.condition === reference ? benchmark : `${benchmark} (${base.condition})`;
  const otherwise = other.length
    ? `; ${other.length} of ${cells.length} cells show it otherwise (${other.filter((c) => c.flagged).length} biased)`
    : "";
  return `${label}: ${base.shown}${otherwise}`;
}
