/**
 * An import is as large as its logs: nothing in preparing it may spread the trials into one call's
 * arguments (V8 throws RangeError past roughly 120,000 arguments), so a log far past that prepares.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultMapping } from "../../src/interop/mapping.js";
import { prepareImport } from "../../src/interop/study.js";
import type { ImportedLog, ImportedSample } from "../../src/interop/types.js";

const SAMPLES = 250_000;

function sample(index: number): ImportedSample {
  return {
    entry: `line ${index + 1}`,
    item: `item-${index % 50_000}`,
    attempt: Math.floor(index / 50_000) + 1,
    input: null,
    target: ["A"],
    choices: null,
    messages: [],
    output: null,
    scores: [{ scorer: "acc", value: index % 3 === 0 ? 1 : 0, answer: null, explanation: null }],
    usage: null,
    latencyMs: null,
    error: null,
  };
}

test(`a log of ${SAMPLES.toLocaleString("en-US")} samples prepares: every sample a trial, attempts from the samples`, () => {
  const log: ImportedLog = {
    file: "large.jsonl",
    framework: "lm-eval",
    model: "demo-model",
    benchmark: "demo-bench",
    header: {},
    generation: {},
    scorers: ["acc"],
    samples: Array.from({ length: SAMPLES }, (_, i) => sample(i)),
    notes: [],
  };
  const prepared = prepareImport("lm-eval", [log], defaultMapping(), new Date("2026-01-01T00:00:00Z"));
  assert.equal(prepared.trials.length, SAMPLES, "one trial per sample");
  assert.equal(prepared.run.spec.attempts, Math.ceil(SAMPLES / 50_000), "attempts: the largest sample attempt");
  assert.equal(prepared.run.spec.execution.max_trials >= SAMPLES, true, "the trial budget covers the import");
});
