/**
 * Every `assert.ok` in the tests carries a message: a bare one fails with "The expression
 * evaluated to a falsy value", which says nothing of what was expected.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";
import ts from "typescript";

const testsDir = resolve(import.meta.dirname, "..");

function testSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "fixtures" ? [] : testSources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** `file:line` of each `assert.ok(x)` called with its value alone. */
export function bareAssertOks(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.arguments.length < 2 &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "ok" &&
      node.expression.expression.getText(source) === "assert"
    ) {
      found.push(`${fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("the check finds a bare assert.ok and passes one with a message", () => {
  const text = 'assert.ok(rows.length > 0);\nassert.ok(done, "the run finished");\n';
  assert.deepEqual(bareAssertOks("x.ts", text), ["x.ts:1"]);
});

test("every assert.ok in tests/ carries a message", () => {
  const bare = testSources(testsDir).flatMap((file) =>
    bareAssertOks(relative(resolve(testsDir, ".."), file), readFileSync(file, "utf8")),
  );
  assert.deepEqual(bare, [], `assert.ok without a message at:\n${bare.join("\n")}`);
});
