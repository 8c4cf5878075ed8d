/**
 * The perturbation audit's archetype and trivial baseline declared on a spec's benchmark entry
 * (an inline benchmark, which no loader describes): the spec's declaration reaches the audit's
 * facts, and the baseline is computed with the declared kind on the run's items.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { studyAuditFacts } from "../../src/analysis/core/audit-facts.js";
import { loadSpec } from "../../src/core/spec-loader.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";

const ITEMS = 8;
// BBQ-like: three options, the gold answer "unknown" (index 2) on six items of eight.
const GOLD = [2, 2, 2, 0, 2, 2, 1, 2];

function writeSpec(declare: string): { specPath: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), "parallax-archetype-"));
  const specPath = join(dir, "spec.yaml");
  const items = GOLD.map(
    (g, i) =>
      `      - { id: q${i + 1}, stem: "Person ${i + 1} and a neighbour were at the park. Who was careless?", ` +
      `options: ["The person", "The neighbour", "Cannot be determined"], gold_index: ${g} }`,
  ).join("\n");
  writeFileSync(
    specPath,
    `study: archetype-test
seed: 5
models:
  - { id: sim, provider: sim, model: medium }
benchmarks:
  - id: bbq_like
    loader: inline
${declare}    items:
${items}
conditions:
  facets:
    format: [mc]
    perturbation: [none, whitespace_noise]
analysis:
  comparison_facet: perturbation
  reference: { perturbation: none }
  specification_curve: false
execution: { concurrency: 2, max_retries: 0 }
`,
  );
  return { specPath, outDir: join(dir, "out") };
}

async function factsOf(declare: string) {
  const spec = writeSpec(declare);
  await runStudy({ specPath: spec.specPath, outDir: spec.outDir, env: {} });
  const store = await openStore(spec.outDir);
  try {
    const run = (await store.getRun())!;
    const facts = await studyAuditFacts(spec.outDir, store, run);
    assert.ok(facts && !("unavailable" in facts), "the audit facts are available");
    return facts.benchmarks.bbq_like;
  } finally {
    await store.close();
  }
}

describe("archetype and trivial baseline declared on an inline benchmark", () => {
  let declared: Awaited<ReturnType<typeof factsOf>>;
  let loaderDefault: Awaited<ReturnType<typeof factsOf>>;
  before(async () => {
    declared = await factsOf("    archetype: invariance\n    baseline: majority\n");
    loaderDefault = await factsOf("");
  });

  test("the spec's archetype and baseline kind win over the inline loader's", () => {
    assert.equal(declared.archetype, "invariance", "the declared archetype");
    assert.equal(declared.archetypeSource, "spec", "it comes from the spec");
    assert.equal(declared.baselineKind, "majority", "the declared baseline kind");
    const majority = GOLD.filter((g) => g === 2).length / ITEMS;
    assert.equal(declared.baseline, majority, "the majority-class share of the run's items");
  });

  test("without a declaration the loader's apply (inline: diagnostic, uniform 1/k)", () => {
    assert.equal(loaderDefault.archetype, "diagnostic", "the inline loader's archetype");
    assert.equal(loaderDefault.archetypeSource, "loader", "it comes from the loader");
    assert.equal(loaderDefault.baselineKind, "uniform", "the inline loader's baseline");
    assert.ok(Math.abs((loaderDefault.baseline ?? 0) - 1 / 3) < 1e-12, "1/k over three options");
  });

  test("the spec schema refuses an archetype that is not one of the three", () => {
    const spec = writeSpec("    archetype: fair\n");
    assert.throws(() => loadSpec(spec.specPath), /archetype/, "an unknown archetype is refused");
  });
});
