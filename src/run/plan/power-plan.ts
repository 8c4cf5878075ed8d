/**
 * `plan --power`: each planned contrast as a clustered paired design (items as clusters, models
 * x attempts x paired conditions within each item), with the baseline, icc and discordance the
 * analysis plan declares, or estimated from a pilot run of the same design; then its power, MDE
 * and the items that reach the target, with what the planned and the needed designs cost.
 */
import { type AnalysisPlan, AnalysisPlanSchema, type PowerPlan, PowerPlanSchema } from "../../contracts/analysis.js";
import { type Condition, facetLabel } from "../../contracts/condition.js";
import { InputError } from "../../core/errors.js";
import {
  anovaIcc,
  clusterDifferenceVariance,
  maximumDiscordance,
  nullDiscordance,
} from "../../stats/clustered-power.js";
import { type ContrastDesign, type ContrastPower, contrastPower } from "../../stats/contrast-power.js";
import {
  type ContrastLayout,
  contrastLayout,
  itemDifferences,
  type PlannedContrast,
  type ScoredTrial,
} from "./contrasts.js";
import { conditionsOf, familyPlans, type PlanSummary } from "./plan.js";
import type { TrialStore } from "../store/types.js";
import type { PreparedStudy } from "../prepare/study.js";
import { boundariesOf } from "../sequential/monitor.js";

export interface DesignAssumptions {
  baseline: number;
  icc: number;
  /** Discordance per contrast label (a pilot measures each; a declared value applies to all). */
  discordance: Map<string, number>;
  /**
   * Correlation of the paired differences within an item per contrast label: pairs that share an
   * item's configurations move together, so an item carries fewer independent pairs than it has.
   */
  pairCorrelation: Map<string, number>;
  source: "analysis.power" | "defaults" | "pilot";
  notes: string[];
}

export interface ContrastPowerRow extends ContrastPower {
  level: string;
  /** The design's pairs per item; design.pairsPerCluster is the independent ones they count as. */
  plannedPairsPerItem: number;
  /** The format `analyze` tests this contrast within, when it keeps formats apart. */
  format?: string;
  benchmarks: number;
  /** The study family's role and TOST margin, when the spec declares families. */
  role?: string;
  margin?: number;
  /** Items per benchmark reaching the target power, and the whole design's cost at that n. */
  neededPerBenchmark: number | null;
  neededCostUsd: number | null;
  equivalenceNeededPerBenchmark: number | null;
  equivalenceNeededCostUsd: number | null;
}

export interface PowerReport {
  plan: PowerPlan;
  alpha: number;
  margin: number;
  equivalenceAlpha: number;
  assumptions: Omit<DesignAssumptions, "discordance" | "pairCorrelation"> & {
    discordance: Record<string, number>;
    pairCorrelation: Record<string, number>;
  };
  layout: { facet: string; reference: string };
  plannedCostUsd: number;
  contrasts: ContrastPowerRow[];
}

/** The declared power block with its defaults, and whether the spec declared it. */
export function powerPlanOf(study: PreparedStudy): { plan: PowerPlan; declared: boolean } {
  const declared = study.spec.analysis?.power;
  return { plan: PowerPlanSchema.parse(declared ?? {}), declared: declared !== undefined };
}

/** Assumptions from the analysis plan (declared, else its defaults). */
export function declaredAssumptions(study: PreparedStudy, layout: ContrastLayout): DesignAssumptions {
  const { plan, declared } = powerPlanOf(study);
  return {
    baseline: plan.baseline,
    icc: plan.icc,
    discordance: new Map(layout.contrasts.map((c) => [c.label, plan.discordance])),
    pairCorrelation: new Map(layout.contrasts.map((c) => [c.label, plan.pair_correlation])),
    source: declared ? "analysis.power" : "defaults",
    notes: declared
      ? []
      : ["no analysis.power block: baseline 0.5, icc 0.1, discordance 0.2 and minimum effect 0.05 are defaults"],
  };
}

/**
 * Where a set of contrasts runs: the whole study, or one of its families (its own models, items
 * and per-benchmark conditions, compared with its own reference and margin).
 */
