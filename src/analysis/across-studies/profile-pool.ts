/**
 * The pool `profile` reads: the trials of several studies on the models and items every study
 * shares (a model by its id, an item by benchmark + item id), each trial tagged with its study,
 * its condition (the study and its facets) and its level on every condition axis. An axis is a
 * facet name across the studies; one with a single level among the pooled trials is named and left
 * out. Definitions: docs/ANALYSIS.md, "Across studies".
 */
import { InputError } from "../../core/errors.js";
import { distinctValues, type Population, scoredRows } from "../core/data.js";
import { intersect, NOT_COMPARABLE } from "../core/pairing.js";
import type { AnalysisTable } from "../core/table.js";

export interface ProfileInput {
  path: string;
  table: AnalysisTable;
}

export interface PooledTrial {
  study: number;
  model: string;
  /** Index into Pool.conditions. */
  condition: number;
  /** Index into Pool.items. */
  item: number;
  attempt: number;
  y: number;
  /** Per axis (Pool.axes order): the trial's level index, or -1 where its study has no such facet. */
  levels: Int32Array;
}

export interface PooledCondition {
  study: number;
  /** "S1 scaffold=react": the study's label and its levels of the axes studied as name=value. */
  label: string;
}

export interface ConditionAxis {
  name: string;
  levels: string[];
  /** True when some study runs two levels of it; false when it varies only between studies. */
  withinStudy: boolean;
}

export interface PooledStudy {
  /** S1, S2, ... in the order given. */
  label: string;
  path: string;
  models: number;
  items: number;
}

export interface Pool {
  studies: PooledStudy[];
  /** Models every study ran, sorted. */
  models: string[];
  /** Cases (benchmark + item) every study ran for the shared models, sorted. */
  items: string[];
  benchmarks: string[];
  axes: ConditionAxis[];
  conditions: PooledCondition[];
  trials: PooledTrial[];
  /** What was left out and why (axes with one level, models not in every study), one line each. */
  notes: string[];
}

function list(names: Iterable<string>, limit = 3): string {
  const all = [...names];
  return all.slice(0, limit).join(", ") + (all.length > limit ? ", ..." : "");
}

/** The names every study has, else a one-line refusal listing each study's (exit 2). */
function sharedAcross(
  studies: readonly PooledStudy[],
  perStudy: readonly Set<string>[],
  what: "models" | "items",
): Set<string> {
  const shared = perStudy.slice(1).reduce((all, next) => intersect(all, next), perStudy[0]);
  if (shared.size > 0) return shared;
  const sides = studies.map((s, i) =>
    what === "models" ? `${s.label} ${s.path}: ${list(perStudy[i])}` : `${s.label} ${s.path}: ${perStudy[i].size}`,
  );
  const reason = NOT_COMPARABLE.replace("items", what);
  throw new InputError(`${reason} (${sides.join("; ")}${what === "items" ? " items, none in every study" : ""})`);
}

/** A trial's condition: its levels of the axes studied as name=value (a facet left out has one level anyway). */
function conditionOf(axes: readonly ConditionAxis[], facets: Record<string, string>): string {
  return axes.flatMap((axis) => (facets[axis.name] ? [`${axis.name}=${facets[axis.name]}`] : [])).join(" ") || "-";
}

/** Facet names across the studies, in first-appearance order. */
function axisNames(inputs: readonly ProfileInput[]): string[] {
  return [...new Set(inputs.flatMap((input) => input.table.facets))];
}

/** Level order of an axis: the first study's declared order, then the others', then first seen. */
function axisLevels(inputs: readonly ProfileInput[], axis: string, seen: Iterable<string>): string[] {
  const declared = inputs.flatMap((input) => input.table.facetLevels[axis] ?? []);
  return distinctValues(seen, [...new Set(declared)]);
}

/**
 * Pools the studies' scored trials (ITT or PP) on the models and items every study shares. Refuses
 * (exit 2, one line) studies that share no model or no item, and a pool in which no axis has two
 * levels (nothing to profile).
 */
