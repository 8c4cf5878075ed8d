/**
 * The control check of a control family (ScaffoldSafety 6.3: "the AI factual recall control ...
 * 24 model x config cells return zero significant deviations from direct under the same
 * correction"). The paper's test is per cell: each model's configurations against the reference,
 * BH-adjusted together (multiplicity.secondary). A per-cell test has a model's cases only, so it
 * can miss a shift the family's pooled contrasts (every model's cases, within-family correction)
 * and its omnibus test find; a control is therefore "stable" only when none of the three finds a
 * deviation, "moved" when any does (the reading names which), and "not estimable" when none of
 * them has a test.
 */
import { adjustPValues, type WaldTest } from "../../stats/index.js";
import { analyzeScope, type Contrast, type ScopeModel } from "./contrast-model.js";
import type { scoredRows } from "./data.js";
import { pEquals, pp } from "./text.js";

export interface ControlCell {
  model: string;
  condition: string;
  riskDifference: number | null;
  p: number | null;
  pAdjusted: number | null;
}

export interface ControlCheck {
  cells: ControlCell[];
  /** The per-cell correction and how many cells it covers ("bh over 15"). */
  correction: string;
  /** Cells significant after the per-cell correction. */
  significant: number;
  /** The family's pooled contrasts significant after the family's correction. */
  pooledMoved: { condition: string; riskDifference: number | null; pAdjusted: number }[];
  /** The family's omnibus p when it ran and is estimable, else null. */
  omnibusP: number | null;
  verdict: "stable" | "moved" | "not estimable";
  /** Kept with the verdict: true only when the verdict is "stable". */
  stable: boolean;
  /** The verdict and the tests behind it, in one line (terminal, scorecard.md, report). */
  reading: string;
}

type Scored = ReturnType<typeof scoredRows>;

const pOf = (c: Contrast): number | null =>
  "error" in c.oddsRatio || !Number.isFinite(c.oddsRatio.p) ? null : c.oddsRatio.p;

/** Each model's configurations against the reference, adjusted together by multiplicity.secondary. */
function cellTests(scored: Scored, model: ScopeModel) {
  const { plan } = model;
  const cells: ControlCell[] = [];
  for (const m of [...new Set(scored.map((s) => s.row.model))]) {
    const own = scored.filter((s) => s.row.model === m);
    const scope = analyzeScope(m, own, model);
    for (const c of scope.contrasts)
      cells.push({
        model: m,
        condition: c.condition,
        riskDifference: c.riskDifference?.estimate ?? null,
        p: pOf(c),
        pAdjusted: null,
      });
  }
  const tested = cells.filter((c) => c.p !== null);
  const method = plan.multiplicity.secondary;
  if (tested.length > 0) {
    const { adjusted } = adjustPValues(
      tested.map((c) => c.p as number),
      method,
      plan.multiplicity.alpha,
    );
    tested.forEach((c, i) => {
      c.pAdjusted = adjusted[i];
    });
  }
  const significant = tested.filter((c) => (c.pAdjusted ?? 1) < plan.multiplicity.alpha).length;
  return { cells, tested: tested.length, correction: `${method} over ${tested.length}`, significant };
}

/**
 * The control check of a family whose pooled contrasts are already adjusted within the family
 * (`pooled`) and whose omnibus test (`omnibus`, null when not run) is computed.
 */
export function controlCheck(
  scored: Scored,
  model: ScopeModel,
  family: { pooled: readonly Contrast[]; omnibus: WaldTest | { error: string } | null },
): ControlCheck {
  const { plan, setup } = model;
  const { pooled, omnibus } = family;
  const alpha = plan.multiplicity.alpha;
  const cells = cellTests(scored, model);
  const pooledMoved = pooled.flatMap((c) => {
    const p = "error" in c.oddsRatio ? null : (c.oddsRatio.pAdjusted ?? c.oddsRatio.p);
    return p !== null && Number.isFinite(p) && p < alpha
      ? [{ condition: c.condition, riskDifference: c.riskDifference?.estimate ?? null, pAdjusted: p }]
      : [];
  });
  const omnibusP = omnibus && !("error" in omnibus) && Number.isFinite(omnibus.p) ? omnibus.p : null;
  const pooledTested = pooled.filter((c) => pOf(c) !== null).length;
  const moved = pooledMoved.length > 0 || (omnibusP !== null && omnibusP < alpha) || cells.significant > 0;
  const verdict = moved ? "moved" : cells.tested + pooledTested === 0 && omnibusP === null ? "not estimable" : "stable";
  const reference = setup.reference;
  const untested = cells.cells.length - cells.tested;
  const cellPart = `${cells.significant} of ${cells.tested} model x condition cell(s) differ from ${reference} after ${cells.correction}${
    untested ? ` (${untested} not estimable)` : ""
  }`;
  const omnibusPart = omnibusP === null ? null : `omnibus ${pEquals(omnibusP)}`;
  const reading =
    verdict === "moved"
      ? `moved: ${[
          ...pooledMoved.map(
            (c) => `pooled ${c.condition} ${pp(c.riskDifference)} (${pEquals(c.pAdjusted, "adjusted p")})`,
          ),
          ...(omnibusP !== null && omnibusP < alpha && omnibusPart ? [omnibusPart] : []),
          cellPart,
        ].join("; ")}`
      : verdict === "stable"
        ? `stable: no pooled contrast differs from ${reference} (${pooledTested} tested)${omnibusPart ? `, ${omnibusPart}` : ""}; ${cellPart}`
        : `not estimable: no pooled contrast, omnibus test or model x condition cell has a test`;
  return {
    cells: cells.cells,
    correction: cells.correction,
    significant: cells.significant,
    pooledMoved,
    omnibusP,
    verdict,
    stable: verdict === "stable",
    reading,
  };
}
