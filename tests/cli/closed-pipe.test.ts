/**
 * `parallax COMMAND | head`: when the reader closes the pipe, every command ends quietly with
 * exit code 0 (no EPIPE stack trace).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";

const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

/**
 * Runs the command with its standard output a pipe whose reading end is closed at once, before
 * the command writes anything, so its first write fails with EPIPE.
 */
function runIntoClosedPipe(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

let specPath = "";
let outDir = "";
before(() => {
  ({ specPath, outDir } = writeDemoSpec({ items: 40, attempts: 2 }));
  const run = runCli(["run", specPath, "--out", outDir]);
  assert.equal(run.status, 0, run.stderr);
});

describe("a closed output pipe", () => {
  const commands: Array<[string, () => string[]]> = [
    ["export", () => ["export", outDir]],
    ["export --table calls --format jsonl", () => ["export", outDir, "--table", "calls", "--format", "jsonl"]],
    ["status", () => ["status", outDir]],
    ["analyze", () => ["analyze", outDir]],
    ["plan", () => ["plan", specPath]],
    ["items", () => ["items", "--spec", specPath, "demo"]],
  ];
  for (const [name, args] of commands) {
    test(`ends ${name} quietly with exit 0`, async () => {
      const result = await runIntoClosedPipe(args());
      assert.equal(result.status, 0, result.stderr);
      assert.doesNotMatch(result.stderr, /EPIPE|Error/);
    });
  }
  test("does not hide a real error (exit 2 stays exit 2)", async () => {
    const result = await runIntoClosedPipe(["status", join(outDir, "missing")]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /not a study directory/);
  });
});
