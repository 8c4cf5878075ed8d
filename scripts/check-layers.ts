/**
 * Checks that imports in src/ flow one way along the layer map of docs (DESIGN.md):
 *
 *   contracts -> stats -> core -> datasets | models | scaffolds | scoring | perturb -> facets
 *     -> run -> analysis -> report -> cli | viewer
 *
 * A file may import from its own layer and from layers of a lower rank; layers that share a rank
 * are independent plugins and may not import each other. src/index.ts is the public barrel and may
 * import anything. Usage: npm run check:layers (exit 1 and a list of violations on failure).
 *
 * Inside a layer, study-kind folders (STUDY_KIND_AREAS: src/analysis/comparison, grid, audit,
 * agents, and the report's sections and cards that mirror them) hold one study kind each. A file
 * of a kind imports its own kind and the shared core (the rest of the layer, and lower layers),
 * never another kind, anywhere in src/; the core of an area imports none of its kind folders,
 * except the area's index files that list every kind (the registry index, the public barrel).
 *
 * It also refuses import cycles (in practice inside one layer, since the rank order forbids
 * them across layers). A cycle means one module of it runs while another's exports are still
 * uninitialised, and the two can no longer be understood apart. Imports that run when the
 * module loads make an "import cycle"; a cycle that closes only through `import type` /
 * `export type` (erased by the compiler, so no load-order hazard) is still refused as a
 * "type-level import cycle": its modules cannot be understood apart either. A dynamic `import()`
 * runs after both modules have loaded and is how a registry loads its plugins lazily, so it
 * never counts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { STUDY_KINDS } from "../src/contracts/study-kind.js";

/** Layer -> rank. Higher ranks may import lower ones. */
export const LAYER_RANK: Readonly<Record<string, number>> = {
  contracts: 0,
  stats: 1,
  core: 2,
  datasets: 3,
  models: 3,
  scaffolds: 3,
  scoring: 3,
  perturb: 3,
  tools: 3,
  facets: 4,
  run: 5,
  analysis: 6,
  report: 7,
  interop: 7,
  cli: 8,
  viewer: 8,
};

/** Same-rank imports that are allowed, as "from->to". The CLI's `view` command starts the viewer. */
const SAME_RANK_ALLOWED = new Set(["cli->viewer"]);

/** Files directly under src/ that sit above every layer. */
const TOP_LEVEL_FILES = new Set(["index.ts"]);

/** An area of a layer split by study kind: its kind folders and the core files that may import them all. */
export interface StudyKindArea {
  /** Path under src/, e.g. `analysis`. */
  area: string;
  /** Its folders, one per study kind; every other file of the area is its shared core. */
  kinds: readonly string[];
  /** Core files (relative to the area) that list every kind and so may import the kind folders. */
  indexes: readonly string[];
  /** Each kind is one file, `<kind>.ts` directly in the area, instead of a folder. */
  kindFiles?: boolean;
}

export const STUDY_KIND_AREAS: readonly StudyKindArea[] = [
  // all-analyses.ts is the registry index (it imports every registered analysis, in output
  // order); index.ts is the layer's public barrel.
  { area: "analysis", kinds: STUDY_KINDS, indexes: ["all-analyses.ts", "index.ts"] },
  // index.ts imports every section (cards: every card renderer) in page order.
  { area: "report/sections", kinds: STUDY_KINDS, indexes: ["index.ts"] },
  { area: "report/cards", kinds: STUDY_KINDS, indexes: ["index.ts"] },
  // Each kind's sections of the analysis plan; src/contracts/analysis.ts composes them.
  { area: "contracts/analysis", kinds: STUDY_KINDS, indexes: [], kindFiles: true },
];

/**
 * Imports from one study kind into another that are allowed, as "from->to" (kind names), each
 * with the reason. None is needed today: what two kinds share lives in the core.
 */
const KIND_EDGES_ALLOWED: ReadonlyMap<string, string> = new Map();

/**
 * A folder of src/ laid out by stage: its top level holds only the listed files (its public
 * index) and the listed folders, so a new module joins the stage it belongs to.
 */
export interface StagedArea {
  /** Path under src/, e.g. `run`. */
  area: string;
  files: readonly string[];
  folders: readonly string[];
}