export interface DesignScope {
  family?: { name: string; role: string };
  layout: ContrastLayout;
  models: number;
  /** Each benchmark's item count and the conditions it runs. */
  benchmarks: { items: number; conditions: ReadonlySet<Condition> }[];
  margin: number;
  /** The planned design's cost of this scope (the whole estimate, or the family's share of it). */
  plannedCostUsd: number;
}

/** The study as one scope (a study without families). */
export function studyScope(study: PreparedStudy, layout: ContrastLayout, plannedCostUsd: number): DesignScope {
  const analysis = AnalysisPlanSchema.parse(study.spec.analysis ?? {});
  return {
    layout,
    models: study.spec.models.length,
    benchmarks: [...study.items].map(([id, items]) => ({
      items: items.size,
      conditions: new Set(conditionsOf(study, id)),
    })),
    margin: analysis.equivalence.margin,
    plannedCostUsd,
  };
}

/**
 * Each declared family as its own scope: its contrasts against its reference (`analysis.families`
 * settings, else the plan's), on its items, and its share of the planned cost by trials.
 */
export function familyScopes(study: PreparedStudy, summary: PlanSummary): DesignScope[] {
  const analysis = AnalysisPlanSchema.parse(study.spec.analysis ?? {});
  const plans = familyPlans(study);
  const order = ["primary", "secondary", "control"];
  const families = (study.families ?? []).map((family, i) => ({ family, trials: plans[i].trials }));
  families.sort((a, b) => order.indexOf(a.family.role) - order.indexOf(b.family.role));
  return families.flatMap(({ family, trials }) => {
    const settings = analysis.families?.[family.name] ?? {};
    const facet = contrastLayout(study.spec, study.conditions).facet;
    const spec = settings.reference
      ? {
          ...study.spec,
          analysis: {
            ...study.spec.analysis,
            reference: { ...study.spec.analysis?.reference, [facet]: settings.reference },
          },
        }
      : study.spec;
    const layout = contrastLayout(spec, family.conditions);
    const compared = settings.contrasts;
    const contrasts = compared ? layout.contrasts.filter((c) => compared.includes(c.level)) : layout.contrasts;
    if (contrasts.length === 0) return [];
    return [
      {
        family: { name: family.name, role: family.role },
        layout: { ...layout, contrasts },
        models: family.models.length,
        benchmarks: [...family.items].map(([id, ids]) => ({
          items: ids.length,
          conditions: new Set(family.benchmarkConditions.get(id) ?? []),
        })),
        margin: settings.equivalence_margin ?? analysis.equivalence.margin,
        plannedCostUsd: summary.trials > 0 ? (summary.estimatedCostUsd * trials) / summary.trials : 0,
      },
    ];
  });
}

/**
 * The format levels `analyze` tests the scope's contrasts within, or [null] when it pools them:
 * the primary analysis keeps formats apart when the format facet varies within a benchmark (a
 * format each benchmark fixes is no format comparison); a family other than the primary is
 * analysed on all its rows (src/analysis/core/families.ts).
 */
export function formatStrata(study: PreparedStudy, scope: DesignScope): (string | null)[] {
  const facet = AnalysisPlanSchema.parse(study.spec.analysis ?? {}).format.facet;
  const secondary = scope.family !== undefined && scope.family.role !== "primary";
  if (secondary || facet === scope.layout.facet || !(facet in study.spec.conditions.facets)) return [null];
  const levelsOf = (conditions: Iterable<Condition>) =>
    new Set([...conditions].flatMap((c) => (c[facet] === undefined ? [] : [facetLabel(c[facet])])));
  const varies = scope.benchmarks.some((b) => b.items > 0 && levelsOf(b.conditions).size > 1);
  if (!varies) return [null];
  const present = levelsOf(scope.benchmarks.flatMap((b) => (b.items > 0 ? [...b.conditions] : [])));
  return study.spec.conditions.facets[facet].map(facetLabel).filter((level) => present.has(level));
}

/**
 * Each contrast's design as `analyze` tests it in one scope, with the assumptions: within each
 * format when it keeps formats apart (the pairs whose reference is at that format), else on
 * every pair; an item's pairs are its condition pairs x models x attempts.
 */
