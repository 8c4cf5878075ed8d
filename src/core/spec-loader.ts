/**
 * Loads a study spec: YAML -> StudySpecSchema -> cross-field checks. Every problem is reported
 * at once, as `FILE:LINE:COL: at YAML path a.b[1]: expected ..., found ...`, so a user can fix a
 * spec in one pass. Nothing else is resolved here (no benchmark files are read). Reading the YAML
 * and locating a data path in it are spec-yaml.ts; the wording of problems is spec-problems.ts.
 */
import { resolve } from "node:path";
import type { $ZodIssue } from "zod/v4/core";
import { facetLabel } from "../contracts/condition.js";
import { type StudySpec, StudySpecSchema } from "../contracts/spec.js";
import { describeValue, formatPath, SpecError, type SpecProblem } from "./spec-problems.js";
import { type PathSegment, parseSpecFile, readSpecFile, type SpecFile, type SpecSource } from "./spec-yaml.js";

// The spec checks import the spec file, its locations and its problems through this module too.
export { describeValue, formatPath, SpecError, type SpecProblem } from "./spec-problems.js";
export {
  locatedSource,
  type PathSegment,
  type Position,
  readSpecFile,
  type SpecFile,
  type SpecSource,
  specSource,
} from "./spec-yaml.js";

/** Reads and validates a spec file (or an already read one). `path` in the result is absolute, for resolving relative sources later. */
export function loadSpec(spec: string | SpecFile): { spec: StudySpec; text: string; path: string; source: SpecSource } {
  const file = typeof spec === "string" ? readSpecFile(spec) : spec;
  return { ...validateSpecFile(file), text: file.text, path: resolve(file.path) };
}

/** Parses and validates spec text; `fileName` only labels the messages. Throws SpecError (an InputError). */
export function parseSpec(text: string, fileName: string): StudySpec {
  return validateSpecFile(parseSpecFile(text, fileName)).spec;
}

/** Validations by file: a command that reads a spec once and checks it in several steps validates it once. */
const validated = new WeakMap<SpecFile, { spec: StudySpec; source: SpecSource }>();

function validateSpecFile(file: SpecFile): { spec: StudySpec; source: SpecSource } {
  const known = validated.get(file);
  if (known) return known;
  const result = validateSpecText(file);
  validated.set(file, result);
  return result;
}

function validateSpecText(file: SpecFile): { spec: StudySpec; source: SpecSource } {
  const source = file.yaml;
  if ("problems" in source) throw new SpecError(file.path, source.problems);
  // A spec is parsed once: zod's compiled fast path (a function generated per object schema on
  // its first parse) would cost more than it saves (docs/PERFORMANCE.md, "Startup").
  const parsed = StudySpecSchema.safeParse(source.data, { jitless: true });
  const problems = parsed.success ? [] : parsed.error.issues.flatMap((issue) => issueProblems(issue, [], source));
  problems.push(...crossFieldProblems(source));
  if (!parsed.success || problems.length > 0) throw new SpecError(file.path, problems);
  return { spec: parsed.data, source };
}

/**
 * Problems of a zod validation of the spec part at `prefix` (e.g. a scaffold's settings), in the
 * loader's words; unknown keys list the keys `schema` accepts.
 */
export function zodProblems(
  issues: readonly $ZodIssue[],
  prefix: PathSegment[],
  source: SpecSource,
  schema: unknown,
): SpecProblem[] {
  const keysOf = (path: PathSegment[]) => objectKeysAt(path.slice(prefix.length), schema as SchemaLike);
  return issues.flatMap((issue) => issueProblems(issue, prefix, source, keysOf));
}

// ---------------------------------------------------------------------------------------------
// zod issues -> problems.