export const STAGED_AREAS: readonly StagedArea[] = [
  // The run layer follows the pipeline: prepare the study, plan its trials, execute them, score
  // and judge them, sequential looks, export the tables; the store under all of them.
  {
    area: "run",
    files: ["index.ts"],
    folders: ["prepare", "plan", "execute", "score", "sequential", "export", "store"],
  },
  // The analysis layer: its shared core, the analyses every study runs, the integrity gate, the
  // condition analyses the comparison and the grid share, the across-studies commands, and one
  // folder per study kind; all-analyses.ts is the registry index, index.ts the public barrel.
  {
    area: "analysis",
    files: ["index.ts", "all-analyses.ts"],
    folders: ["core", "every-study", "integrity", "conditions", "across-studies", ...STUDY_KINDS],
  },
];

export interface LayerViolation {
  /** Path relative to the checked src directory's parent, e.g. `src/core/x.ts`. */
  file: string;
  line: number;
  specifier: string;
  reason: string;
}

/** Checks every .ts file under `srcDir`; returns the violations (empty when the layering holds). */
export function checkLayers(srcDir: string): LayerViolation[] {
  const root = resolve(srcDir);
  const files = listTsFiles(root);
  return [
    ...files.flatMap((file) => [...checkFile(root, file), ...checkStudyKinds(root, file), ...checkStage(root, file)]),
    ...findCycles(root, files),
  ];
}

/** A file of a staged area outside its stages and index files. */
function checkStage(root: string, file: string): LayerViolation[] {
  const path = relative(root, file).split(sep).join("/");
  for (const staged of STAGED_AREAS) {
    if (!path.startsWith(`${staged.area}/`)) continue;
    const rest = path.slice(staged.area.length + 1).split("/");
    const allowed = rest.length === 1 ? staged.files.includes(rest[0]) : staged.folders.includes(rest[0]);
    if (allowed) return [];
    const reason =
      `src/${staged.area}/ holds only ${staged.files.join(", ")} and its stage folders ` +
      `(${staged.folders.join(", ")}): move this file into the stage it belongs to`;
    return [{ file: displayName(root, file), line: 1, specifier: "", reason }];
  }
  return [];
}

/** Where a file sits among the study-kind areas: its area and kind (null: the area's core). */
export function studyKindOf(root: string, file: string): { area: StudyKindArea; kind: string | null } | undefined {
  const path = relative(root, file).split(sep).join("/");
  for (const area of STUDY_KIND_AREAS) {
    if (!path.startsWith(`${area.area}/`)) continue;
    const rest = path.slice(area.area.length + 1).split("/");
    const head = rest.length > 1 ? rest[0] : area.kindFiles ? rest[0].replace(/\.[jt]s$/, "") : undefined;
    return { area, kind: head !== undefined && area.kinds.includes(head) ? head : null };
  }
  return undefined;
}

/** The study-kind rules for one file's relative imports (static and dynamic). */
function checkStudyKinds(root: string, file: string): LayerViolation[] {
  const from = studyKindOf(root, file);
  return importsOf(readFileSync(file, "utf8")).flatMap(({ specifier, line }) => {
    if (!specifier.startsWith(".")) return [];
    const to = studyKindOf(root, resolve(dirname(file), specifier));
    if (!to?.kind) return [];
    const reason = kindViolation(root, file, from, to as { area: StudyKindArea; kind: string });
    return reason ? [{ file: displayName(root, file), line, specifier, reason }] : [];
  });
}

/** Why a file may not import a file of study kind `to.kind`, or undefined when it may. */
function kindViolation(
  root: string,
  file: string,
  from: { area: StudyKindArea; kind: string | null } | undefined,
  to: { area: StudyKindArea; kind: string },
): string | undefined {
  if (from?.kind) {
    if (from.kind === to.kind || KIND_EDGES_ALLOWED.has(`${from.kind}->${to.kind}`)) return undefined;
    return `study kind ${from.kind} may not import study kind ${to.kind} (${kindPath(to)}); move what both need to the core`;
  }
  if (from?.area !== to.area) return undefined; // another area's core (e.g. report core) is checked by its own area
  const local = relative(join(root, from.area.area), file).split(sep).join("/");
  if (from.area.indexes.includes(local)) return undefined;
  const listers =
    from.area.indexes.length > 0
      ? `only ${from.area.indexes.join(", ")} list every kind`
      : "no file of it lists every kind";
  return `the ${from.area.area} core may not import its study-kind ${to.area.kindFiles ? "file" : "folder"} ${kindPath(to).slice(from.area.area.length + 1)} (${listers})`;
}

/** A study kind's folder (`analysis/grid/`) or file (`contracts/analysis/grid.ts`). */
function kindPath(to: { area: StudyKindArea; kind: string }): string {
  return `${to.area.area}/${to.kind}${to.area.kindFiles ? ".ts" : "/"}`;
}

