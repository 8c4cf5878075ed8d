/**
 * compare's viewer links: the pair path encodes each trial id, the command quotes a path the shell
 * would split or expand, and the overview puts each path first so that clipping a long line never
 * cuts it. The command round-trips through a real shell (`sh -c`) to the two paths.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import {
  type Comparison,
  compareSettings,
  formatComparison,
  normalizePlan,
  pairPath,
  pairViewerCommand,
  withViewerLinks,
} from "../../src/analysis/index.js";

describe("compare's viewer links", () => {
  it("encodes trial ids in the pair path", () => {
    assert.equal(pairPath("abc123", "def456"), "/pair?a=abc123&b=def456");
    assert.equal(pairPath("a&b=c", "x y"), "/pair?a=a%26b%3Dc&b=x%20y");
    const url = new URL(pairPath("a&b=c", "x y"), "http://127.0.0.1:1/");
    assert.deepEqual([url.searchParams.get("a"), url.searchParams.get("b")], ["a&b=c", "x y"]);
  });

  it("quotes paths so a shell reads the command back as the two paths", () => {
    for (const [a, b] of [
      ["runs/a", "/tmp/b-2"],
      ["my runs/a b", "it's $HOME; `x`"],
    ]) {
      const command = pairViewerCommand(a, b);
      const words = execFileSync("sh", ["-c", `printf '%s\\n' ${command.replace(/^parallax /, "")}`], {
        encoding: "utf8",
      });
      assert.deepEqual(words.split("\n").slice(0, 4), ["view", a, "--with", b], command);
    }
    assert.equal(pairViewerCommand("runs/a", "runs/b"), "parallax view runs/a --with runs/b");
  });

  it("links each flipped item with trials on both sides, and keeps the path whole in a clipped overview", () => {
    const long = "a-model-with-a-very-long-name-that-fills-the-line";
    const comparison: Comparison = {
      a: "runs/a",
      b: "runs/b",
      settings: compareSettings(normalizePlan(undefined)),
      pairs: [],
      flipped: [
        {
          model: long,
          condition: "scaffold=map_reduce_options perturbation=case_change",
          benchmark: "truthfulqa",
          item: "q001",
          rateA: 1,
          rateB: 0,
          trialsA: ["aaaaaaaaaaaaaaaaaaaaaaaa"],
          trialsB: ["bbbbbbbbbbbbbbbbbbbbbbbb"],
        },
        { model: "m", condition: "-", benchmark: "b", item: "q2", rateA: 0, rateB: 1, trialsA: [], trialsB: ["x"] },
      ],
      unmatchedA: [],
      unmatchedB: [],
    };
    const linked = withViewerLinks(comparison);
    assert.equal(linked.flipped[0].view, "/pair?a=aaaaaaaaaaaaaaaaaaaaaaaa&b=bbbbbbbbbbbbbbbbbbbbbbbb");
    assert.equal(linked.flipped[1].view, undefined, "no trial id in A: no path");
    const text = formatComparison(linked);
    assert.match(text, /^Side by side: run `parallax view runs\/a --with runs\/b` and open each path below\.$/m);
    const line = text.split("\n").find((l) => l.includes("/pair?"))!;
    assert.ok(line.length <= 120, `within 120 columns: ${line}`);
    assert.ok(line.startsWith(`  ${linked.flipped[0].view}  ${long}`), line);
    assert.ok(!formatComparison(comparison).includes("Side by side"), "no viewer line without links");
  });
});
