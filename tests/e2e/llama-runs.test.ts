/**
 * Every scaffold on the real llama.cpp path (stories260K through runStudy, one model load for
 * the file). The model's answers are nonsense, so each trial must finish with a recorded parse
 * failure rather than an answer, and transcripts must still have the expected roles.
 * Skipped with a message when the shared model is absent.
 */
import assert from "node:assert/strict";
import { sharedModel, skipReason } from "../helpers/llama-model.js";
import {
  expectedRoles,
  itemsYaml,
  runAndRead,
  type StudyResult,
  scaffoldOf,
  settingsOf,
} from "../scaffolds/helpers.js";
import { before, describeNeeding, test } from "../helpers/prerequisites.js";

const MODEL = "stories260K.gguf";
const skip = skipReason(MODEL);

// Small settings keep the tiny model fast: few turns, rounds and chunks, short replies.
const FACETS = [
  "direct",
  "cot",
  "{name: react, max_iterations: 2}",
  "{name: critic, rounds: 1}",
  "{name: map_reduce, chunks: 2}",
  "{name: map_reduce_options, chunks: 2}",
  "{name: invocation_chain, intensity: minimal}",
  "adjudicated",
];

describeNeeding(skip, "scaffolds on the llama provider (stories260K)", () => {
  let study: StudyResult;
  before(async () => {
    const models = `  - id: stories
    provider: llama
    model: ${sharedModel(MODEL)}
    params: { max_tokens: 12 }
    options: { context_size: 2048, threads: 1 }`;
    study = await runAndRead({
      models,
      facets: `    scaffold: [${FACETS.join(", ")}]\n    format: [mc]`,
      items: itemsYaml(1),
      concurrency: 1,
    });
  });

  test("every scaffold finishes with a recorded parse failure, not an answer", () => {
    assert.equal(study.trials.length, FACETS.length);
    for (const trial of study.trials) {
      assert.equal(trial.status, "finished", `${scaffoldOf(trial)}: ${trial.outcome?.errorMessage}`);
      assert.equal(trial.outcome?.parseStatus, "failed", `${scaffoldOf(trial)}: ${trial.outcome?.finalAnswer}`);
      assert.equal(trial.outcome?.score, 0);
    }
  });

  test("transcripts have the expected roles, loops run to their limits", () => {
    for (const trial of study.trials) {
      const calls = study.callsOf(trial.id);
      assert.deepEqual(
        calls.map((c) => c.role),
        expectedRoles(scaffoldOf(trial), settingsOf(trial), calls),
        scaffoldOf(trial),
      );
      assert.ok(
        calls.every((c) => c.responseText !== null && c.paramsUsed.maxTokens === 12),
        "expected calls.every((c) => c.responseText !== null && c.paramsUsed.maxTokens === 12)",
      );
    }
    const roles = (name: string) =>
      study.callsOf(study.trials.find((t) => scaffoldOf(t) === name)!.id).map((c) => c.role);
    // Nonsense never gives a final answer or an approval, so the loops use every turn and round.
    assert.deepEqual(roles("react"), ["step-1", "step-2", "final"]);
    assert.deepEqual(roles("critic"), ["answer", "critique-1", "revise-1"]);
    const decompose = study.callsOf(study.trials.find((t) => scaffoldOf(t) === "map_reduce")!.id)[0];
    assert.equal(decompose.role, "decompose");
    assert.ok(decompose.note && typeof decompose.note.parsed === "number", "the parsed decomposition is recorded");
  });

  test("the audit is stored for llama calls too", () => {
    const maps = study.calls.filter((c) => /^map-/.test(c.role));
    assert.ok(maps.length >= 2, "expected maps.length >= 2");
    const byTrial = new Map(study.trials.map((t) => [t.id, scaffoldOf(t)]));
    for (const call of maps) {
      assert.equal(call.audit?.options_reached, byTrial.get(call.trialId) === "map_reduce_options");
    }
  });
});
