/**
 * The simulated panel recognises scaffold sub-calls only by the markers the scaffolds declare
 * (passed in by the run layer), so a scaffold's wording lives in one place.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import type { ModelSpec } from "../../src/contracts/spec.js";
import type { TaskInput } from "../../src/contracts/task.js";
import { simProvider } from "../../src/models/sim.js";
import { collectCallMarkers, phraseMarker } from "../../src/scaffolds/call-markers.js";
import { decompositionRequest, mapReduceScaffold } from "../../src/scaffolds/map-reduce.js";
import { registeredCallMarkers } from "../../src/scaffolds/registry.js";
import { scaffoldSettings } from "../../src/scaffolds/settings.js";
import type { Scaffold } from "../../src/scaffolds/types.js";

const ITEM: Item = {
  id: "q1",
  benchmark: "b",
  stem: "Which gate of the old city faces the river?",
  options: ["North gate", "South gate", "East gate"],
  goldIndex: 1,
  metadata: {},
};
const TASK: TaskInput = {
  itemId: "q1",
  benchmark: "b",
  format: "mc",
  question: ITEM.stem,
  options: ITEM.options,
  validLetters: ["A", "B", "C"],
  answerInstruction: 'Answer with "Answer: X".',
  condition: { scaffold: "map_reduce" },
};
const SPEC: ModelSpec = { id: "sim-strong", provider: "sim", model: "strong" } as ModelSpec;

async function reply(markers: boolean, content: string): Promise<string> {
  const provider = simProvider(SPEC, {});
  provider.observeItems?.([ITEM]);
  if (markers) provider.observeCallMarkers?.(registeredCallMarkers());
  const result = await provider.generate({
    model: "strong",
    messages: [{ role: "user", content }],
    params: { temperature: 0 },
  });
  return result.text;
}

describe("sim call markers come from the scaffolds", () => {
  test("a decomposition request is planned as sub-tasks only when the scaffolds' markers are given", async () => {
    const request = decompositionRequest(TASK, 3);
    assert.match(await reply(true, request), /^Here is how the work can be split:\n1\. /);
    assert.match(await reply(false, request), /Answer: [A-C]/);
  });

  test("phrase markers match the phrase literally in any case; line-start markers only at a line start", () => {
    assert.match("x\nsub-task: y", phraseMarker("Sub-task:", { lineStart: true }));
    assert.doesNotMatch("see Sub-task: y", phraseMarker("Sub-task:", { lineStart: true }));
    assert.match("costs $3 (approx.)", phraseMarker("$3 (APPROX.)"));
    assert.doesNotMatch("costs 3 approx", phraseMarker("$3 (approx.)"));
  });

  test("markers of every scaffold are collected by kind; a variant's identical patterns count once", () => {
    const extra: Scaffold = {
      name: "plugin_checker",
      expectedCalls: () => 1,
      run: async () => ({ finalText: "" }),
      callMarkers: { check: phraseMarker("You audit answers.") },
      settingsSchema: scaffoldSettings(),
    };
    const markers = collectCallMarkers([mapReduceScaffold("a", false), mapReduceScaffold("b", true), extra]);
    assert.equal(markers.decompose?.length, 1);
    assert.equal(markers.check?.length, 1);
    assert.equal(markers.critique, undefined);
    const all = registeredCallMarkers();
    for (const kind of ["decompose", "map", "reduce", "critique", "revise", "react", "chain", "check", "adjudicate"]) {
      assert.ok((all[kind as keyof typeof all]?.length ?? 0) > 0, kind);
    }
  });
});
