/**
 * The few-shot facet `few_shot` (SafetyRepro §3, App. T): 0, 3 or 5 demonstrations before the
 * question (any count up to MAX_SHOTS is accepted; `{name: "3", seed: 7}` picks another draw).
 * The exemplars of a level are one deterministic draw per (benchmark, level, seed) from the
 * benchmark's declared exemplar pool (`benchmarks[].exemplars`), which must be disjoint from the
 * evaluated items (run/prepare/exemplars.ts checks it and records the draws in the item manifest). The
 * draw is also on the rendered task (`task.fewShot`, stored with each trial).
 */
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import { facetName, facetSettings } from "../contracts/condition.js";
import type { Condition } from "../contracts/condition.js";
import type { Item } from "../contracts/item.js";
import type { FacetValue, StudySpec } from "../contracts/spec.js";
import type { TaskExemplar, TaskFewShot } from "../contracts/task.js";
import { InputError } from "../core/errors.js";
import { canonicalJson, sha256 } from "../core/hash.js";
import { toTaskInput } from "../datasets/format.js";
import { sampleItems } from "../datasets/sample.js";
import { REFUSAL_CANDIDATES } from "../scoring/logprob-refusal.js";
import type { Facet, FacetSpecProblem } from "./types.js";

export const FEW_SHOT_LEVELS = ["0", "3", "5"] as const;
/** Counts above this are out of any practice envelope (the paper stops at 5). */
export const MAX_SHOTS = 10;

const settingsSchema = lazySchema(() => z.object({ seed: z.number().int().optional() }).strict());

/** The number of exemplars a value asks for. */
export function shotCount(value: FacetValue): number {
  return Number(facetName(value));
}

/** The draw's seed (default 0). */
export function shotSeed(value: FacetValue): number {
  const seed = facetSettings(value).seed;
  return typeof seed === "number" ? seed : 0;
}

function isCount(value: FacetValue): boolean {
  const name = facetName(value);
  return /^\d+$/.test(name) && Number(name) <= MAX_SHOTS;
}

export const fewShotFacet: Facet = {
  name: "few_shot",
  description: `demonstrations before the question: 0, 3, 5 (up to ${MAX_SHOTS}), drawn from the benchmark's exemplar pool`,
  stage: "few_shot",
  knownValues: () => FEW_SHOT_LEVELS,
  acceptsCustom: isCount,
  settingsSchema: (valueName) => (/^\d+$/.test(valueName) ? settingsSchema : undefined),
  specProblems: benchmarksWithoutPool,
  applyToItem(item, value, context) {
    const level = shotCount(value);
    if (level === 0) return { item, finishTask: (task) => task };
    const seed = shotSeed(value);
    const exemplars = drawExemplars(context.exemplars, item.benchmark, level, seed);
    return {
      item,
      finishTask: (task) => ({ ...task, fewShot: fewShotOf(exemplars, level, seed, task.condition) }),
    };
  },
};

/** A benchmark without an exemplar pool cannot run a level above 0. */
function benchmarksWithoutPool(spec: StudySpec): FacetSpecProblem[] {
  const levels = (spec.conditions.facets.few_shot ?? []).filter((v) => isCount(v) && shotCount(v) > 0);
  if (levels.length === 0) return [];
  return spec.benchmarks.flatMap((benchmark, i) => {
    const needed = levels.filter((level) => !excludedFor(spec, benchmark.id, facetName(level)));
    if (benchmark.exemplars || needed.length === 0) return [];
    return [
      {
        path: ["benchmarks", i],
        message: `benchmark '${benchmark.id}' declares no exemplar pool, but the few_shot facet asks for ${needed.map(facetName).join(", ")} exemplars; add exemplars: {source: <file>} (disjoint from the evaluated items)`,
      },
    ];
  });
}

/** Whether an exclude entry of exactly {benchmark, few_shot} removes this level from the benchmark. */
function excludedFor(spec: StudySpec, benchmarkId: string, level: string): boolean {
  const names = (raw: unknown) => (Array.isArray(raw) ? raw : [raw]).map((v) => facetName(v as FacetValue));
  return spec.conditions.exclude.some(
    (rule) =>
      Object.keys(rule).length === 2 &&
      rule.benchmark !== undefined &&
      rule.few_shot !== undefined &&
      names(rule.benchmark).includes(benchmarkId) &&
      names(rule.few_shot).includes(level),
  );
}

/**
 * The `level` exemplars of a benchmark at `seed`: a deterministic draw from the pool (the same
 * for every item of the benchmark), in pool order.
 */
export function drawExemplars(
  pool: readonly Item[] | undefined,
  benchmark: string,
  level: number,
  seed: number,
): Item[] {
  if (!pool || pool.length === 0) {
    throw new InputError(`benchmark '${benchmark}': few_shot ${level} needs an exemplar pool (benchmarks[].exemplars)`);
  }
  if (pool.length < level) {
    throw new InputError(
      `benchmark '${benchmark}': few_shot ${level} needs ${level} exemplars, the pool has ${pool.length}`,
    );
  }
  const key = `${benchmark}|${level}|${seed}`;
  const known = draws.get(pool)?.get(key);
  if (known) return known;
  const drawSeed = Number.parseInt(sha256(canonicalJson(["few_shot", benchmark, level, seed])).slice(0, 8), 16);
  const drawn = sampleItems([...pool], { n: level, seed: drawSeed });
  const byKey = draws.get(pool) ?? new Map<string, Item[]>();
  draws.set(pool, byKey.set(key, drawn));
  return drawn;
}

/** Draws by pool, then (benchmark, level, seed): a draw hashes the whole pool, so every trial reuses it. */
const draws = new WeakMap<readonly Item[], Map<string, Item[]>>();

/** The exemplars as the task shows them: in the trial's format, each with its gold answer. */
function fewShotOf(exemplars: Item[], level: number, seed: number, condition: Condition): TaskFewShot {
  return { level, seed, exemplars: exemplars.map((item) => shownExemplar(item, condition)) };
}

function shownExemplar(item: Item, condition: Condition): TaskExemplar {
  const shown = toTaskInput(item, condition);
  const goldText =
    item.goldText ??
    (item.goldIndex === undefined ? undefined : item.options?.[item.goldIndex]) ??
    behaviourShown(item);
  const letter = shown.validLetters && item.goldIndex !== undefined ? shown.validLetters[item.goldIndex] : undefined;
  const answer = letter ?? goldText;
  if (answer === undefined) {
    throw new InputError(`exemplar '${item.id}' of '${item.benchmark}' has no gold answer to demonstrate`);
  }
  return {
    id: item.id,
    question: shown.question,
    ...(shown.options ? { options: shown.options, validLetters: shown.validLetters } : {}),
    answer,
    ...(letter !== undefined && goldText !== undefined ? { answerText: goldText } : {}),
  };
}

/**
 * A prompt whose key is a behaviour (metadata.expected_behavior comply/refuse: XSTest, OR-Bench)
 * has no reference answer; its demonstration is that behaviour's opening, the same text the
 * log-prob path ranks (scoring/logprob-refusal.ts), so both paths see one convention.
 */
function behaviourShown(item: Item): string | undefined {
  const expected = item.metadata.expected_behavior;
  return expected === "comply" || expected === "refuse" ? REFUSAL_CANDIDATES[expected].trim() : undefined;
}
