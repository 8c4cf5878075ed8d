/**
 * An imported benchmark's perturbation-audit archetype and trivial baseline, declared in the
 * import mapping (`benchmark_audit`), land on the imported spec's benchmark entry, where the audit
 * reads them as it reads a spec's own declaration.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ImportMappingSchema } from "../../src/interop/mapping.js";
import { prepareImport } from "../../src/interop/study.js";
import type { ImportedLog } from "../../src/interop/types.js";

function log(benchmark: string): ImportedLog {
  return {
    file: `${benchmark}.jsonl`,
    framework: "lm-eval",
    model: "demo-model",
    benchmark,
    header: {},
    generation: {},
    scorers: ["acc"],
    samples: Array.from({ length: 4 }, (_, i) => ({
      entry: `line ${i + 1}`,
      item: `item-${i}`,
      attempt: 1,
      input: null,
      target: ["A"],
      choices: null,
      messages: [],
      output: null,
      scores: [{ scorer: "acc", value: i % 2, answer: null, explanation: null }],
      usage: null,
      latencyMs: null,
      error: null,
    })),
    notes: [],
  };
}

test("the mapping's benchmark_audit sets an imported benchmark's archetype and baseline", () => {
  const mapping = ImportMappingSchema.parse({
    benchmark_audit: { bbq_like: { archetype: "invariance", baseline: "majority" } },
  });
  const prepared = prepareImport("lm-eval", [log("bbq_like"), log("other")], mapping, new Date("2026-01-01"));
  const entry = (id: string) => prepared.run.spec.benchmarks.find((b) => b.id === id)!;
  assert.equal(entry("bbq_like").archetype, "invariance", "the declared archetype is on the spec entry");
  assert.equal(entry("bbq_like").baseline, "majority", "the declared baseline is on the spec entry");
  assert.equal(entry("other").archetype, undefined, "an undeclared benchmark has none");
  assert.throws(
    () => ImportMappingSchema.parse({ benchmark_audit: { x: { archetype: "fair" } } }),
    /invalid|archetype|enum/i,
    "an unknown archetype is refused",
  );
});
