/**
 * Study families (`families:` in the spec): each family's models, benchmarks, conditions and
 * sample of items, drawn in dependency order (a sample `within` another family's, or
 * `disjoint_from` others, after them). A trial's identity never depends on its family: the cells
 * of the study are the union of the families' cells, so a trial two families share runs once.
 */
import { type Condition, facetLabel } from "../../contracts/condition.js";
import type { Item } from "../../contracts/item.js";
import type { FamilyRole, FamilySampleSpec, StudyFamilySpec, StudySpec } from "../../contracts/spec.js";
import { formatPath, type PathSegment, SpecError, type SpecSource } from "../../core/spec-loader.js";
import { sampleItems } from "../../datasets/sample.js";
import { conditionsAfterExclusions } from "./conditions.js";
import { familyBenchmarks, familySamples, isSingleSample, levelMatches } from "../../facets/families.js";

export interface PreparedFamily {
  name: string;
  role: FamilyRole;
  description?: string;
  models: string[];
  benchmarks: string[];
  /** The study's conditions the family runs (the same objects as the study's). */
  conditions: Condition[];
  /** Per benchmark, the family's conditions after its own and the study's exclusions. */
  benchmarkConditions: Map<string, Condition[]>;
  /** Item ids by benchmark, in the benchmark's item order. */
  items: Map<string, string[]>;
}

/** What the manifest records of a family (and `analyze` reads back to select its rows). */
export interface FamilyManifest {
  role: FamilyRole;
  models: string[];
  benchmarks: string[];
  /** Per benchmark, each condition as facet -> label, as the analysis table's rows carry them. */
  conditions: Record<string, Record<string, string>[]>;
  items: Record<string, string[]>;
}

interface Located {
  path: string;
  source: SpecSource;
}

/**
 * Every family's items of one benchmark (`pool`: the benchmark's items after its own `sample`),
 * drawn in dependency order; families without the benchmark are absent. A family's draw on a
 * benchmark reads only that benchmark's items and the earlier families' items there, so a study
 * draws each benchmark's as it is prepared and keeps only the items some family draws. Throws a
 * SpecError when a sample cannot be drawn: more items asked than a disjoint or nested pool has
 * left, or families that wait on each other.
 */
export function drawFamilyItems(
  spec: StudySpec,
  benchmark: string,
  pool: readonly Item[],
  located: Located,
): Map<string, string[]> {
  const declared = spec.families ?? {};
  const drawn = new Map<string, string[]>();
  for (const name of drawOrder(declared, located)) {
    const family = declared[name];
    const benchmarks = familyBenchmarks(spec, family);
    if (!benchmarks.includes(benchmark)) continue;
    const sample = familySamples(family, benchmarks).get(benchmark);
    if (!sample) {
      drawn.set(
        name,
        pool.map((item) => item.id),
      );
      continue;
    }
    const samplePath: PathSegment[] = [
      "families",
      name,
      "sample",
      ...(family.sample && isSingleSample(family.sample) ? [] : [benchmark]),
    ];
    let candidates: readonly Item[] = pool;
    let from = `the ${pool.length} items of benchmark '${benchmark}'`;
    if (sample.where) {
      refuseUnknownWhereFields(sample.where, pool, { benchmark, path: [...samplePath, "where"], located });
      candidates = candidates.filter((item) => matchesWhere(item, sample.where!));
      from = `the ${candidates.length} items of benchmark '${benchmark}' where ${whereText(sample.where)}`;
    }
    if (sample.within) {
      const inside = new Set(drawn.get(sample.within) ?? []);
      candidates = candidates.filter((item) => inside.has(item.id));
      from = `the ${candidates.length} items of family '${sample.within}' on '${benchmark}'`;
    }
    for (const other of sample.disjoint_from ?? []) {
      const taken = new Set(drawn.get(other) ?? []);
      const before = candidates.length;
      candidates = candidates.filter((item) => !taken.has(item.id));
      from += `, less the ${before - candidates.length} of family '${other}'`;
    }
    if (sample.n === undefined) {
      drawn.set(
        name,
        candidates.map((item) => item.id),
      );
      continue;
    }
    if (sample.n > candidates.length) {
      throw specError(
        located,
        [...samplePath, "n"],
        `expected at most ${candidates.length} (${from}), found ${sample.n}; a ${sample.disjoint_from ? "disjoint " : ""}sample of ${sample.n} is impossible`,
      );
    }
    const sampled = sampleItems([...candidates], {
      n: sample.n,
      seed: sample.seed,
      stratifyBy: sample.stratify_by,
      allocation: sample.allocation,
    });
    drawn.set(
      name,
      sampled.map((item) => item.id),
    );
  }
  return drawn;
}

