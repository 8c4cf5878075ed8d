/**
 * The integrity checks run, and appear in analysis.json, in the order the integrity index lists
 * them, whichever module a process loads first: only the index imports a check's module, so the
 * built bundle and the unbundled modules (whose load orders differ) register them alike.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
// Loaded before the index on purpose: it uses what the cluster checks share with the analyses.
import "../../../src/analysis/across-studies/compare.js";
import { integrityChecks } from "../../../src/analysis/integrity/index.js";

const SRC = resolve(import.meta.dirname, "../../../src");
const INTEGRITY = join(SRC, "analysis/integrity");
const INDEX = join(INTEGRITY, "index.ts");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The source files a module imports (relative specifiers, .js written for .ts). */
function importsOf(file: string): string[] {
  const specifiers = [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s+"(\.{1,2}\/[^"]+)"/g)];
  return specifiers.map((m) => resolve(dirname(file), m[1].replace(/\.js$/, ".ts")));
}

/** Each check module's registered name: a literal, or a constant exported beside the checks. */
function registeredName(file: string): string | undefined {
  const name = /registerIntegrityCheck\(\{\s*name:\s*(?:"([^"]+)"|([A-Z_]+))/.exec(readFileSync(file, "utf8"));
  if (!name) return undefined;
  if (name[1] !== undefined) return name[1];
  const constant = new RegExp(`export const ${name[2]} = "([^"]+)"`);
  return sourceFiles(INTEGRITY)
    .map((f) => constant.exec(readFileSync(f, "utf8"))?.[1])
    .find((value) => value !== undefined);
}

describe("integrity checks' registration order", () => {
  const checkModules = sourceFiles(INTEGRITY).filter((f) => registeredName(f) !== undefined);

  it("only the integrity index imports a check's module", () => {
    assert.ok(checkModules.length >= 10, `found ${checkModules.length} check modules`);
    const importers = sourceFiles(SRC)
      .filter((file) => file !== INDEX)
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => checkModules.includes(target))
          .map((target) => `${relative(SRC, file)} imports ${relative(SRC, target)}`),
      );
    assert.deepEqual(importers, []);
  });

  it("registers the checks in the index's order after another module loaded first", () => {
    const listed = importsOf(INDEX)
      .map(registeredName)
      .filter((name): name is string => name !== undefined);
    assert.equal(listed.length, checkModules.length, "the index lists every check module");
    assert.deepEqual(
      integrityChecks().map((c) => c.name),
      listed,
    );
  });
});
