/**
 * The configuration grid of SafetyRepro: cells per (model, benchmark, configuration)
 * with decoding seeds averaged per item; per benchmark the envelope C_b and its metrics (SDI,
 * CFR_theta, tau_R, rho_flip, reachable orderings) on the full envelope and every declared tier;
 * the scoring-path strata, the parse-clean subset and item subsamples; the free-form variance
 * attribution (Type II, Type III check); the configuration and max-statistic bootstraps; the
 * scoring-method and quantization effects; and the GRID card. Unreadable cells (integrity) are
 * left out of every envelope and listed.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { GRID_AXES, type GridPlan } from "../../contracts/analysis/grid.js";
import { InputError } from "../../core/errors.js";
import { distinctOfRows, distinctValues, facetRecords } from "../core/data.js";
import { attributionLine, attributionTable, gridAttribution } from "./attribution.js";
import { type FamilyBootstrap, gridBootstrap } from "./bootstrap.js";
import { buildGridCard, type GridCard, writeGridCard } from "./card.js";
import { cellsOnItems, type GridCell, gridAxes, gridCells } from "./cells.js";
import {
  type BenchmarkGrid,
  benchmarkGrid,
  type ConfigurationFilter,
  type EnvelopeBenchmark,
  envelopeFilter,
  type CfrReasons,
  envelopeMetrics,
  levelMatches,
  smallEnvelopeNote,
  unmatchedEnvelopeValues,
} from "./envelope.js";
import {
  type FlipSlice,
  type GridVariance,
  gridVariance,
  itemSubsamples,
  type PairedEffect,
  parseCleanSlice,
  type QuantizationEffect,
  quantizationEffects,
  type SubsampleCheck,
  scoringMethodEffects,
  scoringPathStrata,
  subsampleCheck,
} from "./robustness.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../core/registry.js";
import type { AnalysisRow } from "../core/table.js";
import { num, pct, pp, wrap } from "../core/text.js";
import { renderText } from "../core/result-table.js";
import { dispersionRows, dispersionTable, tierRows, tiersTable } from "./grid-tables.js";

export interface GridEnvelope {
  name: string;
  include: Record<string, string[]>;
  exclude: Record<string, string[]>;
  /** Declared values that match no level (reported, so a typo is seen). */
  unmatched: string[];
  benchmarks: EnvelopeBenchmark[];
}

export interface GridResult {
  axes: string[];
  axisLevels: Record<string, string[]>;
  seedFacet: string;
  reference: Record<string, string>;
  roster: string[];
  population: "itt" | "pp";
  cells: {
    total: number;
    readable: number;
    unreadable: { model: string; benchmark: string; configuration: string; reason: string }[];
  };
  /** The full envelope's score grids (configurations x roster), as the charts draw them. */
  grids: { benchmark: string; models: string[]; configurations: string[]; scores: number[][] }[];
  envelopes: GridEnvelope[];
  strata: { benchmark: string; slices: FlipSlice[] }[];
  parseClean: ({ benchmark: string; excluded: string[] } & FlipSlice)[];
  subsamples: SubsampleCheck[];
  variance: GridVariance[];
  bootstrap: FamilyBootstrap[];
  scoringMethod: PairedEffect[];
  quantization: QuantizationEffect[];
  card: GridCard;
  /** The envelope rules file checked against the run's stamp (set by the study-directory analysis). */
  rules?: { path: string; sha256: string; status: string };
  notes: string[];
}

declare module "../core/registry.js" {
  interface AnalysisResults {
    grid: GridResult | Skipped;
  }
}

export const FULL_ENVELOPE = "full";

/** The declared reference configuration, matched to the levels present (first level where undeclared). */
function resolveReference(plan: GridPlan, axes: string[], levels: Record<string, string[]>, notes: string[]) {
  for (const axis of Object.keys(plan.reference)) {
    if (!axes.includes(axis)) {
      throw new InputError(`analysis.grid.reference: '${axis}' is not an axis of this grid; axes: ${axes.join(", ")}`);
    }
  }
  const defaulted: string[] = [];
  const reference = Object.fromEntries(
    axes.map((axis) => {
      const declared = plan.reference[axis];
      if (declared === undefined) {
        defaulted.push(`${axis}=${levels[axis][0]}`);
        return [axis, levels[axis][0]];
      }
      const found = levels[axis].find((l) => levelMatches(l, [declared]));
      if (!found) {
        throw new InputError(
          `analysis.grid.reference.${axis}: '${declared}' is not a level; levels: ${levels[axis].join(", ")}`,
        );
      }
      return [axis, found];
    }),
  );
  if (defaulted.length)
    notes.push(`reference configuration: ${defaulted.join(", ")} (first level; declare analysis.grid.reference)`);
  return reference;
}

