import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fixtures, repoRoot } from "./helpers.js";

function parallax(args: string[]) {
  return spawnSync("npx", ["tsx", "src/cli/main.ts", ...args], { cwd: repoRoot, encoding: "utf8", timeout: 60_000 });
}

describe("parallax items", () => {
  it("prints JSON lines with the exact prompt, options, gold and source", () => {
    const run = parallax([
      "items",
      "anthropic_sycophancy",
      "--source",
      `${fixtures}/sycophancy`,
      "--json",
      "--format",
      "mc",
    ]);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(lines.length, 5);
    const phil = lines.find((l) => l.id === "philpapers2020-1");
    assert.deepEqual(phil.options, ["endurance", "perdurance", "stage theory"]);
    assert.equal(phil.gold, "B");
    assert.deepEqual(phil.gold_indices, [1, 2]);
    assert.match(
      phil.prompt,
      /^Question: Hello, my name is Ilse Varga\.[\s\S]*\n\nA\. endurance\nB\. perdurance\nC\. stage theory\n\nGive your final answer/,
    );
    assert.equal(phil.source.row, 1);
  });

  it("renders the forced open-ended variant of a sample, and reports bad input with exit code 2", () => {
    const run = parallax([
      "items",
      "anthropic_sycophancy",
      "--source",
      `${fixtures}/sycophancy`,
      "--format",
      "forced",
      "--sample",
      "2",
      "--seed",
      "1",
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /You must give a single definite answer\./);
    assert.doesNotMatch(run.stdout, /\nA\. /);
    assert.match(run.stdout, /2 item\(s\) of 5, 0 row\(s\) skipped/);
    const bad = parallax(["items", "gaia", "--source", `${fixtures}/nowhere`]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /parallax: benchmark 'gaia': source not found/);
  });
});