function issueProblems(
  issue: $ZodIssue,
  prefix: PathSegment[],
  source: SpecSource,
  keysOf: (path: PathSegment[]) => string[] = objectKeysAt,
): SpecProblem[] {
  const path = [...prefix, ...(issue.path as PathSegment[])];
  const value = valueAt(source.data, path);
  const at = (where: PathSegment[], atKey = false) => source.locate(where, atKey);
  const problem = (where: PathSegment[], text: string, atKey = false): SpecProblem => ({
    ...at(where, atKey),
    message: `at YAML path ${formatPath(where)}: ${text}`,
  });

  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => problem([...path, key], unknownKeyText(path, key, keysOf), true));
    case "invalid_union":
      return (
        unionProblems(issue, path, source, keysOf) ?? [
          problem(path, `expected ${unionExpected(issue)}, found ${describeValue(value)}`),
        ]
      );
    case "invalid_key":
      return [
        problem(
          path,
          `expected ${issue.issues.map(expectedText).join(" and ")} as the key, found '${path.at(-1)}'`,
          true,
        ),
      ];
    case "custom":
      return [problem(path, customText(issue.message, value, path))];
    default:
      if (value === undefined && !source.has(path))
        return [problem(path, `expected ${expectedText(issue)}, found no '${path.at(-1)}' key (it is required)`)];
      return [problem(path, `expected ${expectedText(issue)}, found ${describeFound(issue, value)}`)];
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
  null: "null",
};

/** What the schema wanted, in words. */
function expectedText(issue: $ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return TYPE_WORDS[issue.expected] ?? issue.expected;
    case "too_small":
      return boundText(issue.origin, issue.inclusive ? ">=" : ">", Number(issue.minimum));
    case "too_big":
      return boundText(issue.origin, issue.inclusive ? "<=" : "<", Number(issue.maximum));
    case "invalid_format":
      // A schema's own message names the expectation; zod's defaults start with "Invalid".
      if (!issue.message.startsWith("Invalid")) return issue.message;
      return issue.format === "regex" ? `a string matching ${issue.pattern}` : `a valid ${issue.format}`;
    case "invalid_value":
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "not_multiple_of":
      return `a multiple of ${issue.divisor}`;
    default:
      return issue.message;
  }
}

function boundText(origin: string, op: string, bound: number): string {
  if (origin === "array" || origin === "set") {
    const n = op === ">" ? bound + 1 : op === "<" ? bound - 1 : bound;
    const items = n === 1 ? "item" : "items";
    return op.startsWith(">") ? `a list of at least ${n} ${items}` : `a list of at most ${n} ${items}`;
  }
  if (origin === "string") {
    if (op === ">=" && bound === 1) return "a non-empty string";
    return `a string of ${op.startsWith(">") ? "at least" : "at most"} ${bound} characters`;
  }
  return `a number ${op} ${bound}`;
}

function describeFound(issue: $ZodIssue, value: unknown): string {
  if (issue.code === "invalid_type" && issue.expected === "int" && typeof value === "number")
    return `${value} (not an integer)`;
  return describeValue(value);
}

/** A union failed: if exactly one branch matches the value's type, its issues are the useful ones. */
function unionProblems(
  issue: Extract<$ZodIssue, { code: "invalid_union" }>,
  path: PathSegment[],
  source: SpecSource,
  keysOf: (path: PathSegment[]) => string[],
): SpecProblem[] | undefined {
  const typeMismatch = (errs: $ZodIssue[]) => errs.every((e) => e.code === "invalid_type" && e.path.length === 0);
  const relevant = issue.errors.filter((errs) => errs.length > 0 && !typeMismatch(errs));
  if (relevant.length !== 1) return undefined;
  return relevant[0].flatMap((inner) => issueProblems(inner, path, source, keysOf));
}

function unionExpected(issue: Extract<$ZodIssue, { code: "invalid_union" }>): string {
  const options = [...new Set(issue.errors.flatMap((errs) => errs.slice(0, 1).map(expectedText)))];
  return options.length > 1
    ? `${options.slice(0, -1).join(", ")} or ${options.at(-1)}`
    : (options[0] ?? "a valid value");
}