function resolveRoster(plan: GridPlan, models: string[]): string[] {
  if (!plan.roster) return models;
  const unknown = plan.roster.filter((m) => !models.includes(m));
  if (unknown.length) {
    throw new InputError(`analysis.grid.roster: ${unknown.join(", ")} not in the table; models: ${models.join(", ")}`);
  }
  return [...plan.roster];
}

function benchmarkGrids(
  cells: readonly GridCell[],
  benchmarks: string[],
  roster: string[],
  keep?: ConfigurationFilter,
) {
  return benchmarks.map((b) => {
    const present = roster.filter((m) => cells.some((c) => c.benchmark === b && c.model === m));
    return benchmarkGrid(cells, b, present, keep);
  });
}

export function gridAnalysis(ctx: AnalysisContext): GridResult | Skipped {
  const plan = ctx.plan.grid;
  if (plan === false) return { skipped: "analysis.grid is false" };
  const rows: AnalysisRow[] = ctx.table.rows;
  const records = [...facetRecords(rows)];
  const varying = (facet: string) => ctx.table.facets.includes(facet) && new Set(records.map((f) => f[facet])).size > 1;
  if (!plan.axes && !GRID_AXES.some(varying)) {
    return {
      skipped: `no grid axis (${GRID_AXES.join(", ")}) varies; declare analysis.grid.axes to analyse other facets as a grid`,
    };
  }
  const { axes, levels } = gridAxes(plan, ctx.table.facets, ctx.table.facetLevels, records);
  const configurations = new Set(records.map((f) => axes.map((a) => f[a]).join("\u0000")));
  if (axes.length === 0 || configurations.size < 2)
    return { skipped: "fewer than two configurations of the grid axes" };
  const notes: string[] = [];
  const reference = resolveReference(plan, axes, levels, notes);
  const models = distinctValues(distinctOfRows(rows, (r) => r.model));
  const roster = resolveRoster(plan, models);
  const benchmarks = distinctValues(distinctOfRows(rows, (r) => r.benchmark));
  const gate = ctx.results.integrity
    ? { integrity: ctx.results.integrity, comparisonFacet: ctx.resolved.comparisonFacet }
    : undefined;
  const cells = gridCells(rows, axes, { population: ctx.plan.population, thresholds: ctx.plan.integrity }, gate);
  const unreadable = cells.flatMap((c) =>
    c.score === null
      ? [{ model: c.model, benchmark: c.benchmark, configuration: c.configuration, reason: c.unreadable ?? "no score" }]
      : [],
  );
  if (unreadable.length)
    notes.push(`${unreadable.length} unreadable cell(s) yield no number and are left out of every envelope`);

  const full = benchmarkGrids(cells, benchmarks, roster);
  const reasons = ctx.cfrNotApplicable ?? {};
  const envelopes = declaredEnvelopes(plan, { cells, benchmarks, roster, levels }, full, reasons);
  const result: GridResult = {
    axes,
    axisLevels: levels,
    seedFacet: plan.seed_facet,
    reference,
    roster,
    population: ctx.plan.population,
    cells: { total: cells.length, readable: cells.length - unreadable.length, unreadable },
    grids: full.map((g) => ({
      benchmark: g.benchmark,
      models: [...g.models],
      configurations: g.configurations,
      scores: g.scores.map((r) => [...r]),
    })),
    envelopes,
    strata: full.map((g) => ({ benchmark: g.benchmark, slices: scoringPathStrata(g) })).filter((s) => s.slices.length),
    parseClean: full.map((g) => ({ benchmark: g.benchmark, ...parseCleanSlice(g, plan.parse_clean) })),
    subsamples: subsampleChecks(cells, plan, benchmarks, roster),
    variance: full.flatMap((g) => gridVariance(g, axes) ?? []),
    bootstrap: gridBootstrap(full, plan, axes, reasons),
    scoringMethod: axes.includes("scoring_path") ? scoringMethodEffects(cells, axes, plan.greedy) : [],
    quantization:
      axes.includes("quantization") && levels.quantization.length > 1
        ? quantizationEffects(cells, axes, levels.quantization, roster)
        : [],
    card: undefined as unknown as GridCard,
    notes,
  };
  result.card = buildGridCard({
    plan,
    axes,
    axisLevels: levels,
    reference,
    cells,
    full: envelopes[0].benchmarks,
    envelopes,
    attribution: gridAttribution(full, axes),
    bootstrap: result.bootstrap,
    roster,
    facetLevels: presentLevels(ctx.table.facets, ctx.table.facetLevels, rows),
    ...tableFacts(rows, plan, axes, benchmarks),
    models,
  });
  return result;
}