/**
 * The study's families: each one's models, benchmarks and conditions, with its items of each
 * benchmark as `drawFamilyItems` drew them (`drawn`: benchmark id -> family -> item ids).
 */
export function prepareFamilies(
  spec: StudySpec,
  drawn: ReadonlyMap<string, ReadonlyMap<string, string[]>>,
  /** The study's conditions, and those that run on a given benchmark. */
  conditionsOf: { conditions: readonly Condition[]; studyConditions: (benchmarkId: string) => readonly Condition[] },
  located: Located,
): PreparedFamily[] {
  const { conditions, studyConditions } = conditionsOf;
  const declared = spec.families ?? {};
  const prepared = new Map<string, PreparedFamily>();
  for (const name of drawOrder(declared, located)) {
    const family = declared[name];
    const benchmarks = familyBenchmarks(spec, family);
    const items = new Map(benchmarks.map((b) => [b, drawn.get(b)?.get(name) ?? []]));
    const own = familyConditions(family, conditions);
    const byBenchmark = new Map(
      benchmarks.map((b) => [
        b,
        conditionsAfterExclusions(own, family.exclude ?? [], b).filter((c) => studyConditions(b).includes(c)),
      ]),
    );
    for (const [benchmark, runs] of byBenchmark) {
      if (runs.length === 0 && own.length > 0)
        throw specError(
          located,
          ["families", name, family.exclude ? "exclude" : "conditions"],
          `expected every benchmark of the family to run one of its conditions, found none on '${benchmark}' (after the family's and the study's exclusions)`,
        );
    }
    if (own.length === 0)
      throw specError(
        located,
        ["families", name, "conditions"],
        "expected at least one condition of the grid, found none (every one excluded)",
      );
    prepared.set(name, {
      name,
      role: family.role,
      ...(family.description ? { description: family.description } : {}),
      models: family.models ?? spec.models.map((m) => m.id),
      benchmarks,
      conditions: own,
      benchmarkConditions: byBenchmark,
      items,
    });
  }
  // Declared order, not draw order, in everything that lists families.
  return Object.keys(declared).map((name) => prepared.get(name)!);
}

type Where = NonNullable<FamilySampleSpec["where"]>;

function matchesWhere(item: Item, where: Where): boolean {
  return Object.entries(where).every(([field, wanted]) => {
    const value = item.metadata[field];
    return (Array.isArray(wanted) ? wanted : [wanted]).some((w) => w === value);
  });
}

/** A `where` on a field no item has would select nothing, silently: refused, listing the fields there are. */
function refuseUnknownWhereFields(
  where: Where,
  pool: readonly Item[],
  at: { benchmark: string; path: PathSegment[]; located: Located },
): void {
  const { benchmark, path, located } = at;
  const fields = new Set(pool.flatMap((item) => Object.keys(item.metadata)));
  for (const field of Object.keys(where)) {
    if (fields.has(field)) continue;
    const known = fields.size > 0 ? [...fields].sort().join(", ") : "none";
    throw specError(
      located,
      [...path, field],
      `expected a metadata field of the items of benchmark '${benchmark}', found '${field}'; their fields: ${known}`,
    );
  }
}

function whereText(where: Where): string {
  return Object.entries(where)
    .map(([field, wanted]) => `${field} = ${Array.isArray(wanted) ? wanted.join(" or ") : wanted}`)
    .join(", ");
}

/** The study's conditions whose value of every facet the family names is one of its levels. */
export function familyConditions(family: StudyFamilySpec, conditions: readonly Condition[]): Condition[] {
  const levels = Object.entries(family.conditions ?? {});
  return conditions.filter((condition) =>
    levels.every(([facet, allowed]) => {
      const value = condition[facet];
      return value !== undefined && allowed.some((level) => levelMatches(level, value));
    }),
  );
}

