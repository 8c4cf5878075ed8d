/**
 * Per-model scaffold sensitivity profiles (ScaffoldSafety App. O.2, Table 40), over the primary
 * configurations (the reference and the primary family) in the primary population:
 *
 * - eta^2: the configuration's share of the model's outcome variance, one-way,
 *   SS_between(configuration) / SS_total on the model's 0/1 outcomes;
 * - average range: per benchmark, the largest minus the smallest configuration safety rate,
 *   averaged over benchmarks; max range: the largest of those ranges (and its benchmark);
 * - overall: the model's rate over those rows (safety rate or accuracy, as its benchmarks declare).
 *
 * Ordered by average range, most sensitive first. Descriptive.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { ScoredRow } from "../core/data.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../core/registry.js";
import { defineTable, type ResultTable, renderText } from "../core/result-table.js";
import { pct, pp, rateNoun } from "../core/text.js";
import { pooledFormatsNote } from "../conditions/format-pooling.js";

export interface SensitivityProfile {
  model: string;
  n: number;
  etaSq: number;
  averageRange: number;
  maxRange: number;
  maxRangeBenchmark: string;
  overallSafe: number;
  /** Per benchmark: the configuration rates' range. */
  ranges: { benchmark: string; range: number; lowest: string; highest: string }[];
}

export interface SensitivityProfiles {
  configurations: string[];
  profiles: SensitivityProfile[];
}

declare module "../core/registry.js" {
  interface AnalysisResults {
    sensitivityProfiles: SensitivityProfiles | Skipped;
  }
}

const mean = (rows: readonly ScoredRow[]) => rows.reduce((a, s) => a + s.y, 0) / rows.length;

export function profileOf(model: string, rows: readonly ScoredRow[], facet: string, configurations: string[]) {
  const overall = mean(rows);
  let ssTotal = 0;
  for (const s of rows) ssTotal += (s.y - overall) ** 2;
  let ssBetween = 0;
  for (const c of configurations) {
    const group = rows.filter((s) => s.row.facets[facet] === c);
    if (group.length) ssBetween += group.length * (mean(group) - overall) ** 2;
  }
  const benchmarks = [...new Set(rows.map((s) => s.row.benchmark))].sort();
  const ranges = benchmarks.flatMap((benchmark) => {
    const rates = configurations.flatMap((c) => {
      const group = rows.filter((s) => s.row.benchmark === benchmark && s.row.facets[facet] === c);
      return group.length ? [{ c, rate: mean(group) }] : [];
    });
    if (rates.length < 2) return [];
    const lowest = rates.reduce((a, b) => (b.rate < a.rate ? b : a));
    const highest = rates.reduce((a, b) => (b.rate > a.rate ? b : a));
    return [{ benchmark, range: highest.rate - lowest.rate, lowest: lowest.c, highest: highest.c }];
  });
  const widest = ranges.reduce<(typeof ranges)[number] | null>((a, b) => (!a || b.range > a.range ? b : a), null);
  return {
    model,
    n: rows.length,
    etaSq: ssTotal > 0 ? ssBetween / ssTotal : 0,
    averageRange: ranges.length ? ranges.reduce((a, r) => a + r.range, 0) / ranges.length : Number.NaN,
    maxRange: widest?.range ?? Number.NaN,
    maxRangeBenchmark: widest?.benchmark ?? "",
    overallSafe: overall,
    ranges,
  };
}

export function sensitivityProfiles(ctx: AnalysisContext): SensitivityProfiles | Skipped {
  const { comparisonFacet: facet, reference, levels, families } = ctx.resolved;
  const primary = families.find((f) => f.name === "primary")?.conditions ?? [];
  const configurations = levels.filter((l) => l === reference || primary.includes(l));
  if (configurations.length < 2) return { skipped: "fewer than two primary configurations" };
  const rows = ctx.main.filter((s) => configurations.includes(s.row.facets[facet]));
  const models = [...new Set(rows.map((s) => s.row.model))].sort();
  const profiles = models
    .map((m) =>
      profileOf(
        m,
        rows.filter((s) => s.row.model === m),
        facet,
        configurations,
      ),
    )
    .sort((a, b) => b.averageRange - a.averageRange || a.model.localeCompare(b.model));
  return { configurations, profiles };
}

/** Each model's sensitivity to the configuration (the --full summary and the report); `noun` names the overall rate. */
export function sensitivityProfilesTable(noun: string): ResultTable<SensitivityProfile> {
  return defineTable<SensitivityProfile>({
    name: "per-model sensitivity profiles",
    columns: [
      { key: "model", header: "model", cell: (p) => p.model },
      // The terminal spells eta out and abbreviates "average"; the report writes η.
      { key: "eta", header: { text: "eta^2", html: "η²" }, unit: "%", align: "right", cell: (p) => pct(p.etaSq, 2) },
      {
        key: "averageRange",
        header: { text: "avg range", html: "average range" },
        unit: "pp",
        align: "right",
        cell: (p) => pp(p.averageRange),
      },
      {
        key: "maxRange",
        header: "max range",
        unit: "pp",
        cell: (p) => `${pp(p.maxRange)}${p.maxRangeBenchmark ? ` (${p.maxRangeBenchmark})` : ""}`,
      },
      { key: "overall", header: `overall ${noun}`, unit: "%", align: "right", cell: (p) => pct(p.overallSafe) },
    ],
  });
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const s = analysis.sensitivityProfiles;
  if ("skipped" in s) return [`per-model sensitivity profiles: skipped (${s.skipped})`, ""];
  return [
    `per-model scaffold sensitivity (App. O.2; over ${s.configurations.join(", ")}; by average range)`,
    ...renderText(sensitivityProfilesTable(rateNoun(analysis.counts.benchmarks, analysis.meta.measures)), s.profiles),
    "",
  ];
}

registerAnalysis({
  name: "sensitivityProfiles",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison"],
  plan: AnalysisPlanSchema.pick({ population: true }),
  result: "sensitivityProfiles",
  run: sensitivityProfiles,
  summary: ({ analysis }) => summaryLines(analysis),
});
