/**
 * examples/integrity-demo.yaml plants the integrity gate's few-clusters failure: its items are
 * fewer clusters than the scaffold x model interaction model's coefficients (counted here from
 * the spec's facets and models), so few_clusters fails that one test, `analyze` exits 3 and says
 * the failure is planted; every contrast against direct keeps its test.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { runCli } from "../helpers/cli.js";

const EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "integrity-demo.yaml");

test("the integrity demo's interaction test has fewer clusters than coefficients: few_clusters fails it, as planted", {
  timeout: 300_000,
}, () => {
  const spec = parse(readFileSync(EXAMPLE, "utf8"));
  const items = spec.benchmarks[0].items.length;
  const scaffolds = spec.conditions.facets.scaffold.length;
  const models = spec.models.length;
  const formats = spec.conditions.facets.format.length;
  // outcome ~ scaffold + model + format + scaffold:model, intercept included.
  const coefficients = 1 + (scaffolds - 1) + (models - 1) + (formats - 1) + (scaffolds - 1) * (models - 1);
  assert.ok(items <= coefficients, `${items} items for ${coefficients} coefficients`);

  const out = join(mkdtempSync(join(tmpdir(), "parallax-integrity-demo-")), "run");
  const run = runCli(["run", EXAMPLE, "--out", out]);
  assert.equal(run.status, 0, run.stderr);
  const analyze = runCli(["analyze", out]);
  assert.equal(analyze.status, 3, analyze.stderr);
  assert.match(analyze.stderr, /Failed: few_clusters \(planted\)\./);
  const record = JSON.parse(readFileSync(join(out, "analysis.json"), "utf8")).analysis;
  const interaction = record.hypotheses.interactions.find((i: { with: string }) => i.with === "model");
  assert.equal(interaction.notInterpretable, `${items} clusters for ${coefficients} coefficients`);
  for (const group of record.contrasts.itt.byFormat)
    for (const c of group.pooled.contrasts)
      assert.ok(!c.notInterpretable, `${group.format} ${c.condition}: ${c.verdict}`);
});