export function contrastDesigns(
  study: PreparedStudy,
  scope: DesignScope,
  assumptions: DesignAssumptions,
  familyOf: (level: string) => string | undefined = () => undefined,
): (ContrastDesign & { level: string; benchmarks: number; format?: string; plannedPairsPerItem: number })[] {
  const { discordance: fallback, pair_correlation: correlationFallback } = powerPlanOf(study).plan;
  const formatFacet = AnalysisPlanSchema.parse(study.spec.analysis ?? {}).format.facet;
  const strata = formatStrata(study, scope);
  return scope.layout.contrasts.flatMap((contrast) =>
    strata.flatMap((format) => {
      const tested = contrast.pairs.filter(
        (p) =>
          format === null ||
          (p.reference[formatFacet] !== undefined && facetLabel(p.reference[formatFacet]) === format),
      );
      let clusters = 0;
      let pairs = 0;
      let benchmarks = 0;
      for (const { items, conditions } of scope.benchmarks) {
        const running = tested.filter((p) => conditions.has(p.reference) && conditions.has(p.condition)).length;
        if (running === 0 || items === 0) continue;
        benchmarks++;
        clusters += items;
        pairs += running * items;
      }
      if (format !== null && clusters === 0) return [];
      const perItem = Math.max(1, Math.round(pairs / Math.max(1, clusters)));
      const planned = perItem * scope.models * study.spec.attempts;
      const correlation = assumptions.pairCorrelation.get(contrast.label) ?? correlationFallback;
      const family = scope.family?.name ?? familyOf(contrast.level);
      return [
        {
          contrast: format === null ? contrast.label : `${contrast.label} at ${formatFacet}=${format}`,
          ...(family ? { family } : {}),
          level: contrast.level,
          ...(format === null ? {} : { format }),
          benchmarks,
          plannedPairsPerItem: planned,
          design: {
            clusters,
            pairsPerCluster: effectivePairs(planned, correlation),
            baseline: assumptions.baseline,
            icc: assumptions.icc,
            discordance: Math.min(
              assumptions.discordance.get(contrast.label) ?? fallback,
              maximumDiscordance(assumptions.baseline, assumptions.icc),
            ),
          },
        },
      ];
    }),
  );
}

/**
 * The independent pairs `r` pairs of an item count as when their differences correlate by `rho`
 * (the design effect 1 + (r - 1) rho), whole and at least one.
 */
export function effectivePairs(r: number, rho: number): number {
  return Math.max(1, Math.floor(r / (1 + (r - 1) * rho) + 1e-9));
}

/**
 * Power, MDE and the n (items per benchmark) reaching the target, for every contrast: of each
 * family when the spec declares families, else of the study.
 */
export function powerReport(
  study: PreparedStudy,
  summary: PlanSummary,
  assumptions: DesignAssumptions,
  familyOf?: (level: string) => string | undefined,
): PowerReport {
  const layout = contrastLayout(study.spec, study.conditions);
  const { plan } = powerPlanOf(study);
  const analysis = AnalysisPlanSchema.parse(study.spec.analysis ?? {});
  const scopes = study.families ? familyScopes(study, summary) : [studyScope(study, layout, summary.estimatedCostUsd)];
  const { sequential } = study.spec.execution;
  const contrasts = scopes.flatMap((scope) =>
    scopeRows(study, scope, { assumptions, plan, analysis, familyOf, sequential }),
  );
  return {
    plan,
    alpha: analysis.multiplicity.alpha,
    margin: analysis.equivalence.margin,
    equivalenceAlpha: analysis.equivalence.alpha,
    assumptions: {
      ...assumptions,
      discordance: Object.fromEntries(assumptions.discordance),
      pairCorrelation: Object.fromEntries(assumptions.pairCorrelation),
    },
    layout: { facet: layout.facet, reference: layout.reference },
    plannedCostUsd: summary.estimatedCostUsd,
    contrasts,
  };
}

/** What every scope's power rows are computed under: the design assumptions and the study's plans. */
interface ScopeRowsInput {
  assumptions: DesignAssumptions;
  plan: PowerPlan;
  analysis: AnalysisPlan;
  familyOf: ((level: string) => string | undefined) | undefined;
  sequential: PreparedStudy["spec"]["execution"]["sequential"];
}

