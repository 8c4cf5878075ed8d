/**
 * Each loader's own metadata chooses its trials' scorers and judge rubric. The table is the
 * choice made before loaders described themselves (by loader name in the scoring registry and
 * the run layer), so the move changed no trial's scorer.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { datasetLoaders } from "../../src/datasets/registry.js";
import { judgeRubrics, rubricFor } from "../../src/scoring/judge/rubrics.js";
import { defaultScorerName, scorers } from "../../src/scoring/registry.js";

/** loader -> [MC free-form, open-ended free-form, log-prob path, judge rubric or null]. */
const EXPECTED: Record<string, [string, string, string, string | null]> = {
  inline: ["mc_last_answer", "exact_answer", "logprob_options", "factual_oe"],
  truthfulqa_mc1: ["mc_last_answer", "exact_answer", "logprob_options", "truthfulqa_oe"],
  truthfulqa_mc2: ["mc_last_answer", "exact_answer", "logprob_options", "truthfulqa_oe"],
  truthfulqa_gen: ["mc_last_answer", "exact_answer", "logprob_options", "truthfulqa_oe"],
  bbq: ["mc_last_answer", "exact_answer", "logprob_options", "bbq_oe"],
  xstest: ["mc_last_answer", "refusal_pattern", "logprob_refusal", "compliance"],
  or_bench: ["mc_last_answer", "refusal_pattern", "logprob_refusal", "compliance"],
  anthropic_sycophancy: ["mc_last_answer", "exact_answer", "logprob_options", "sycophancy_oe"],
  anthropic_self_awareness: ["mc_last_answer", "exact_answer", "logprob_options", "factual_oe"],
  mmlu: ["mc_last_answer", "exact_answer", "logprob_options", "factual_oe"],
  toxigen: ["mc_last_answer", "exact_answer", "logprob_first_token", "factual_oe"],
  crows_pairs: ["mc_last_answer", "exact_answer", "crows_pll", "factual_oe"],
  gaia: ["mc_last_answer", "gaia_exact", "logprob_options", null],
};

describe("loader metadata chooses scorers and rubrics", () => {
  test("every built-in loader is in the table", () => {
    assert.deepEqual(datasetLoaders.names(), Object.keys(EXPECTED).sort());
  });

  for (const [loader, [mc, open, logprob, rubric]] of Object.entries(EXPECTED)) {
    test(`${loader}: ${mc} / ${open} / ${logprob}, rubric ${rubric}`, () => {
      const { meta } = datasetLoaders.get(loader);
      const choose = (format: string, scoringPath: string) =>
        defaultScorerName({ defaults: meta.scorers, format, scoringPath });
      assert.equal(choose("mc", "free_form"), mc);
      assert.equal(choose("oe", "free_form"), open);
      assert.equal(choose("forced", "free_form"), open);
      assert.equal(choose("mc", "logprob"), logprob);
      assert.equal(meta.judgeRubric, rubric);
    });
  }

  test("every name a loader declares resolves in the scoring registries", () => {
    for (const loader of datasetLoaders.names()) {
      const { meta } = datasetLoaders.get(loader);
      for (const name of Object.values(meta.scorers)) assert.ok(scorers.has(name), `${loader}: scorer ${name}`);
      if (meta.judgeRubric !== null) assert.equal(rubricFor(meta.judgeRubric).id, meta.judgeRubric);
    }
  });

  test("an unknown rubric id is an error naming the known ones", () => {
    assert.throws(() => rubricFor("nope"), /unknown judge rubric 'nope'; known: bbq_oe, compliance, factual_oe/);
    assert.equal(judgeRubrics.names().length, 5);
  });
});