export function poolStudies(inputs: readonly ProfileInput[], population: Population): Pool {
  const scored = inputs.map((input) => scoredRows(input.table.rows, population));
  const studies: PooledStudy[] = inputs.map((input, i) => ({
    label: `S${i + 1}`,
    path: input.path,
    models: new Set(scored[i].map((s) => s.row.model)).size,
    items: new Set(scored[i].map((s) => s.row.cluster)).size,
  }));
  const models = sharedAcross(
    studies,
    scored.map((rows) => new Set(rows.map((s) => s.row.model))),
    "models",
  );
  const onShared = scored.map((rows) => rows.filter((s) => models.has(s.row.model)));
  const items = sharedAcross(
    studies,
    onShared.map((rows) => new Set(rows.map((s) => s.row.cluster))),
    "items",
  );
  const kept = onShared.map((rows) => rows.filter((s) => items.has(s.row.cluster)));
  const { axes, notes } = conditionAxes(inputs, kept);
  const notInEvery = [...new Set(scored.flatMap((rows) => rows.map((s) => s.row.model)))].filter((m) => !models.has(m));
  if (notInEvery.length) notes.push(`models not in every study, left out: ${list(notInEvery.sort(), 6)}`);
  const itemList = [...items].sort();
  const itemIndex = new Map(itemList.map((item, i) => [item, i]));
  const conditions: PooledCondition[] = [];
  const conditionIndex = new Map<string, number>();
  const trials: PooledTrial[] = [];
  kept.forEach((rows, study) => {
    for (const { row, y } of rows) {
      const label = `${studies[study].label} ${conditionOf(axes, row.facets)}`;
      let condition = conditionIndex.get(label);
      if (condition === undefined) {
        condition = conditions.push({ study, label }) - 1;
        conditionIndex.set(label, condition);
      }
      const levels = Int32Array.from(axes, (axis) =>
        row.facets[axis.name] ? axis.levels.indexOf(row.facets[axis.name]) : -1,
      );
      trials.push({
        study,
        model: row.model,
        condition,
        item: itemIndex.get(row.cluster)!,
        attempt: row.attempt,
        y,
        levels,
      });
    }
  });
  return {
    studies,
    models: [...models].sort(),
    items: itemList,
    benchmarks: [...new Set(kept.flatMap((rows) => rows.map((s) => s.row.benchmark)))].sort(),
    axes,
    conditions,
    trials,
    notes,
  };
}

/**
 * The axes with two or more levels among the pooled trials, and a note for each left out (one
 * level) or varying only between studies (its effect then carries whatever else differs between them).
 */
function conditionAxes(
  inputs: readonly ProfileInput[],
  kept: readonly { row: { facets: Record<string, string> } }[][],
): { axes: ConditionAxis[]; notes: string[] } {
  const axes: ConditionAxis[] = [];
  const notes: string[] = [];
  for (const name of axisNames(inputs)) {
    const perStudy = kept.map((rows) => new Set(rows.map((s) => s.row.facets[name]).filter((v) => v)));
    const levels = axisLevels(
      inputs,
      name,
      perStudy.flatMap((set) => [...set]),
    );
    if (levels.length < 2) {
      notes.push(`axis ${name} has one level (${levels[0] ?? "none"}), left out`);
      continue;
    }
    const withinStudy = perStudy.some((set) => set.size > 1);
    if (!withinStudy) {
      const where = perStudy.flatMap((set, i) => (set.size ? [`S${i + 1} ${[...set][0]}`] : [])).join(", ");
      notes.push(`axis ${name} varies only between studies (${where}): its share includes whatever else differs there`);
    }
    axes.push({ name, levels, withinStudy });
  }
  if (axes.length === 0) {
    throw new InputError(
      `nothing to profile: no condition axis has two levels on the shared items (${notes.join("; ") || "no facets"})`,
    );
  }
  return { axes, notes };
}
