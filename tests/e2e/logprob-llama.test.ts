/**
 * Log-prob scoring on the real llama.cpp path (stories260K): a study with scoring_path logprob
 * runs one continuationLogprobs call per item (role "logprob"), and every option log-likelihood
 * equals the sum of per-token log-probabilities computed independently (node-llama-cpp directly,
 * one pass from scratch), over all of the option's tokens: nothing truncated, nothing -Infinity.
 * Skipped with a message when the shared model is absent.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Token } from "node-llama-cpp";
import type { CallRecord } from "../../src/contracts/trial.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openScoringContext, rescoreStudy } from "../../src/run/score/index.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow } from "../../src/run/store/types.js";
import { decodeRaw } from "../../src/scoring/logprob-common.js";
import { type LlamaReference, openLlamaReference, sharedModel, skipReason } from "../helpers/llama-model.js";
import { after, before, describeNeeding, test } from "../helpers/prerequisites.js";

const MODEL = "stories260K.gguf";
const modelPath = sharedModel(MODEL) ?? "";

const openReference = (): Promise<LlamaReference> => openLlamaReference(modelPath, 512);

/** log p(continuation | prompt) from scratch: one pass over BOS + tokens(prompt + continuation). */
async function referenceLogLikelihood(
  ref: LlamaReference,
  prompt: string,
  continuation: string,
): Promise<{ total: number; tokens: number }> {
  const bos = ref.model.tokens.bos!;
  const promptTokens = [bos, ...ref.model.tokenize(prompt)];
  const full = [bos, ...ref.model.tokenize(prompt + continuation)];
  let boundary = 0;
  while (boundary < promptTokens.length && promptTokens[boundary] === full[boundary]) boundary++;
  await ref.sequence.clearHistory();
  const want = { generateNext: { probabilities: true } } as const;
  const results = await ref.sequence.controlledEvaluate(full.map((t) => [t, want] as [Token, typeof want]));
  let total = 0;
  for (let j = boundary; j < full.length; j++) {
    const distribution = results[j - 1]?.next.probabilities;
    assert.ok(distribution, `no distribution at ${j - 1}`);
    let sum = 0;
    for (const p of distribution.values()) sum += p;
    total += Math.log(distribution.get(full[j])!) - Math.log(sum);
  }
  return { total, tokens: full.length - boundary };
}

function spec(outFacets: string): string {
  return `study: logprob-llama
models:
  - id: stories
    provider: llama
    model: ${modelPath}
    options: { context_size: 512, threads: 1 }
benchmarks:
  - id: demo
    loader: inline
    items:
      - id: q1
        stem: Which animal did the little girl find in the garden?
        options: [a small brown dog, a big red ball, a very old tree that was standing near the river bank]
        gold_index: 0
      - id: q2
        stem: What did Tim like to eat?
        options: [apples, cake with cream, nothing]
        gold_index: 1
  - id: crows
    loader: inline
    items:
      - id: c1
        stem: Which of these two sentences is more likely to be true?
        options: [The girl played with her dog., The boy played with his dog.]
        metadata: { sent_more_index: 0 }
conditions:
  facets:
${outFacets}
execution: { concurrency: 1 }
`;
}

describeNeeding(skipReason(MODEL), "log-prob scoring on stories260K", () => {
  let ref: LlamaReference;
  let outDir: string;
  let trials: TrialRow[];
  let calls: CallRecord[];

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-logprob-"));
    const specPath = join(dir, "study.yaml");
    writeFileSync(specPath, spec("    format: [mc]\n    scoring_path: [logprob]"));
    outDir = join(dir, "out");
    const result = await runStudy({ specPath, outDir, env: {} });
    assert.equal(result.counts.finished, 3, JSON.stringify(result.summary));
    const store = await openStore(outDir);
    const run = (await store.getRun())!;
    trials = await store.listTrials(run.id);
    calls = await store.listCalls(run.id);
    await store.close();
    ref = await openReference();
  });

  after(async () => {
    await ref?.dispose();
  });

  test("one log-prob call per item, recorded with role 'logprob' and the raw log-probabilities", () => {
    assert.equal(calls.length, 3);
    assert.ok(
      calls.every((c) => c.role === "logprob" && c.error === null && c.note?.logprob),
      'expected calls.every((c) => c.role === "logprob" && c.error === null && c.note?.logprob)',
    );
    assert.ok(
      trials.every((t) => t.outcome?.parseStatus === "ok" && /^[A-C]$/.test(t.outcome.parsedAnswer ?? "")),
      'expected trials.every((t) => t.outcome?.parseStatus === "ok" && /^[A-C]$/.test(t.outcome.parsedA...',
    );
    const mc = trials.find((t) => t.itemId === "q1")!;
    assert.match(mc.outcome!.scorer!, /^logprob_options@/);
    assert.match(trials.find((t) => t.itemId === "c1")!.outcome!.scorer!, /^crows_pll@/);
  });

  test("option log-likelihoods equal independently computed token sums, over every token, all finite", async () => {
    for (const call of calls) {
      const prompt = call.messages[0].content;
      const raw = decodeRaw(call.note!.logprob);
      for (const c of raw.continuations) {
        const expected = await referenceLogLikelihood(ref, prompt, c.continuation);
        const sum = c.tokens.reduce((s, t) => s + t.logprob, 0);
        assert.ok(Number.isFinite(sum), `${c.continuation}: ${sum}`);
        assert.equal(c.tokens.length, expected.tokens, `${c.continuation}: every token scored (no truncation)`);
        assert.ok(Math.abs(sum - expected.total) < 1e-6, `${c.continuation}: ${sum} vs ${expected.total}`);
      }
    }
  });

  test("details report both argmaxes and the chosen option is the text argmax", () => {
    const call = calls.find((c) => (c.note?.score_details as { options?: unknown[] } | null)?.options?.length === 3)!;
    const details = call.note!.score_details as {
      argmax_text: string;
      argmax_letter: string;
      options: { letter: string; text_ll: number; letter_ll: number }[];
    };
    const best = details.options.reduce((a, b) => (b.text_ll > a.text_ll ? b : a));
    assert.equal(details.argmax_text, best.letter);
    assert.match(details.argmax_letter, /^[A-C]$/);
    assert.ok(
      details.options.every((o) => Number.isFinite(o.text_ll) && Number.isFinite(o.letter_ll)),
      "expected details.options.every((o) => Number.isFinite(o.text_ll) && Number.isFinite(o.letter_ll))",
    );
  });

  test("re-scoring from the stored log-probabilities needs no model call", async () => {
    const context = await openScoringContext(outDir);
    try {
      const result = await rescoreStudy(context, "logprob_options");
      // The CrowS pair's stored call scored its two sentences, not option letters: not applicable.
      assert.equal(result.scored, 2);
      assert.equal(result.notApplicable, 1);
      const scores = await context.store.listScores(context.run.id, { scorer: "logprob_options" });
      assert.equal(scores.length, 2);
      assert.ok(
        scores.every((s) => s.parseStatus === "ok" && s.details !== null),
        'expected scores.every((s) => s.parseStatus === "ok" && s.details !== null)',
      );
    } finally {
      await context.store.close();
    }
  });
});