function scopeRows(study: PreparedStudy, scope: DesignScope, input: ScopeRowsInput): ContrastPowerRow[] {
  const { assumptions, plan, analysis, familyOf, sequential } = input;
  const designs = contrastDesigns(study, scope, assumptions, familyOf).filter((d) => d.design.clusters >= 2);
  const results = contrastPower(designs, {
    minimumEffect: plan.minimum_effect,
    direction: plan.direction,
    margin: scope.margin,
    alpha: analysis.multiplicity.alpha,
    equivalenceAlpha: analysis.equivalence.alpha,
    power: plan.target,
    simulations: plan.simulations,
    seed: plan.seed,
    ...(sequential ? { sequential: boundariesOf(sequential, analysis.equivalence.alpha).effect } : {}),
  });
  const perBenchmark = (clusters: number | undefined, benchmarks: number) =>
    clusters === undefined ? null : Math.ceil(clusters / Math.max(1, benchmarks));
  // The design's cost grows with its items: the needed n costs the planned cost scaled by the items.
  const costAt = (n: number | null, design: ContrastDesign["design"], benchmarks: number) =>
    n === null ? null : (scope.plannedCostUsd * n * benchmarks) / design.clusters;
  return results.map((result, i) => {
    const { level, benchmarks, format, plannedPairsPerItem } = designs[i];
    const needed = perBenchmark(result.clustersForPower?.clusters, benchmarks);
    const neededEq = perBenchmark(result.clustersForEquivalence?.clusters, benchmarks);
    return {
      ...result,
      level,
      plannedPairsPerItem,
      ...(format === undefined ? {} : { format }),
      benchmarks,
      ...(scope.family ? { role: scope.family.role, margin: scope.margin } : {}),
      neededPerBenchmark: needed,
      neededCostUsd: costAt(needed, result.design, benchmarks),
      equivalenceNeededPerBenchmark: neededEq,
      equivalenceNeededCostUsd: costAt(neededEq, result.design, benchmarks),
    };
  });
}

// ---------------------------------------------------------------- pilot

/** The scored finished trials of a run (a parse failure scores 0; unscored trials are left out). */
export async function scoredTrials(store: TrialStore, runId: string): Promise<ScoredTrial[]> {
  const out: ScoredTrial[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await store.listTrials(runId, { status: ["finished"], limit: 5000, afterId });
    if (page.length === 0) break;
    afterId = page[page.length - 1].id;
    for (const t of page) {
      const outcome = t.outcome;
      if (!outcome || (outcome.score === null && outcome.scorer === null)) continue;
      out.push({
        modelId: t.modelId,
        benchmarkId: t.benchmarkId,
        itemId: t.itemId,
        attempt: t.attempt,
        conditionHash: t.conditionHash,
        score: outcome.score ?? 0,
      });
    }
  }
  return out;
}

/**
 * Baseline, icc and per-contrast discordance measured on a pilot run of the same design (fewer
 * items): its benchmarks and the contrasts' conditions must be the spec's.
 */