/** Items per benchmark, the stochastic settings' decoding seeds and the attempts, in one pass. */
function tableFacts(rows: readonly AnalysisRow[], plan: GridPlan, axes: string[], benchmarks: string[]) {
  const items = new Map(benchmarks.map((b) => [b, new Set<string>()]));
  const seeds = new Set<string>();
  let attempts = 0;
  const stochastic = (row: AnalysisRow) =>
    !axes.includes("decoding") || !levelMatches(row.facets.decoding, [plan.greedy]);
  for (const row of rows) {
    items.get(row.benchmark)?.add(row.item);
    const seed = row.facets[plan.seed_facet];
    if (seed !== undefined && seed !== "" && stochastic(row)) seeds.add(seed);
    attempts = Math.max(attempts, row.attempt);
  }
  return {
    items: Object.fromEntries([...items].map(([b, set]) => [b, set.size])),
    seeds: distinctValues(seeds),
    attempts,
  };
}

function presentLevels(facets: readonly string[], declared: Record<string, string[]>, rows: readonly AnalysisRow[]) {
  return Object.fromEntries(
    facets.map((f) => {
      const present = new Set(rows.map((r) => r.facets[f]));
      return [f, (declared[f] ?? [...present]).filter((l) => present.has(l))];
    }),
  );
}

/** What the envelopes are cut from: the grid's cells, benchmarks, roster and each axis's levels. */
interface EnvelopeSource {
  cells: readonly GridCell[];
  benchmarks: string[];
  roster: string[];
  levels: Record<string, string[]>;
}

/** The full envelope first, then each declared tier re-analysed. */
function declaredEnvelopes(
  plan: GridPlan,
  grid: EnvelopeSource,
  full: BenchmarkGrid[],
  reasons: CfrReasons,
): GridEnvelope[] {
  const { cells, benchmarks, roster, levels } = grid;
  const out: GridEnvelope[] = [
    {
      name: FULL_ENVELOPE,
      include: {},
      exclude: {},
      unmatched: [],
      benchmarks: full.map((g) => envelopeMetrics(g, plan, reasons)),
    },
  ];
  for (const [name, envelope] of Object.entries(plan.envelopes)) {
    if (name === FULL_ENVELOPE) continue;
    const grids = benchmarkGrids(cells, benchmarks, roster, envelopeFilter(envelope));
    out.push({
      name,
      include: envelope.include,
      exclude: envelope.exclude,
      unmatched: unmatchedEnvelopeValues(envelope, levels),
      benchmarks: grids.map((g) => envelopeMetrics(g, plan, reasons)),
    });
  }
  return out;
}

function subsampleChecks(
  cells: readonly GridCell[],
  plan: GridPlan,
  benchmarks: string[],
  roster: string[],
): SubsampleCheck[] {
  const { count, fraction, seed } = plan.subsamples;
  if (count === 0) return [];
  const itemsByBenchmark = new Map<string, Set<string>>(benchmarks.map((b) => [b, new Set<string>()]));
  for (const cell of cells) for (const item of cell.itemMeans.keys()) itemsByBenchmark.get(cell.benchmark)?.add(item);
  const items = new Map([...itemsByBenchmark].map(([b, set]) => [b, [...set]]));
  const grids = itemSubsamples(items, count, fraction, seed).map((kept) =>
    benchmarkGrids(
      cellsOnItems(cells, (benchmark, item) => kept.has(`${benchmark}\u0000${item}`)),
      benchmarks,
      roster,
    ),
  );
  return benchmarks.map((b, k) =>
    subsampleCheck(
      b,
      grids.map((g) => g[k]),
    ),
  );
}

