/**
 * The power section of `parallax plan --power`: per contrast, power for the minimum effect and
 * for confirming equivalence (simulated, closed form in brackets), the MDE, and the items per
 * benchmark that reach the target with what the design would cost there. A contrast `analyze`
 * tests within each format has a row per format, its pairs per item those of that format.
 * Lines fit 120 columns.
 */
import { normalizePlan, resolveFamilies } from "../../analysis/core/plan.js";
import { contrastLayout } from "../../run/plan/contrasts.js";
import type { PlanSummary } from "../../run/plan/plan.js";
import { declaredAssumptions, pilotAssumptions, type PowerReport, powerReport } from "../../run/plan/power-plan.js";
import type { PreparedStudy } from "../../run/prepare/study.js";
import { openStudyDir } from "../study-dir.js";

export async function planPower(study: PreparedStudy, summary: PlanSummary, pilotDir?: string): Promise<PowerReport> {
  const layout = contrastLayout(study.spec, study.conditions);
  let assumptions = declaredAssumptions(study, layout);
  if (pilotDir) {
    const { store, run } = await openStudyDir(pilotDir, { readOnly: true });
    try {
      assumptions = await pilotAssumptions(study, layout, { store, runId: run.id, spec: run.spec, label: pilotDir });
    } finally {
      await store.close();
    }
  }
  const families = resolveFamilies(normalizePlan(study.spec.analysis), layout.reference, [
    layout.reference,
    ...layout.contrasts.map((c) => c.level),
  ]);
  const familyOf = (level: string) => families.find((f) => f.conditions.includes(level))?.name;
  return powerReport(study, summary, assumptions, familyOf);
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pp = (x: number | null) => (x === null ? "none" : `${(100 * x).toFixed(1)} pp`);
const usd = (x: number | null) => (x === null ? "" : ` ($${x.toFixed(2)})`);

/** A contrast's row label: its level, and the format it is tested within when formats are kept apart. */
const rowLabel = (c: PowerReport["contrasts"][number]) => (c.format ? `${c.level} · ${c.format}` : c.level);

function clip(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 1)}~`;
}

/** The declared pair correlation, when pairs of an item are not independent (a pilot says it in its note). */
function pairCorrelationLines(correlation: Record<string, number>, source: string): string[] {
  const values = [...new Set(Object.values(correlation))];
  if (source === "pilot" || values.length !== 1 || values[0] === 0) return [];
  return [
    `  pair correlation ${values[0].toFixed(3)} within an item: pairs/item reads the independent pairs of the design's`,
  ];
}

export function powerLines(report: PowerReport, unpriced: readonly string[] = []): string[] {
  const { plan, assumptions: a } = report;
  const discordances = [...new Set(Object.values(a.discordance).map((d) => d.toFixed(3)))];
  const lines = [
    `power: minimum effect ${pp(plan.minimum_effect)} (${plan.direction}), target ${pct(plan.target)}, alpha ${report.alpha}; ` +
      `equivalence: TOST margin ${pp(report.margin)}, alpha ${report.equivalenceAlpha}`,
    `  assumed (${a.source}): baseline ${a.baseline.toFixed(3)}, icc ${a.icc.toFixed(3)}, discordance ${
      discordances.length === 1 ? discordances[0] : "per contrast"
    }; ${plan.simulations} simulated studies, closed form in ()`,
    ...pairCorrelationLines(a.pairCorrelation, a.source),
    ...a.notes.map((n) => `  note: ${n}`),
    `  planned design: estimated cost $${report.plannedCostUsd.toFixed(2)}${
      unpriced.length > 0 ? ` (no price for: ${unpriced.join(", ")})` : ""
    }; equivalence: P(confirmed | no effect)`,
    `  ${clip(`${report.layout.facet} vs ${report.layout.reference}`, 34)} ${clip("family", 14)} ${"items".padStart(6)} ${"pairs/item".padStart(10)} ${"power".padStart(15)} ${"equivalence".padStart(15)} ${"MDE".padStart(8)}`,
  ];
  let studyFamily: string | undefined;
  for (const c of report.contrasts) {
    // Study families: a heading per family (its role and margin), its contrasts below it.
    if (c.role && c.family !== studyFamily) {
      studyFamily = c.family;
      lines.push(`  study family ${c.family} (${c.role}; TOST margin ${pp(c.margin ?? report.margin)}):`);
    }
    const power = `${pct(c.power.rate)} (${pct(c.power.closedForm)})`;
    const planned = c.plannedPairsPerItem ?? c.design.pairsPerCluster;
    const pairs = planned === c.design.pairsPerCluster ? String(planned) : `${c.design.pairsPerCluster} of ${planned}`;
    const equivalence = `${pct(c.equivalence.rate)} (${pct(c.equivalence.closedForm)})`;
    lines.push(
      `  ${clip(rowLabel(c), 34)} ${clip(c.role ? "" : (c.family ?? ""), 14)} ${String(c.design.clusters).padStart(6)} ${pairs.padStart(10)} ${power.padStart(15)} ${equivalence.padStart(15)} ${pp(c.mde).padStart(8)}`,
    );
    const sim = (s: { simulated: { rate: number } | null } | null) =>
      s?.simulated ? `, simulated ${pct(s.simulated.rate)}` : "";
    lines.push(
      `    items per benchmark for ${pct(plan.target)}: power ${c.neededPerBenchmark ?? "out of reach"}${usd(c.neededCostUsd)}${sim(c.clustersForPower)}; ` +
        `equivalence ${c.equivalenceNeededPerBenchmark ?? "out of reach"}${usd(c.equivalenceNeededCostUsd)}${sim(c.clustersForEquivalence)}`,
    );
  }
  if (report.contrasts.length === 0) lines.push("  no contrasts: the comparison facet has a single level");
  const sequential = report.contrasts.filter((c) => c.sequential);
  if (sequential.length > 0) {
    lines.push("  sequential design (execution.sequential): power, and expected share of items run and cost");
    for (const c of sequential) {
      const s = c.sequential!;
      const cost = (fraction: number) => `$${(report.plannedCostUsd * fraction).toFixed(2)}`;
      lines.push(
        `    ${clip(rowLabel(c), 30)} power ${pct(s.power)}; no effect: ${pct(s.expectedFractionNull)} (${cost(s.expectedFractionNull)}), ` +
          `minimum effect: ${pct(s.expectedFractionAlternative)} (${cost(s.expectedFractionAlternative)})`,
      );
    }
  }
  return lines;
}
