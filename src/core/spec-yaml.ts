/**
 * A spec file read and parsed as YAML once, and the mapping from a data path (`models[1].params`)
 * back to where it stands in the source (line and column), which every spec problem is reported at.
 */
import type { Document, EmptyStream, Node } from "yaml";
import { mebibytes, readBoundedText, UnreadablePathError } from "./guarded-read.js";
import { InputError } from "./errors.js";
import { quickYamlMapping } from "./yaml-data.js";
import { yamlLibrary } from "./yaml-library.js";
import { describeValue, type PathSegment, SpecError, type SpecProblem } from "./spec-problems.js";

export type { PathSegment } from "./spec-problems.js";

/**
 * A spec file read once and parsed as YAML once. Loading plugins, validating against the
 * schema and the registries, and locating later warnings all reuse it: parsing the YAML is
 * most of what loading a spec costs, and `plan` and `run` should start fast. The data comes from
 * the quick parse (src/core/yaml-data.ts); the located parse, which maps data paths back to lines
 * and columns, runs only when a problem is reported, or when the quick parse declines the text.
 */
export interface SpecFile {
  /** The path as given: messages name the file this way. */
  path: string;
  text: string;
  /** The document's data located in the source, or why the text is not one YAML mapping. */
  yaml: SpecSource | { problems: SpecProblem[] };
}

/** Reads and parses a spec file (no validation yet); an unreadable file is an InputError. */
export function readSpecFile(path: string): SpecFile {
  return parseSpecFile(readSpecText(path), path);
}

/**
 * The located source of spec text that parses as YAML (for checks in higher layers that report
 * problems at file:line:col). Throws SpecError when the text is not one YAML mapping.
 */
export function specSource(text: string, fileName: string): SpecSource {
  return locatedSource(parseSpecFile(text, fileName));
}

/** The located source of a spec file; throws SpecError when the file is not one YAML mapping. */
export function locatedSource(file: SpecFile): SpecSource {
  if ("problems" in file.yaml) throw new SpecError(file.path, file.yaml.problems);
  return file.yaml;
}

/** A spec holds settings and at most a few inline items; a benchmark's data belongs in its source file. */
export const SPEC_FILE_LIMIT = { bytes: mebibytes(16), what: "a spec file (move large item lists into a source file)" };

function readSpecText(path: string): string {
  try {
    return readBoundedText(path, SPEC_FILE_LIMIT).replace(/^\uFEFF/, "");
  } catch (error) {
    if (!(error instanceof UnreadablePathError)) throw error;
    throw new InputError(`cannot read the spec file ${path}: ${error.reason}`);
  }
}

const EXPECTED_TOP = "expected a YAML mapping with the keys study, models, benchmarks and conditions";

export interface Position {
  line: number;
  col: number;
}

/** A parsed spec document: its plain data, plus a way back from a data path to the source. */
export interface SpecSource {
  data: unknown;
  /** Position of the value at `path` (or of its key with `atKey`); the deepest existing parent if it is missing. */
  locate(path: PathSegment[], atKey?: boolean): Position;
  /** Whether `path` exists in the data. */
  has(path: PathSegment[]): boolean;
}

/** Parses spec text read from `path` (which only labels messages). */
export function parseSpecFile(text: string, path: string): SpecFile {
  const data = quickYamlMapping(text);
  if (data === undefined) return { path, text, yaml: readYaml(locatedParse(text)) };
  let located: LocatedParse | undefined;
  return { path, text, yaml: sourceOf(data, () => (located ??= locatedParse(text))) };
}

/** The `yaml` library's parse: slower, but it keeps every node's position and explains errors. */
interface LocatedParse {
  documents: Document.Parsed[] | EmptyStream;
  position(offset: number): Position;
}

function locatedParse(text: string): LocatedParse {
  const { LineCounter, parseAllDocuments } = yamlLibrary();
  const lines = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter: lines });
  return { documents, position: (offset) => ({ ...lines.linePos(offset) }) };
}

function readYaml(parse: LocatedParse): SpecSource | { problems: SpecProblem[] } {
  const { documents: docs, position: pos } = parse;
  const { isMap, isScalar } = yamlLibrary();
  if (docs.length === 0) return { problems: [{ line: 1, col: 1, message: `the spec file is empty; ${EXPECTED_TOP}` }] };

  const problems = docs.flatMap((doc) => doc.errors.map((e) => syntaxProblem(e.message, pos(e.pos[0]))));
  if (docs.length > 1) {
    const message = `found ${docs.length} YAML documents (separated by '---'); a spec file holds exactly one`;
    problems.push({ ...pos(docs[1].range[0]), message });
  }
  if (problems.length > 0) return { problems };

  const root = docs[0].contents;
  if (root === null || (isScalar(root) && root.value === null))
    return { problems: [{ line: 1, col: 1, message: `the spec file has no content; ${EXPECTED_TOP}` }] };
  if (!isMap(root)) {
    const message = `${EXPECTED_TOP}, found ${describeValue(root.toJSON())}`;
    return { problems: [{ ...pos(root.range[0]), message }] };
  }
  let data: unknown;
  try {
    data = docs[0].toJS();
  } catch (error) {
    return { problems: [{ line: 1, col: 1, message: `cannot read the YAML document: ${(error as Error).message}` }] };
  }
  return sourceOf(data, () => parse);
}

/** Data with its way back to the source; `located` is called only when a position is asked for. */
function sourceOf(data: unknown, located: () => LocatedParse): SpecSource {
  const walkTo = (path: PathSegment[]) => {
    const { documents, position } = located();
    const doc = documents[0];
    const root = doc?.contents;
    const found: { node?: Node; key?: Node; missing: number } = root ? walk(doc, root, path) : { missing: path.length };
    return { ...found, position };
  };
  return {
    data,
    has: (path) => walkTo(path).missing === 0,
    locate(path, atKey = false) {
      const { node, key, position } = walkTo(path);
      return position((atKey && key ? key : node)?.range?.[0] ?? 0);
    },
  };
}

/** Follows a data path through YAML nodes as far as it exists. */
function walk(doc: Document, root: Node, path: PathSegment[]): { node: Node; key?: Node; missing: number } {
  const { isAlias } = yamlLibrary();
  let node = root;
  let key: Node | undefined;
  for (const [depth, segment] of path.entries()) {
    const target = isAlias(node) ? (node.resolve(doc) ?? node) : node;
    const next = childOf(target, segment);
    if (!next) return { node, key, missing: path.length - depth };
    key = next.key;
    // `key:` with no value has no value node: point at the key.
    node = next.value ?? next.key;
  }
  return { node, key, missing: 0 };
}

function childOf(node: Node, segment: PathSegment): { key: Node; value: Node | null } | undefined {
  const { isMap, isScalar, isSeq } = yamlLibrary();
  if (isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
    return pair ? { key: pair.key as Node, value: (pair.value as Node | null) ?? null } : undefined;
  }
  if (isSeq(node) && typeof segment === "number") {
    const item = node.items[segment] as Node | undefined;
    return item ? { key: item, value: item } : undefined;
  }
  return undefined;
}

function syntaxProblem(message: string, at: Position): SpecProblem {
  // yaml's message is "<what> at line L, column C:\n\n<excerpt>"; the location moves to the prefix.
  const [what, excerpt = ""] = message.split(/ at line \d+, column \d+:\n/);
  const context = excerpt.replace(/^\n+/, "").trimEnd().replace(/^/gm, "    ");
  return { ...at, message: `YAML syntax error: ${what}${context ? `\n${context}` : ""}` };
}
