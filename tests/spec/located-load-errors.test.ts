/**
 * Spec errors found while loading carry FILE:LINE:COL too: a missing local source (relative to
 * the spec's folder) is reported at its `source` key with the path tried, and an unknown loader
 * name is reported with the schema's problems (a missing source), not only after they are fixed.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "parallax-located-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function specWith(name: string, benchmark: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      "study: located",
      "seed: 1",
      "models:",
      "  - id: m",
      "    provider: sim",
      "    model: medium",
      "benchmarks:",
      benchmark,
      "conditions:",
      "  facets:",
      "    format: [mc]",
      "",
    ].join("\n"),
  );
  return path;
}

describe("located load errors", () => {
  it("a missing source: FILE:LINE:COL at the source, with the path resolved against the spec's folder", () => {
    const path = specWith("missing.yaml", "  - id: b\n    loader: bbq\n    source: data/nowhere");
    const plan = runCli(["plan", path]);
    assert.equal(plan.status, 2, plan.stderr);
    assert.match(
      plan.stderr,
      new RegExp(
        `${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:10:13: at YAML path benchmarks\\[0\\]\\.source: source not found: ${join(dir, "data", "nowhere").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`,
      ),
    );
  });

  it("an unknown loader without a source: both problems, each located", () => {
    const path = specWith("unknown.yaml", "  - id: b\n    loader: bbqq");
    const plan = runCli(["plan", path]);
    assert.equal(plan.status, 2, plan.stderr);
    assert.match(plan.stderr, /\(2 problems\)/);
    assert.match(
      plan.stderr,
      /unknown\.yaml:8:5: at YAML path benchmarks\[0\]\.source: a benchmark with a loader needs a source/,
    );
    assert.match(
      plan.stderr,
      /unknown\.yaml:9:13: at YAML path benchmarks\[0\]\.loader: unknown dataset loader 'bbqq' \(did you mean 'bbq'\?\)/,
    );
  });
});