function customText(message: string, value: unknown, path: PathSegment[]): string {
  if (value === undefined) return `${message}, found no '${path.at(-1)}' key`;
  const shown = describeValue(value);
  // Refinement messages often name the value already (e.g. "duplicate model id 'a'").
  return typeof value === "object" || message.includes(String(value)) ? message : `${message}, found ${shown}`;
}

function unknownKeyText(path: PathSegment[], key: string, keysOf: (path: PathSegment[]) => string[]): string {
  const known = keysOf(path);
  const hint = closest(key, known) ?? nestedKeyHint(path, key, known, keysOf);
  const allowed = known.length > 0 ? `expected one of the keys ${known.join(", ")}, ` : "";
  return `${allowed}found unknown key '${key}'${hint ? ` (did you mean '${hint}'?)` : ""}`;
}

/** A key that belongs one level down, e.g. `temperature` on a model instead of under `params`. */
function nestedKeyHint(
  path: PathSegment[],
  key: string,
  known: string[],
  keysOf: (path: PathSegment[]) => string[],
): string | undefined {
  for (const parent of known) {
    const match = closest(key, keysOf([...path, parent]));
    if (match) return `${parent}.${match}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Cross-field checks zod cannot express on its own: facet names and values used by `exclude`.
// They read the raw data defensively, so they still run (and report) when other parts are invalid.

function crossFieldProblems(source: SpecSource): SpecProblem[] {
  return [...inlineItemProblems(source), ...conditionProblems(source)];
}

/** Duplicate item ids within an inline benchmark: an error naming both entries (one would be dropped). */
function inlineItemProblems(source: SpecSource): SpecProblem[] {
  const benchmarks = asRecord(source.data)?.benchmarks;
  if (!Array.isArray(benchmarks)) return [];
  return benchmarks.flatMap((benchmark, b) => {
    const items = asRecord(benchmark)?.items;
    if (!Array.isArray(items)) return [];
    const first = new Map<string, number>();
    const problems: SpecProblem[] = [];
    items.forEach((item, i) => {
      const id = asRecord(item)?.id;
      if (typeof id !== "string") return;
      const earlier = first.get(id);
      if (earlier === undefined) {
        first.set(id, i);
        return;
      }
      const path = ["benchmarks", b, "items", i, "id"];
      const firstLine = source.locate(["benchmarks", b, "items", earlier, "id"]).line;
      const message = `at YAML path ${formatPath(path)}: duplicate item id '${id}' (first at items[${earlier}], line ${firstLine}); item ids must be unique within a benchmark`;
      problems.push({ ...source.locate(path), message });
    });
    return problems;
  });
}

function conditionProblems(source: SpecSource): SpecProblem[] {
  const conditions = asRecord(asRecord(source.data)?.conditions);
  const facets = asRecord(conditions?.facets);
  if (!conditions || !facets) return [];
  // Facet -> value names; undefined for a malformed facet (zod reports it), whose exclude values are not judged.
  const facetValues = new Map<string, string[] | undefined>();
  const problems: SpecProblem[] = [];
  for (const [facet, values] of Object.entries(facets)) {
    const names = Array.isArray(values) ? values.map(valueName) : [undefined];
    const complete = names.every((n) => n !== undefined);
    facetValues.set(facet, complete ? (names as string[]) : undefined);
    // Duplicates are judged by full label: {name: react, max_iterations: 3} and 10 are two conditions.
    const labels = Array.isArray(values) ? values.map(valueLabel) : [undefined];
    problems.push(...duplicateValueProblems(facet, labels, source));
  }
  const exclude = conditions.exclude;
  if (!Array.isArray(exclude)) return problems;
  // An exclude entry may also name benchmark ids (`benchmark: crows`): it then applies to those benchmarks only.
  const withBenchmarks = new Map(facetValues).set("benchmark", benchmarkIds(source));
  problems.push(...exclude.flatMap((entry, i) => excludeEntryProblems(entry, i, withBenchmarks, source)));
  const allKnown = [...facetValues.values()].every((v) => v !== undefined);
  const general = exclude.filter((entry) => !("benchmark" in (asRecord(entry) ?? {})));
  if (problems.length === 0 && allKnown) problems.push(...exclusionCoverProblems(general, facetValues, source));
  return problems;
}

/** The spec's benchmark ids (undefined when one is malformed: zod reports it). */
function benchmarkIds(source: SpecSource): string[] | undefined {
  const benchmarks = asRecord(source.data)?.benchmarks;
  if (!Array.isArray(benchmarks)) return undefined;
  const ids = benchmarks.map((b) => asRecord(b)?.id);
  return ids.every((id) => typeof id === "string") ? (ids as string[]) : undefined;
}

function duplicateValueProblems(facet: string, names: (string | undefined)[], source: SpecSource): SpecProblem[] {
  const first = new Map<string, number>();
  const problems: SpecProblem[] = [];
  names.forEach((name, i) => {
    if (name === undefined) return;
    const earlier = first.get(name);
    if (earlier === undefined) {
      first.set(name, i);
      return;
    }
    const path = ["conditions", "facets", facet, i];
    const firstLine = source.locate(["conditions", "facets", facet, earlier]).line;
    const message = `at YAML path ${formatPath(path)}: duplicate value '${name}' in facet '${facet}' (already listed on line ${firstLine}); each value names one condition`;
    problems.push({ ...source.locate(path), message });
  });
  return problems;
}

function excludeEntryProblems(
  entry: unknown,
  index: number,
  facetValues: Map<string, string[] | undefined>,
  source: SpecSource,
): SpecProblem[] {
  const record = asRecord(entry);
  if (!record) return []; // zod reports the wrong type
  const base = ["conditions", "exclude", index];
  if (Object.keys(record).length === 0) {
    const message = `at YAML path ${formatPath(base)}: an empty exclude entry matches every condition; list the facet values to exclude`;
    return [{ ...source.locate(base), message }];
  }
  return Object.entries(record).flatMap(([facet, raw]) => {
    const known = facetValues.get(facet);
    const path = [...base, facet];
    if (!facetValues.has(facet)) {
      const declared = [...facetValues.keys()];
      const hint = closest(facet, declared);
      const message = `at YAML path ${formatPath(path)}: expected a declared facet (${declared.join(", ")}), found unknown facet '${facet}'${hint ? ` (did you mean '${hint}'?)` : ""}`;
      return [{ ...source.locate(path, true), message }];
    }
    if (!known) return [];
    const values: [unknown, PathSegment[]][] = Array.isArray(raw)
      ? raw.map((v, i) => [v, [...path, i]])
      : [[raw, path]];
    return values.flatMap(([value, where]) => {
      const name = valueName(value);
      if (name === undefined || known.includes(name)) return [];
      const hint = closest(name, known);
      const message = `at YAML path ${formatPath(where)}: expected a value of facet '${facet}' (${known.join(", ")}), found '${name}'${hint ? ` (did you mean '${hint}'?)` : ""}`;
      return [{ ...source.locate(where), message }];
    });
  });
}

/** An exclusion set that removes the whole grid leaves nothing to run: almost surely a mistake. */
function exclusionCoverProblems(
  exclude: unknown[],
  facetValues: Map<string, string[] | undefined>,
  source: SpecSource,
): SpecProblem[] {
  const facets = [...facetValues.entries()].map(([f, v]) => [f, [...new Set(v)]] as [string, string[]]);
  if (exclude.length === 0 || facets.some(([, v]) => v.length === 0)) return [];
  const boxes = exclude.map((entry) => {
    const box = new Map<string, Set<string>>();
    for (const [facet, raw] of Object.entries(asRecord(entry) ?? {}))
      box.set(facet, new Set((Array.isArray(raw) ? raw : [raw]).map(valueName).filter((n) => n !== undefined)));
    return box;
  });
  if (!coversGrid(facets, boxes)) return [];
  const total = facets.reduce((n, [, v]) => n * v.length, 1);
  const path = ["conditions", "exclude"];
  const message = `at YAML path ${formatPath(path)}: the exclude entries remove all ${total} conditions of the facet grid, so nothing would run`;
  return [{ ...source.locate(path, true), message }];
}

/**
 * Whether the union of boxes (each constrains some facets to sets of values; unconstrained facets are free)
 * covers the whole grid. Splits on one constrained facet at a time, so it never enumerates the full grid.
 */
export function coversGrid(facets: [string, string[]][], boxes: Map<string, Set<string>>[]): boolean {
  if (boxes.some((box) => box.size === 0)) return true;
  const split = facets.find(([facet]) => boxes.some((box) => box.has(facet)));
  if (!split) return false; // no boxes left
  const [facet, values] = split;
  const rest = facets.filter(([f]) => f !== facet);
  return values.every((value) => {
    const remaining = boxes
      .filter((box) => !box.has(facet) || box.get(facet)!.has(value))
      .map((box) => new Map([...box].filter(([f]) => f !== facet)));
    return coversGrid(rest, remaining);
  });
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

/** The name a facet value is known by (see contracts' facetName), from raw, unvalidated data. */
function valueName(value: unknown): string | undefined {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  const name = asRecord(value)?.name;
  return typeof name === "string" ? name : undefined;
}

/** The full label of a facet value (see contracts' facetLabel), from raw, unvalidated data. */
function valueLabel(value: unknown): string | undefined {
  const record = asRecord(value);
  if (!record) return valueName(value);
  if (typeof record.name !== "string") return undefined;
  return facetLabel(record as { name: string });
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function valueAt(data: unknown, path: PathSegment[]): unknown {
  let value = data;
  for (const segment of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PathSegment, unknown>)[segment];
  }
  return value;
}

/** The keys a strict object at `path` accepts, found by walking the zod schema alongside the data path. */
function objectKeysAt(path: PathSegment[], root: SchemaLike = StudySpecSchema as unknown as SchemaLike): string[] {
  let schema: SchemaLike | undefined = root;
  for (const segment of path) {
    schema = unwrap(schema);
    const def: SchemaDef | undefined = schema?._zod.def;
    if (def?.type === "object" && typeof segment === "string") schema = def.shape?.[segment];
    else if (def?.type === "array") schema = def.element;
    else if (def?.type === "record") schema = def.valueType;
    else return [];
  }
  const def = unwrap(schema)?._zod.def;
  return def?.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

interface SchemaDef {
  type: string;
  shape?: Record<string, SchemaLike>;
  element?: SchemaLike;
  valueType?: SchemaLike;
  innerType?: SchemaLike;
}
interface SchemaLike {
  _zod: { def: SchemaDef };
}

function unwrap(schema: SchemaLike | undefined): SchemaLike | undefined {
  let current = schema;
  while (current?._zod.def.innerType) current = current._zod.def.innerType;
  return current;
}

/**
 * The candidate nearest to `word` when it looks like a typo of it (at most 2 edits, fewer for
 * short words), else the one candidate that is a whole `_` part of it (`max_rounds` -> `rounds`).
 */
export function closest(word: string, candidates: string[]): string | undefined {
  const limit = Math.min(2, Math.floor(word.length / 3) + 1);
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate ?? partOf(word, candidates);
}

/** The single candidate that equals a run of whole `_`-separated parts of `word`. */
function partOf(word: string, candidates: string[]): string | undefined {
  const padded = `_${word.toLowerCase()}_`;
  const parts = candidates.filter((c) => c.length >= 3 && padded.includes(`_${c.toLowerCase()}_`));
  return parts.length === 1 ? parts[0] : undefined;
}

/** Edit distance where swapping two adjacent letters ("modles") counts as one edit. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
