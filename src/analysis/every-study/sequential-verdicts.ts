/**
 * A sequential run's fixed-n contrasts: their intervals, p values and numbers needed assume a
 * sample size fixed in advance, which the looks broke (a run that stopped at a boundary
 * over-states its effect, and its naive interval under-covers). So they are withheld, and each
 * contrast's verdict is the sequential one: the decision at its deciding look and the repeated
 * confidence interval at that look's boundary (Jennison & Turnbull 2000, ch. 9).
 */
import type { Interval } from "../../stats/descriptive.js";
import type { LookRecord } from "../../run/sequential/run-looks.js";
import { allContrastScopes, type Contrast } from "../core/contrast-model.js";
import { sequentialEstimates, type SequentialEstimate } from "./sequential-analysis.js";
import type { StudyAnalysis } from "../core/registry.js";

export const SEQUENTIAL_WITHHELD = "sequential run: fixed-n interval withheld (see the repeated CIs)";

// A fixed-n omnibus test ignores the looks.
const SEQUENTIAL_OMNIBUS = "sequential run";

const pp = (x: number) => `${(100 * x).toFixed(1)} pp`;

function sequentialVerdict(e: SequentialEstimate, total: number): string {
  const rci = (r: Interval | null) => (r ? `, RCI [${pp(r[0])}, ${pp(r[1])}]` : "");
  return e.decision
    ? `sequential: ${e.decision} at look ${e.look}/${total}${rci(e.rci)}`
    : `sequential: undecided at look ${e.look}/${total}${rci(e.rci)}`;
}

/** Withholds every contrast's fixed-n inference and reads the pooled ones from the looks. */
export function applySequentialVerdicts(analysis: StudyAnalysis, looks: readonly LookRecord[]): void {
  const last = looks.at(-1);
  if (!last || !analysis.contrasts) return;
  const total = last.design.looks.length;
  const byLevel = new Map<string, SequentialEstimate>();
  for (const e of sequentialEstimates(looks)) {
    const level = last.contrasts.find((c) => c.contrast === e.contrast)?.level;
    if (level !== undefined && !byLevel.has(level)) byLevel.set(level, e);
  }
  const withhold = (c: Contrast, pooled: boolean) => {
    if (c.notComparable) return;
    c.withheld = c.withheld ?? SEQUENTIAL_WITHHELD;
    const estimate = pooled ? byLevel.get(c.condition) : undefined;
    if (c.notInterpretable) return;
    c.verdict = estimate ? sequentialVerdict(estimate, total) : "sequential run: no fixed-n verdict";
  };
  for (const population of ["itt", "pp"] as const) {
    for (const { scope, benchmark } of allContrastScopes(analysis.contrasts[population])) {
      const pooled = benchmark === null && (scope.kind ?? "pooled") === "pooled" && !scope.format;
      for (const c of scope.contrasts) withhold(c, pooled);
      if (scope.omnibus && "chi2" in scope.omnibus) scope.omnibusNotInterpretable ??= SEQUENTIAL_OMNIBUS;
    }
  }
}
