/**
 * docs/ARCHITECTURE.md is true to the tree: every src/, tests/, docs/, scripts/ and bench/ path
 * it names exists (a path with a placeholder, `<kind>` or `*`, must have its fixed part), and no
 * table cell runs past ~600 characters.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";

const ROOT = resolve(import.meta.dirname, "..", "..");
const DOC = readFileSync(join(ROOT, "docs", "ARCHITECTURE.md"), "utf8");

/** Each path the document names, as written, with the trailing punctuation of its sentence dropped. */
export function namedPaths(text: string): string[] {
  const found = text.match(/(?<![\w./-])(?:src|tests|docs|scripts|bench)\/[\w./<>*{},-]*/g) ?? [];
  return [...new Set(found.map((p) => p.replace(/[.,]+$/, "")))];
}

/** The part of a path before its first placeholder (`<kind>`, `*`, `{a,b}`, `NNNN`), without a partial name. */
export function fixedPart(path: string): string {
  const cut = path.search(/[<*{]|NNNN/);
  if (cut < 0) return path;
  return path.slice(0, path.lastIndexOf("/", cut) + 1);
}

describe("docs/ARCHITECTURE.md names only paths that exist", () => {
  it("finds paths in the document (the extraction works)", () => {
    assert.deepEqual(namedPaths("see `src/a.ts`, tests/b/ and docs/C.md."), ["src/a.ts", "tests/b/", "docs/C.md"]);
    assert.equal(fixedPart("src/analysis/<kind>/<name>-analysis.ts"), "src/analysis/");
    assert.equal(fixedPart("tests/**/*.test.ts"), "tests/");
    assert.ok(namedPaths(DOC).length > 50, `expected the document to name many paths, got ${namedPaths(DOC).length}`);
  });

  it("every named path exists", () => {
    const missing = namedPaths(DOC).filter((p) => !existsSync(join(ROOT, fixedPart(p))));
    assert.deepEqual(missing, [], `paths named in docs/ARCHITECTURE.md that do not exist: ${missing.join(", ")}`);
  });

  it("no table cell is longer than 600 characters", () => {
    const long = DOC.split("\n")
      .filter((line) => line.startsWith("|"))
      .flatMap((line) => line.split(" | "))
      .filter((cell) => cell.length > 600)
      .map((cell) => `${cell.slice(0, 60)}... (${cell.length})`);
    assert.deepEqual(long, [], `cells over 600 characters: ${long.join("; ")}`);
  });
});
