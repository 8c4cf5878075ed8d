/**
 * The case of issue #8: a quickstart copy with `scaffold: [direct, cott]` and
 * `system_prompt: [strict, stricter]` used to run and leave 216 errored trials. `plan` and `run`
 * now refuse it at load (exit 2), naming both values with their locations and the known values,
 * and write nothing.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../helpers/cli.js";

const QUICKSTART = join(import.meta.dirname, "..", "..", "examples", "quickstart.yaml");
const ORIGINAL_FACETS = "    scaffold: [direct, map_reduce, map_reduce_options]\n";

function writeTypoSpec(): { specPath: string; outDir: string; text: string } {
  const quickstart = readFileSync(QUICKSTART, "utf8");
  assert.ok(quickstart.includes(ORIGINAL_FACETS), "the quickstart still lists its scaffolds on one line");
  const text = quickstart.replace(
    ORIGINAL_FACETS,
    "    scaffold: [direct, cott]\n    system_prompt: [strict, stricter]\n",
  );
  const dir = mkdtempSync(join(tmpdir(), "parallax-facets-"));
  const specPath = join(dir, "quickstart-copy.yaml");
  writeFileSync(specPath, text);
  return { specPath, outDir: join(dir, "out"), text };
}

/** file:line:col of the first occurrence of `value` in `text` (1-based, as the loader reports). */
function locationOf(text: string, value: string): string {
  const lines = text.split("\n");
  const line = lines.findIndex((l) => new RegExp(`\\b${value}\\b`).test(l));
  assert.ok(line >= 0, `${value} is in the spec`);
  return `${line + 1}:${lines[line].search(new RegExp(`\\b${value}\\b`)) + 1}`;
}

test("plan and run refuse unknown scaffold and system_prompt values at load, exit 2, writing nothing", () => {
  const { specPath, outDir, text } = writeTypoSpec();
  for (const args of [
    ["plan", specPath],
    ["run", specPath, "--out", outDir],
  ]) {
    const result = runCli(args);
    assert.equal(result.status, 2, `${args[0]}: ${result.stderr}`);
    assert.equal(result.stdout, "", `${args[0]} prints no plan or progress`);
    assert.match(result.stderr, /invalid study spec .*quickstart-copy\.yaml \(2 problems\):/);
    const cott = `quickstart-copy.yaml:${locationOf(text, "cott")}: at YAML path conditions.facets.scaffold[1]: unknown scaffold 'cott' (did you mean 'cot'?); known: adjudicated, agent_react, cot, critic, direct, invocation_chain, map_reduce, map_reduce_options, planner_actor_rater, planner_executor, react`;
    const stricter = `quickstart-copy.yaml:${locationOf(text, "stricter")}: at YAML path conditions.facets.system_prompt[1]: unknown system_prompt 'stricter' (did you mean 'strict'?); known: strict, soft, none`;
    assert.ok(result.stderr.includes(cott), `${args[0]} names cott:\n${result.stderr}`);
    assert.ok(result.stderr.includes(stricter), `${args[0]} names stricter:\n${result.stderr}`);
  }
  assert.equal(existsSync(outDir), false, "run writes no study directory");
});