interface Edge {
  to: string;
  line: number;
  specifier: string;
}

/**
 * One violation per import cycle, at the import that starts it from its first file (sorted):
 * cycles of load-time imports, then the cycles that close only through type-only imports.
 */
export function findCycles(root: string, files: readonly string[]): LayerViolation[] {
  const texts = new Map(files.map((file) => [file, readFileSync(file, "utf8")]));
  const loadTime = cyclesOf(
    root,
    files,
    importGraph(files, (file) => loadTimeImportsOf(texts.get(file)!)),
  );
  const inLoadTimeCycle = new Set(loadTime.flatMap((c) => c.members));
  const typeLevel = cyclesOf(
    root,
    files,
    importGraph(files, (file) => staticImportsOf(texts.get(file)!)),
  ).filter((c) => !c.members.some((member) => inLoadTimeCycle.has(member)));
  return [
    ...loadTime.map((c) => c.violation),
    ...typeLevel.map((c) => ({ ...c.violation, reason: `type-level ${c.violation.reason}` })),
  ].sort((a, b) => a.file.localeCompare(b.file));
}

/** The import graph over `files`, by the imports `importsIn` reads from each. */
function importGraph(
  files: readonly string[],
  importsIn: (file: string) => { specifier: string; line: number }[],
): Map<string, Edge[]> {
  const known = new Set(files);
  const graph = new Map<string, Edge[]>();
  for (const file of files) {
    const edges = importsIn(file)
      .filter(({ specifier }) => specifier.startsWith("."))
      .map(({ specifier, line }) => ({ specifier, line, to: sourceFileOf(resolve(dirname(file), specifier)) }))
      .filter((edge) => known.has(edge.to));
    graph.set(file, edges);
  }
  return graph;
}

/** The cycles of a graph: each strongly connected component that loops, with its members and violation. */
function cyclesOf(
  root: string,
  files: readonly string[],
  graph: Map<string, Edge[]>,
): { members: string[]; violation: LayerViolation }[] {
  return stronglyConnected(files, graph)
    .filter((component) => component.length > 1 || graph.get(component[0])!.some((e) => e.to === component[0]))
    .map((component) => ({ members: component, violation: cycleViolation(root, component, graph) }));
}

/** `./x.js` names the source file x.ts (or x.tsx). */
function sourceFileOf(path: string): string {
  const base = path.replace(/\.js$/, "");
  for (const candidate of [`${base}.ts`, `${base}.tsx`, path]) if (existsSync(candidate)) return candidate;
  return path;
}

/** Reports one cycle inside a strongly connected component: the shortest path from its first file back to it. */
function cycleViolation(root: string, component: string[], graph: Map<string, Edge[]>): LayerViolation {
  const members = new Set(component);
  const start = [...component].sort()[0];
  // Breadth-first from start's imports until one leads back to start.
  const via = new Map<string, { from: string; edge: Edge }>();
  const queue: string[] = [start];
  let closing: { from: string; edge: Edge } | undefined;
  while (queue.length > 0 && !closing) {
    const node = queue.shift()!;
    for (const edge of graph.get(node)!) {
      if (!members.has(edge.to)) continue;
      if (edge.to === start) {
        closing = { from: node, edge };
        break;
      }
      if (!via.has(edge.to)) {
        via.set(edge.to, { from: node, edge });
        queue.push(edge.to);
      }
    }
  }
  const path = [start];
  for (let node = closing!.from; node !== start; node = via.get(node)!.from) path.splice(1, 0, node);
  const first = path.length > 1 ? via.get(path[1])!.edge : closing!.edge;
  const names = [...path, start].map((file) => displayName(root, file));
  return {
    file: names[0],
    line: first.line,
    specifier: first.specifier,
    reason: `import cycle: ${names.join(" -> ")}`,
  };
}

/** Tarjan's algorithm: the strongly connected components of the import graph. */
function stronglyConnected(nodes: readonly string[], graph: Map<string, Edge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const { to } of graph.get(node)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return components;
}

/** The one-line report of a violation. */
export function formatViolation(v: LayerViolation): string {
  return v.specifier ? `${v.file}:${v.line}: import "${v.specifier}": ${v.reason}` : `${v.file}: ${v.reason}`;
}

/** `src/core/x.ts`: the path from the checked directory's parent, with forward slashes. */
function displayName(root: string, file: string): string {
  return join(relative(dirname(root), root), relative(root, file))
    .split(sep)
    .join("/");
}

