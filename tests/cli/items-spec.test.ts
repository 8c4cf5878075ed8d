/**
 * `parallax items --spec SPEC BENCHMARK_ID` previews any benchmark of a spec as `run` loads it:
 * inline items, a plugin loader's items, the spec's sample, and a clear error for an unknown id.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

const PLUGIN_SPEC = resolve(import.meta.dirname, "..", "fixtures", "external-plugin", "study.yaml");

const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { id: string; format: string; prompt: string; gold: string | null });

describe("items --spec", () => {
  test("previews an inline benchmark, in the format asked, gold letters from the spec", () => {
    const { specPath } = writeDemoSpec({ items: 4 });
    const result = runCli(["items", "--spec", specPath, "demo", "--json"]);
    assert.equal(result.status, 0, result.stderr);
    const items = jsonLines(result.stdout);
    assert.deepEqual(
      items.map((i) => i.id),
      ["q001", "q002", "q003", "q004"],
    );
    // demo items: gold at k mod 4 -> B, C, D, A
    assert.deepEqual(
      items.map((i) => i.gold),
      ["B", "C", "D", "A"],
    );
    assert.match(items[0].prompt, /Demo question number 1/);
    const oe = jsonLines(runCli(["items", "--spec", specPath, "demo", "--json", "--format", "oe"]).stdout);
    assert.deepEqual(new Set(oe.map((i) => i.format)), new Set(["oe"]));
    assert.equal(oe[0].gold, "beta 1");
  });

  test("uses the spec's sample, and --sample overrides it", () => {
    const dir = writeDemoSpec({ items: 10 });
    writeFileSync(
      dir.specPath,
      demoSpecYaml({ items: 10 }).replace(
        "    loader: inline\n",
        "    loader: inline\n    sample: { n: 3, seed: 5 }\n",
      ),
    );
    const spec = runCli(["items", "--spec", dir.specPath, "demo", "--json"]);
    assert.equal(spec.status, 0, spec.stderr);
    assert.equal(jsonLines(spec.stdout).length, 3);
    const override = runCli(["items", "--spec", dir.specPath, "demo", "--json", "--sample", "6"]);
    assert.equal(jsonLines(override.stdout).length, 6);
  });

  test("previews a plugin loader's benchmark, with its source relative to the spec", () => {
    const result = runCli(["items", "--spec", PLUGIN_SPEC, "riddles", "--json"]);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(
      jsonLines(result.stdout).map((i) => i.id),
      ["r1", "r2", "r3", "r4"],
    );
  });

  test("an unknown benchmark id, or --source with --spec, is exit 2 naming what is known", () => {
    const { specPath } = writeDemoSpec({ items: 2 });
    const unknown = runCli(["items", "--spec", specPath, "dmeo"]);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no benchmark 'dmeo'; the spec's benchmarks: demo/);
    const both = runCli(["items", "--spec", specPath, "demo", "--source", join(specPath, "..")]);
    assert.equal(both.status, 2);
    const neither = runCli(["items", "demo"]);
    assert.equal(neither.status, 2);
    assert.match(neither.stderr, /needs --source PATH .* or --spec SPEC/);
  });
});