// ---------------------------------------------------------------- text summary

function summaryLines(analysis: StudyAnalysis): string[] {
  const g = analysis.grid;
  if (!g || "skipped" in g) return g ? [`configuration grid: skipped (${g.skipped})`, ""] : [];
  const out = [
    // The card's heading above names the configuration grid.
    `axes ${g.axes.join(", ")}; ${g.cells.total} cells, ${g.cells.unreadable.length} unreadable; roster ${g.roster.join(", ")}`,
  ];
  const small = g.envelopes.some((e) => e.benchmarks.some((b) => b.rankFlip && smallEnvelopeNote(b.configurations)));
  // A subset of four configurations is marked "*" and its caveat follows the table.
  out.push(...renderText(tiersTable(g.envelopes.map((e) => e.name)), tierRows(g.envelopes, g.card.tiers)));
  if (small) out.push(...wrap(`  * ${smallEnvelopeNote(4)}`, 120, "    "));
  const attribution = g.card.attribution ?? [];
  if (attribution.length) {
    out.push(
      "  per-axis attribution (full envelope, one-axis swaps: mean |score change|; share of swap x pair reversed):",
    );
    for (const a of attribution) out.push(...wrap(`    ${attributionLine(a)}`, 120, "      "));
  }
  out.push(
    ...renderText(dispersionTable(g.card.thresholds), dispersionRows(g.card.entries, g.envelopes[0].benchmarks)),
  );
  for (const v of g.variance) {
    const t2 = "error" in v.typeII ? null : v.typeII;
    const t3 = "error" in v.typeIII ? null : v.typeIII;
    out.push(
      `  variance ${v.benchmark} (${v.cells} free-form): model ${pct(t2?.modelShare)}, implementation ${pct(t2?.implementationShare)}, interactions ${pct(t2?.interactionShare)}, rho ${num(t2?.rho)} (Type III ${num(t3?.rho)})`,
    );
  }
  for (const q of g.quantization) {
    if (!q.overall) continue;
    out.push(
      `  quantization ${q.b} - ${q.a} over ${q.overall.n} paired cells: |delta| median ${pp(q.overall.median)}, mean ${pp(q.overall.mean)}, max ${pp(q.overall.max)}; largest signed: ${q.cells
        .slice(0, 5)
        .map((c) => `${c.model} / ${c.benchmark} / ${c.configuration} ${pp(c.delta)}`)
        .join("; ")}`,
    );
  }
  for (const line of attributionTable(attribution)) out.push(`  attribution ${line}`);
  for (const f of g.bootstrap) {
    out.push(
      `  bootstrap max ${f.metric}: ${num(f.max.point, 3)} (${f.max.slice}) [${num(f.max.range?.[0], 3)}, ${num(f.max.range?.[1], 3)}]`,
    );
  }
  for (const u of g.cells.unreadable.slice(0, 10))
    out.push(`  unreadable: ${u.model} / ${u.benchmark} / ${u.configuration}: ${u.reason}`);
  if (g.cells.unreadable.length > 10) out.push(`  ... and ${g.cells.unreadable.length - 10} more unreadable cells`);
  const notes = g.notes.flatMap((n) => wrap(`  note: ${n}`, 120, "  "));
  return [...out, ...notes, "GRID card: grid-card.md, grid-card.json", ""];
}

registerAnalysis({
  name: "grid",
  kinds: ["grid"],
  plan: AnalysisPlanSchema.pick({ grid: true, population: true, integrity: true }),
  result: "grid",
  run: gridAnalysis,
  summary: ({ analysis }) => summaryLines(analysis),
  // The card's envelope and dispersion tables, without the bootstrap ranges (in --full and the
  // card) and the card's file names (in the card heading above them).
  overview: ({ analysis }) =>
    summaryLines(analysis).filter(
      (line) => !line.startsWith("  bootstrap") && !line.startsWith("  attribution") && !line.startsWith("GRID card:"),
    ),
  writeFiles: (dir, analysis) => writeGridCard(dir, { analysis }),
});
