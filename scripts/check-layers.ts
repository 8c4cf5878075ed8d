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
 * It also refuses import cycles (in practice inside one layer, since the rank order forbids
 * them across layers). A cycle means one module of it runs while another's exports are still
 * uninitialised, and the two can no longer be understood apart. Only imports that run when the
 * module loads count: `import type` / `export type` are erased by the compiler, and a dynamic
 * `import()` runs after both modules have loaded, so neither can create that hazard.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

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
  return [...files.flatMap((file) => checkFile(root, file)), ...findCycles(root, files)];
}

interface Edge {
  to: string;
  line: number;
  specifier: string;
}

/** One violation per import cycle, at the import that starts it from its first file (sorted). */
export function findCycles(root: string, files: readonly string[]): LayerViolation[] {
  const known = new Set(files);
  const graph = new Map<string, Edge[]>();
  for (const file of files) {
    const edges = loadTimeImportsOf(readFileSync(file, "utf8"))
      .filter(({ specifier }) => specifier.startsWith("."))
      .map(({ specifier, line }) => ({ specifier, line, to: sourceFileOf(resolve(dirname(file), specifier)) }))
      .filter((edge) => known.has(edge.to));
    graph.set(file, edges);
  }
  return stronglyConnected(files, graph)
    .filter((component) => component.length > 1 || graph.get(component[0])!.some((e) => e.to === component[0]))
    .map((component) => cycleViolation(root, component, graph))
    .sort((a, b) => a.file.localeCompare(b.file));
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
