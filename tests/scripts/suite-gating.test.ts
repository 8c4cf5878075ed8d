/**
 * A suite that needs something of the machine gates through describeNeeding
 * (tests/helpers/prerequisites.ts), never `describe(name, { skip }, ...)`: node:test counts a
 * skipped suite as one skip whatever it holds, and its hooks from node:test still run.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";

const testsDir = resolve(import.meta.dirname, "..");

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "fixtures" ? [] : testFiles(path);
    return path.endsWith(".test.ts") ? [path] : [];
  });
}

/** `file:line` of each suite given a `skip` option. */
export function skippedSuites(fileName: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) =>
      /^\s*describe\((?:"[^"]*"|`[^`]*`|'[^']*'), \{[^}]*\bskip\b/.test(line) ? [`${fileName}:${i + 1}`] : [],
    );
}

test("the check finds a suite gated with its own skip option, and not describeNeeding", () => {
  assert.deepEqual(skippedSuites("a.ts", 'describe("x", { skip: reason }, () => {});'), ["a.ts:1"]);
  assert.deepEqual(skippedSuites("a.ts", "describe(`y n`, { skip }, () => {});"), ["a.ts:1"]);
  assert.deepEqual(skippedSuites("a.ts", 'describeNeeding(reason, "x", () => {});'), []);
  assert.deepEqual(skippedSuites("a.ts", 'it("x", { skip: reason }, () => {});'), []);
});

test("no test file gates a suite with describe({ skip })", () => {
  const found = testFiles(testsDir).flatMap((path) =>
    skippedSuites(relative(testsDir, path), readFileSync(path, "utf8")),
  );
  assert.deepEqual(found, [], `gate these through describeNeeding: ${found.join(", ")}`);
});