export async function pilotAssumptions(
  study: PreparedStudy,
  layout: ContrastLayout,
  pilot: { store: TrialStore; runId: string; spec: PreparedStudy["spec"]; label: string },
): Promise<DesignAssumptions> {
  const ours = [...study.items.keys()].sort();
  const theirs = pilot.spec.benchmarks.map((b) => b.id).sort();
  if (pilot.spec.study !== study.spec.study || ours.join(",") !== theirs.join(",")) {
    throw new InputError(
      `pilot ${pilot.label}: its run is study '${pilot.spec.study}' on benchmarks ${theirs.join(", ")}; ` +
        `the spec is study '${study.spec.study}' on ${ours.join(", ")}: a pilot must be a smaller run of the same spec`,
    );
  }
  const trials = await scoredTrials(pilot.store, pilot.runId);
  const present = new Set(trials.map((t) => t.conditionHash));
  const missing = layout.contrasts
    .flatMap((c) => c.pairs)
    .filter((p) => !present.has(p.conditionHash) || !present.has(p.referenceHash));
  if (trials.length === 0 || missing.length > 0) {
    throw new InputError(
      `pilot ${pilot.label}: ${trials.length === 0 ? "no scored finished trials" : `no scored trials of ${missing.length} condition pair(s) the spec compares`}; run the pilot with the spec's conditions first`,
    );
  }
  const referenceHashes = new Set(layout.contrasts.flatMap((c) => c.pairs.map((p) => p.referenceHash)));
  const references = trials.filter((t) => referenceHashes.has(t.conditionHash));
  const baseline = references.reduce((sum, t) => sum + t.score, 0) / references.length;
  const byItem = new Map<string, number[]>();
  for (const t of references) {
    const key = `${t.benchmarkId}\u0000${t.itemId}`;
    byItem.set(key, [...(byItem.get(key) ?? []), t.score]);
  }
  const notes: string[] = [];
  const icc = anovaIcc([...byItem.values()]) ?? 0;
  const clamped = Math.min(Math.max(baseline, 0.01), 0.99);
  // The pilot's discordance carries its own effect; the design's is the one under no effect.
  const discordance = new Map(
    layout.contrasts.map((c) => {
      const observed = discordanceOf(c, trials);
      return [c.label, nullDiscordance(observed.discordance, clamped, icc, observed.difference)];
    }),
  );
  const pairCorrelation = new Map(
    layout.contrasts.map((c) => [
      c.label,
      pilotPairCorrelation(c, trials, { baseline: clamped, icc, discordance: discordance.get(c.label)! }),
    ]),
  );
  if (clamped !== baseline) notes.push(`pilot baseline ${baseline.toFixed(3)} clamped to ${clamped}`);
  notes.push(`pilot ${pilot.label}: ${trials.length} scored trials, ${byItem.size} items`);
  const levelOf = new Map(layout.contrasts.map((c) => [c.label, c.level]));
  const correlated = [...pairCorrelation].filter(([, rho]) => rho > 0);
  if (correlated.length > 0)
    notes.push(
      `pilot: pair correlation within an item ${correlated
        .map(([label, rho]) => `${levelOf.get(label)} ${rho.toFixed(3)}`)
        .join(", ")} (pairs/item: the independent pairs they count as)`,
    );
  return { baseline: clamped, icc, discordance, pairCorrelation, source: "pilot", notes };
}

/** Share of a contrast's pairs whose outcomes differ, and their mean difference. */
function discordanceOf(contrast: PlannedContrast, trials: ScoredTrial[]): { discordance: number; difference: number } {
  let pairs = 0;
  let differing = 0;
  let total = 0;
  for (const differences of itemDifferences(contrast, trials).values()) {
    pairs += differences.length;
    differing += differences.filter((d) => d !== 0).length;
    total += differences.reduce((a, b) => a + b, 0);
  }
  return pairs === 0
    ? { discordance: 0, difference: 0 }
    : { discordance: differing / pairs, difference: total / pairs };
}

/**
 * The correlation of a contrast's paired differences within an item, beyond what the model's
 * item rate gives: the pilot's spread of item mean differences against the model's at the pilot's
 * pairs per item (its variance is a / r + b in r), solved for the pairs that spread is worth,
 * then for the design effect 1 + (r - 1) rho. 0 when the spread is the model's or smaller.
 */
export function pilotPairCorrelation(
  contrast: PlannedContrast,
  trials: ScoredTrial[],
  /** The model's item rate, intraclass correlation and discordance under no effect. */
  model: { baseline: number; icc: number; discordance: number },
): number {
  const { baseline, icc, discordance } = model;
  // Spread around the grand mean, as the model's test reads it: a benchmark's own effect counts.
  const items = [...itemDifferences(contrast, trials).values()].filter((d) => d.length > 0);
  if (items.length < 2) return 0;
  const means = items.map((d) => d.reduce((a, b) => a + b, 0) / d.length);
  const mean = means.reduce((a, b) => a + b, 0) / means.length;
  const observed = means.reduce((sum, m) => sum + (m - mean) ** 2, 0) / (means.length - 1);
  const r = items.reduce((n, d) => n + d.length, 0) / items.length;
  if (r <= 1) return 0;
  const effect = Math.max(-baseline, Math.min(1 - baseline, mean));
  const variance = (pairs: number) =>
    clusterDifferenceVariance({ clusters: items.length, pairsPerCluster: pairs, baseline, icc, discordance }, effect);
  const [one, atR] = [variance(1), variance(r)];
  const a = ((one - atR) * r) / (r - 1);
  const b = one - a;
  if (observed <= atR || a <= 0) return 0;
  const worth = observed > b ? a / (observed - b) : 1;
  if (worth >= r) return 0;
  return Math.min(1, Math.max(0, (r / Math.max(1, worth) - 1) / (r - 1)));
}
