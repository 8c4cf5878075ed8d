// Per-axis attribution over a benchmark's configuration grid (SafetyRepro §5.1 "Which axis does
// the operator exploit?", App. S), computed exactly on the observed grid by matched one-axis
// swaps instead of the paper's LightGBM/SHAP surrogates: for each axis, the pairs of
// configurations that differ on that axis alone. Score movement is the mean |s(m, c1) - s(m, c2)|
// over those pairs and the models; flip control is the share of (pair, model pair) comparisons
// whose strict sign s(A) - s(B) reverses (+ to - or - to +) across the swap.

export interface AxisAttributionRow {
  axis: string;
  /** Configuration pairs that differ on this axis only. */
  swaps: number;
  /** Mean |score difference| over the swaps and models (null without a swap). */
  meanAbsDelta: number | null;
  /** Largest |score difference| over the swaps and models. */
  maxAbsDelta: number | null;
  /** (swap, model pair) comparisons with a strict sign on both sides that reverse. */
  reversals: number;
  /** swaps x model pairs. */
  comparisons: number;
  /** reversals / comparisons (null without a comparison). */
  reversalRate: number | null;
  /** This axis's reversals / every axis's reversals (null when no axis reverses a pair). */
  reversalShare: number | null;
}

export interface AxisAttribution {
  rows: AxisAttributionRow[];
  /** The axis with the largest mean |score difference| (null when no axis has a swap). */
  scoreAxis: string | null;
  /** The axis with the highest reversal rate (null when no swap reverses any pair). */
  flipAxis: string | null;
}

/**
 * levels[c] gives configuration c's level on each axis; scores[c][m] is model m's score there.
 * Axes with a single level (no swap) are reported with zero swaps.
 */
export function axisAttribution(
  axes: readonly string[],
  levels: readonly Readonly<Record<string, string>>[],
  scores: readonly (readonly number[])[],
): AxisAttribution {
  if (levels.length !== scores.length) throw new RangeError("levels and scores differ in length");
  const models = scores[0]?.length ?? 0;
  const rows = axes.map((axis): AxisAttributionRow => {
    const others = axes.filter((a) => a !== axis);
    const groups = new Map<string, number[]>();
    levels.forEach((l, c) => {
      const key = others.map((a) => l[a] ?? "").join("\u0000");
      groups.set(key, [...(groups.get(key) ?? []), c]);
    });
    let swaps = 0;
    let deltaSum = 0;
    let deltaMax = 0;
    let deltas = 0;
    let reversals = 0;
    let comparisons = 0;
    for (const members of groups.values()) {
      for (let i = 0; i < members.length; i++) {
        for (let j = i + 1; j < members.length; j++) {
          const [c1, c2] = [members[i], members[j]];
          if (levels[c1][axis] === levels[c2][axis]) continue;
          swaps++;
          for (let m = 0; m < models; m++) {
            const d = Math.abs(scores[c1][m] - scores[c2][m]);
            deltaSum += d;
            deltaMax = Math.max(deltaMax, d);
            deltas++;
            for (let n = m + 1; n < models; n++) {
              comparisons++;
              const s1 = Math.sign(scores[c1][m] - scores[c1][n]);
              const s2 = Math.sign(scores[c2][m] - scores[c2][n]);
              if (s1 !== 0 && s2 !== 0 && s1 !== s2) reversals++;
            }
          }
        }
      }
    }
    return {
      axis,
      swaps,
      meanAbsDelta: deltas ? deltaSum / deltas : null,
      maxAbsDelta: deltas ? deltaMax : null,
      reversals,
      comparisons,
      reversalRate: comparisons ? reversals / comparisons : null,
      reversalShare: null,
    };
  });
  const total = rows.reduce((sum, r) => sum + r.reversals, 0);
  for (const r of rows) r.reversalShare = total > 0 ? r.reversals / total : null;
  const best = (value: (r: AxisAttributionRow) => number | null) => {
    let found: AxisAttributionRow | null = null;
    for (const r of rows) {
      const v = value(r);
      if (v !== null && v > 0 && (found === null || v > (value(found) ?? 0))) found = r;
    }
    return found?.axis ?? null;
  };
  return { rows, scoreAxis: best((r) => r.meanAbsDelta), flipAxis: best((r) => (r.reversals ? r.reversalRate : null)) };
}
