/**
 * The commands `run` prints in its results line work as printed: `parallax status` and
 * `parallax export` of the study directory, and of a SQLite file given to `--store`; a
 * PostgreSQL store is printed as a URL (without its password) that names the same database.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePostgresUrl, storeArgument } from "../../src/run/store/url.js";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";

/** The words of a printed command line (single-quoted words unquoted, as a POSIX shell does). */
function shellWords(line: string): string[] {
  const words = line.match(/'(?:[^']|'\\'')*'|\S+/g) ?? [];
  return words.map((word) => (word.startsWith("'") ? word.slice(1, -1).replaceAll("'\\''", "'") : word));
}

function printedCommands(stdout: string): string[][] {
  // One line "(status; export)", or, where the paths make that too wide, on lines of their own.
  const hint = /(parallax status [^;\n]+)(?:; |\n\s+)(parallax export [^)\n]+)/.exec(stdout);
  assert.ok(hint, `the results line names the commands: ${stdout}`);
  return [hint[1], hint[2]].map((line) => shellWords(line).slice(1));
}

describe("printed hints", () => {
  it("run's status and export commands work as printed, for a study directory and a --store file", () => {
    for (const store of [false, true]) {
      const { specPath, outDir, dir } = writeDemoSpec({ items: 2 });
      const args = ["run", specPath, "--out", outDir, ...(store ? ["--store", `${dir}/trials store.db`] : [])];
      const run = runCli(args);
      assert.equal(run.status, 0, run.stderr);
      for (const command of printedCommands(run.stdout)) {
        const result = runCli(command);
        assert.equal(result.status, 0, `parallax ${command.join(" ")}: ${result.stderr}`);
        assert.ok(result.stdout.length > 0, `parallax ${command[0]} printed something`);
      }
    }
  });

  it("prints a PostgreSQL store as a URL without its password that names the same database", () => {
    const url = "postgres://ana:s3cret@db.lab.example:6543/studies?schema=run_a";
    const printed = shellWords(storeArgument(url));
    assert.equal(printed.length, 1);
    assert.doesNotMatch(printed[0], /s3cret/);
    const [given, shown] = [parsePostgresUrl(url), parsePostgresUrl(printed[0])];
    assert.deepEqual(
      [shown.host, shown.port, shown.database, shown.schema, shown.description],
      [given.host, given.port, given.database, given.schema, given.description],
    );
  });
});