function checkFile(root: string, file: string): LayerViolation[] {
  const display = displayName(root, file);
  const from = layerOf(root, file);
  if (from === "top") return [];
  if (from === undefined)
    return [{ file: display, line: 1, specifier: "", reason: `not in a known layer (${knownLayers()})` }];
  const text = readFileSync(file, "utf8");
  return importsOf(text).flatMap(({ specifier, line }) => {
    if (!specifier.startsWith(".")) return []; // packages and node: builtins are not layers
    const target = resolve(dirname(file), specifier);
    const to = layerOf(root, target);
    const reason = violation(from, to, target.startsWith(root + sep));
    return reason ? [{ file: display, line, specifier, reason }] : [];
  });
}

/** Why importing layer `to` from layer `from` is not allowed, or undefined when it is. */
function violation(from: string, to: string | undefined, insideSrc: boolean): string | undefined {
  if (!insideSrc) return `${from} imports a file outside src/`;
  if (to === "top") return `${from} imports the top-level barrel src/index.ts; import the module itself`;
  if (to === undefined) return `imports a file that is not in a known layer (${knownLayers()})`;
  if (to === from) return undefined;
  const [rankFrom, rankTo] = [LAYER_RANK[from], LAYER_RANK[to]];
  if (rankTo < rankFrom) return undefined;
  if (rankTo === rankFrom && SAME_RANK_ALLOWED.has(`${from}->${to}`)) return undefined;
  if (rankTo === rankFrom) return `${from} may not import ${to}: layers of the same rank stay independent`;
  return `${from} may not import ${to}, a layer to its right (${from} < ${to})`;
}

/** "top" for the barrel, the layer name for files in a layer folder, undefined otherwise. */
function layerOf(root: string, file: string): string | undefined {
  const parts = relative(root, file).split(sep);
  if (parts.length === 1) return TOP_LEVEL_FILES.has(parts[0].replace(/\.js$/, ".ts")) ? "top" : undefined;
  return parts[0] in LAYER_RANK ? parts[0] : undefined;
}

/** Static imports, `export ... from` and dynamic `import("...")`, with 1-based lines; comments and strings are skipped. */
export function importsOf(text: string): { specifier: string; line: number }[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const lineOf = (pos: number) => text.slice(0, pos).split("\n").length;
  return importedFiles.map((ref) => ({ specifier: ref.fileName, line: lineOf(ref.pos) }));
}

/**
 * The imports that run when the module loads: static imports, re-exports and side-effect
 * imports, without `import type` / `export type` (also `import { type A, type B }`: every
 * name type-only) and without dynamic `import()`.
 */
export function loadTimeImportsOf(text: string): { specifier: string; line: number }[] {
  const source = ts.createSourceFile("module.ts", text, ts.ScriptTarget.Latest, false);
  const out: { specifier: string; line: number }[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement) && !isTypeOnlyImport(statement)) specifier = statement.moduleSpecifier;
    if (ts.isExportDeclaration(statement) && !isTypeOnlyExport(statement)) specifier = statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier)) {
      const line = source.getLineAndCharacterOfPosition(specifier.getStart(source)).line + 1;
      out.push({ specifier: specifier.text, line });
    }
  }
  return out;
}

/** Every static import and re-export, type-only ones included (no dynamic `import()`), with 1-based lines. */
export function staticImportsOf(text: string): { specifier: string; line: number }[] {
  const source = ts.createSourceFile("module.ts", text, ts.ScriptTarget.Latest, false);
  const out: { specifier: string; line: number }[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier)) {
      const line = source.getLineAndCharacterOfPosition(specifier.getStart(source)).line + 1;
      out.push({ specifier: specifier.text, line });
    }
  }
  return out;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // import "./side-effect.js"
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((e) => e.isTypeOnly)
  );
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((e) => e.isTypeOnly)
  );
}

function listTsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listTsFiles(path);
      return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
    });
}

function knownLayers(): string {
  return Object.keys(LAYER_RANK).join(", ");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const srcDir = process.argv[2] ?? fileURLToPath(new URL("../src", import.meta.url));
  const violations = checkLayers(srcDir);
  for (const v of violations) console.error(formatViolation(v));
  if (violations.length > 0) {
    console.error(`${violations.length} layer violation(s); the layer order is at the top of scripts/check-layers.ts`);
    process.exit(1);
  }
  console.log(`layers ok: ${srcDir}`);
}
