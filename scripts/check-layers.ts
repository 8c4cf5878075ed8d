/**
 * Checks that imports in src/ flow one way along the layer map of docs (DESIGN.md):
 *
 *   contracts -> stats -> core -> datasets | models | scaffolds | scoring | perturb -> facets
 *     -> run -> analysis -> report -> cli | viewer
 *
 * A file may import from its own layer and from layers of a lower rank; layers that share a rank
 * are independent plugins and may not import each other. src/index.ts is the public barrel and may
 * import anything. Usage: npm run check:layers (exit 1 and a list of violations on failure).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
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
  facets: 4,
  run: 5,
  analysis: 6,
  report: 7,
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
  return listTsFiles(root).flatMap((file) => checkFile(root, file));
}

/** The one-line report of a violation. */
export function formatViolation(v: LayerViolation): string {
  return v.specifier ? `${v.file}:${v.line}: import "${v.specifier}": ${v.reason}` : `${v.file}: ${v.reason}`;
}

function checkFile(root: string, file: string): LayerViolation[] {
  const display = join(relative(dirname(root), root), relative(root, file))
    .split(sep)
    .join("/");
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