/** Families ordered so that each comes after those its samples draw within or keep disjoint from. */
function drawOrder(declared: Record<string, StudyFamilySpec>, located: Located): string[] {
  const after = (name: string): string[] => {
    const sample = declared[name].sample;
    if (!sample) return [];
    const samples = isSingleSample(sample) ? [sample] : Object.values(sample);
    return samples.flatMap((s) => [...(s.within ? [s.within] : []), ...(s.disjoint_from ?? [])]);
  };
  const order: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string, chain: string[]): void => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "visiting") {
      throw specError(
        located,
        ["families", name, "sample"],
        `expected samples that can be drawn one after another, found a cycle: ${[...chain, name].join(" -> ")} (within / disjoint_from)`,
      );
    }
    state.set(name, "visiting");
    for (const other of after(name)) if (declared[other]) visit(other, [...chain, name]);
    state.set(name, "done");
    order.push(name);
  };
  for (const name of Object.keys(declared)) visit(name, []);
  return order;
}

/** Every benchmark of the study must be in a family (else it would have no trials). */
export function refuseBenchmarksWithoutFamily(
  spec: StudySpec,
  families: readonly PreparedFamily[],
  located: Located,
): void {
  spec.benchmarks.forEach((benchmark, i) => {
    if (families.some((f) => f.benchmarks.includes(benchmark.id))) return;
    throw specError(
      located,
      ["benchmarks", i, "id"],
      `benchmark '${benchmark.id}' is in no family, so it would have no trials; expected it in a family's benchmarks (families: ${families.map((f) => f.name).join(", ")})`,
    );
  });
}

/**
 * The items each (model, condition, benchmark) cell runs: the union over the families that
 * include the cell. Keys: model id, then the condition (by identity), then benchmark id.
 */
export type CellCoverage = Map<string, Map<Condition, Map<string, ReadonlySet<string>>>>;

/**
 * The cells of one benchmark that the same families include hold the same items: they share one
 * Set (read-only), so a grid of thousands of cells holds a few sets, not one per cell.
 */
export function cellCoverage(families: readonly PreparedFamily[]): CellCoverage {
  // First the families of each cell (their indices, in declared order), then one set per benchmark and family list.
  const owners = new Map<string, Map<Condition, Map<string, number[]>>>();
  families.forEach((family, index) => {
    for (const model of family.models) {
      const byCondition = owners.get(model) ?? new Map<Condition, Map<string, number[]>>();
      owners.set(model, byCondition);
      for (const benchmark of family.items.keys()) {
        for (const condition of family.benchmarkConditions.get(benchmark) ?? []) {
          const byBenchmark = byCondition.get(condition) ?? new Map<string, number[]>();
          byCondition.set(condition, byBenchmark);
          const cell = byBenchmark.get(benchmark) ?? [];
          byBenchmark.set(benchmark, cell);
          cell.push(index);
        }
      }
    }
  });
  const shared = new Map<string, Set<string>>();
  const itemsOf = (benchmark: string, indices: readonly number[]): Set<string> => {
    const key = `${benchmark}\u0000${indices.join(",")}`;
    let items = shared.get(key);
    if (!items) {
      items = new Set(indices.flatMap((index) => families[index].items.get(benchmark) ?? []));
      shared.set(key, items);
    }
    return items;
  };
  return new Map(
    [...owners].map(([model, byCondition]) => [
      model,
      new Map(
        [...byCondition].map(([condition, byBenchmark]) => [
          condition,
          new Map([...byBenchmark].map(([benchmark, indices]) => [benchmark, itemsOf(benchmark, indices)])),
        ]),
      ),
    ]),
  );
}

export function familyManifest(family: PreparedFamily): FamilyManifest {
  return {
    role: family.role,
    models: family.models,
    benchmarks: family.benchmarks,
    conditions: Object.fromEntries([...family.benchmarkConditions].map(([b, cs]) => [b, cs.map(labelsOf)])),
    items: Object.fromEntries(family.items),
  };
}

/** A condition as the analysis table's rows carry it: facet -> label. */
function labelsOf(condition: Condition): Record<string, string> {
  return Object.fromEntries(Object.entries(condition).map(([facet, value]) => [facet, facetLabel(value)]));
}

function specError(located: Located, path: PathSegment[], message: string): SpecError {
  return new SpecError(located.path, [
    { ...located.source.locate(path), message: `at YAML path ${formatPath(path)}: ${message}` },
  ]);
}
