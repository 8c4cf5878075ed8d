/**
 * Across studies: `parallax profile`, the Evaluation Conditions profile of the models several
 * studies share. Per model, its score across every condition studied (lowest, highest, spread)
 * and the share of its condition effects each axis carries (a GLMM with items as random effects);
 * across models, a ranking with tie groups and, per pair, the share of conditions under which
 * their order holds. The score and difference intervals resample the shared items (one seeded set
 * of draws for all); the shares' intervals draw each GLMM's fixed effects from their fitted distribution.
 * Definitions: docs/ANALYSIS.md, "Across studies".
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { type AdjustmentMethod, RandomStream } from "../../stats/index.js";
import type { Population } from "../core/data.js";
import { type AxisDecomposition, decomposeAxes } from "./profile-axes.js";
import { type Pool, type PooledStudy, type PooledTrial, type ProfileInput, poolStudies } from "./profile-pool.js";
export type { ProfileInput } from "./profile-pool.js";
import { rankModels, type Ranking } from "./profile-ranking.js";
import { itemSums, type ScoreRange, scoreRange } from "./profile-scores.js";

/** Item resamples (and GLMM draws) by default: enough for 95% percentile intervals, bounded in time. */
export const PROFILE_RESAMPLES = 200;

export interface ProfileSettings {
  population: Population;
  alpha: number;
  correction: AdjustmentMethod;
  resamples: number;
  seed: number;
  level: number;
}

export function profileSettings(plan: AnalysisPlan, resamples = PROFILE_RESAMPLES): ProfileSettings {
  return {
    population: plan.population,
    alpha: plan.multiplicity.alpha,
    correction: plan.multiplicity.primary,
    resamples,
    seed: plan.bootstrap.seed,
    level: plan.bootstrap.level,
  };
}

export interface ModelProfile {
  model: string;
  range: ScoreRange;
  /** The axes' shares of the model's condition effects, or why they could not be fitted. */
  axes: AxisDecomposition | { error: string };
}

export interface Profile {
  /** The one sentence a reader needs: which models are distinguishable, which axis moves scores most. */
  headline: string;
  settings: ProfileSettings;
  studies: PooledStudy[];
  models: string[];
  items: number;
  benchmarks: string[];
  axes: { name: string; levels: string[]; withinStudy: boolean }[];
  conditions: string[];
  notes: string[];
  profiles: ModelProfile[];
  ranking: Ranking;
}

/** One seeded set of item resamples, shared by every statistic (so they move together). */
function itemDraws(items: number, settings: ProfileSettings): Int32Array[] {
  const stream = RandomStream.fromSeed(settings.seed);
  return Array.from({ length: settings.resamples }, () => {
    const draw = new Int32Array(items);
    stream.fillIntegers(draw, items);
    return draw;
  });
}

/** The axis with the largest share for a model (null when its shares could not be fitted). */
export function topAxis(profile: ModelProfile): string | null {
  if ("error" in profile.axes) return null;
  const ranked = [...profile.axes.shares].filter((s) => Number.isFinite(s.share)).sort((a, b) => b.share - a.share);
  return ranked[0]?.axis ?? null;
}

function rankingClause(ranking: Ranking): string {
  const { groups, models } = ranking;
  if (groups.length === 1) return `No model is distinguishable from another (${models.length} models, one tie group)`;
  const chain = groups.map((g) => (g.length === 1 ? g[0] : `{${g.join(", ")}}`)).join(" > ");
  return groups.length === models.length
    ? `Every model is distinguishable: ${chain}`
    : `${groups.length} distinguishable tie groups: ${chain}`;
}

function axisClause(profiles: readonly ModelProfile[]): string {
  const byAxis = new Map<string, string[]>();
  const unmoved: string[] = [];
  for (const p of profiles) {
    const axis = topAxis(p);
    if (axis) byAxis.set(axis, [...(byAxis.get(axis) ?? []), p.model]);
    else if (!("error" in p.axes)) unmoved.push(p.model);
  }
  const ordered = [...byAxis].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  const parts = ordered.map(([axis, models]) => `${axis} for ${models.join(", ")}`);
  // A model whose every component is within its sampling noise has no axis that moves it.
  if (unmoved.length) parts.push(`none measurably for ${unmoved.join(", ")}`);
  if (parts.length === 0) return "no axis share could be fitted";
  if (ordered.length === 1 && ordered[0][1].length === profiles.length) {
    return `${ordered[0][0]} moves scores most for every model`;
  }
  if (parts.length === 1) return `the axis moving scores most is ${parts[0]}`;
  return `the axis moving scores most is ${parts.slice(0, -1).join("; ")} and ${parts.at(-1)}`;
}

export function profileHeadline(ranking: Ranking, profiles: readonly ModelProfile[]): string {
  return `${rankingClause(ranking)}; ${axisClause(profiles)}.`;
}

/**
 * Profiles the models the studies share on the items they share. Refuses (exit 2, one line) studies
 * without a shared model or item, and a pool without an axis of two levels.
 */
export function profileStudies(inputs: readonly ProfileInput[], settings: ProfileSettings): Profile {
  const pool: Pool = poolStudies(inputs, settings.population);
  const draws = itemDraws(pool.items.length, settings);
  const trialsOf = new Map<string, PooledTrial[]>(pool.models.map((m) => [m, []]));
  for (const t of pool.trials) trialsOf.get(t.model)!.push(t);
  const profiles = pool.models.map((model) => ({
    model,
    range: scoreRange(pool, itemSums(pool, trialsOf.get(model)!), draws, settings.level),
    axes: decomposeAxes(pool, trialsOf.get(model)!, {
      draws: settings.resamples,
      seed: settings.seed,
      level: settings.level,
    }),
  }));
  const scores = new Map(profiles.map((p) => [p.model, p.range.score]));
  const ranking = rankModels(pool, { scores, trialsOf }, draws, settings);
  return {
    headline: profileHeadline(ranking, profiles),
    settings,
    studies: pool.studies,
    models: pool.models,
    items: pool.items.length,
    benchmarks: pool.benchmarks,
    axes: pool.axes,
    conditions: pool.conditions.map((c) => c.label),
    notes: pool.notes,
    profiles,
    ranking,
  };
}
