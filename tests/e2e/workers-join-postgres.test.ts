/**
 * Workers joining by URL run the quickstart's design on twelve items (examples/integrity-demo.yaml), which judges
 * its open-ended answers at run time (two simulated judges, blinded). A worker judges under the round the run sealed
 * before its first trial, and the run unblinds it; the stored outcomes and verdicts equal those
 * of a single `run`. Skipped without PARALLAX_TEST_PG_URL (`node scripts/test.mjs --e2e postgres`
 * starts a server).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openSealedMapping } from "../../src/scoring/blinding/seal.js";
import { plannedTrialCount } from "../../src/run/plan/plan.js";
import { openStore } from "../../src/run/store/open.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { dropTestSchemas, queryStore, skipWithoutPostgres, startCli, testStoreUrl } from "../helpers/postgres-run.js";
import { after, describeNeeding, test } from "../helpers/prerequisites.js";

// The quickstart's design on twelve items: run-time judges, small enough to run three times here.
const QUICKSTART = resolve(import.meta.dirname, "..", "..", "examples", "integrity-demo.yaml");
const work = mkdtempSync(join(tmpdir(), "parallax-join-"));
after(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropTestSchemas();
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What a run stored, keyed by trial id: each trial's outcome, and each verdict by the trial it judged. */
async function storedResults(url: string) {
  const store = await openStore(url);
  try {
    const run = await store.getRun();
    assert.ok(run, `a run in ${url}`);
    const trials = await store.listTrials(run.id);
    const outcomes = new Map(
      trials.map((t) => [
        t.id,
        {
          status: t.status,
          answer: t.outcome?.finalAnswer,
          parsed: t.outcome?.parsedAnswer,
          score: t.outcome?.score,
          scorer: t.outcome?.scorer,
        },
      ]),
    );
    const round = await store.getBlindingRound(run.id);
    assert.ok(round, "the run sealed a blinding round");
    const trialOf = new Map(openSealedMapping(round.mapping, round.sealedSha256).map((e) => [e.uuid, e.trialId]));
    const verdicts = (await store.listVerdicts(run.id))
      .map((v) => ({
        trial: trialOf.get(v.uuid),
        linked: v.trialId,
        judge: v.judge,
        role: v.role,
        label: v.label,
        outcome: v.outcome,
      }))
      .sort((a, b) => `${a.trial}|${a.role}`.localeCompare(`${b.trial}|${b.role}`));
    return { outcomes, verdicts, round };
  } finally {
    await store.close();
  }
}

describeNeeding(skipWithoutPostgres, "the quickstart (run-time judges) with workers joining by URL", () => {
  test("a run with a worker beside it, and a worker alone, store what a single run stores", async () => {
    const single = testStoreUrl("parallax_join_single");
    const alone = await startCli(["run", QUICKSTART, "--out", join(work, "single"), "--store", single], process.env)
      .done;
    assert.equal(alone.status, 0, alone.stderr);
    const reference = await storedResults(single);
    const trials = plannedTrialCount(await prepareStudy(QUICKSTART));
    assert.equal(reference.outcomes.size, trials, `the spec's ${trials} trials`);
    const judgedOutcomes = [...reference.outcomes.values()].filter((o) => o.scorer?.startsWith("judge:"));
    assert.ok(judgedOutcomes.length > 0, "the quickstart judges its open-ended trials at run time");
    assert.ok(reference.round.judged, "the single run unblinded its round");

    // `run --workers 2` starts `parallax worker URL` beside itself once the round is sealed.
    const shared = testStoreUrl("parallax_join_shared");
    const outDir = join(work, "shared");
    const together = await startCli(
      ["run", QUICKSTART, "--out", outDir, "--store", shared, "--workers", "2", "--concurrency", "2"],
      process.env,
    ).done;
    assert.equal(together.status, 0, `${together.stdout}\n${together.stderr}`);
    assert.match(together.stdout, /workers: this one and 1 more \(exit 0\)/);
    let results = await storedResults(shared);
    assert.deepEqual(results.outcomes, reference.outcomes, "the same outcomes as the single run");
    assert.deepEqual(
      results.verdicts.map(({ linked, ...v }) => v),
      reference.verdicts.map(({ linked, ...v }) => v),
      "the same verdicts, trial by trial",
    );
    assert.ok(
      results.verdicts.every((v) => v.linked === v.trial),
      "every verdict is linked to its trial at unblinding",
    );

    // A worker alone runs every trial under the sealed round; the run unblinds the round after it.
    const sealed = results.round.sealedSha256;
    await queryStore(shared, "update trials set status = 'pending', executions = 0, task_hash = null");
    await queryStore(shared, "delete from calls");
    await queryStore(shared, "delete from judge_verdicts");
    await queryStore(
      shared,
      `update blinding_rounds set judge = null, verdicts_sha256 = null, responses = null,
       guessing_check = null, agreement = null, unblinded_at = null`,
    );
    const worker = await startCli(["worker", shared], process.env).done;
    assert.equal(worker.status, 0, worker.stderr);
    assert.match(worker.stdout, new RegExp(`ran ${trials} trial\\(s\\), ${trials} finished`));
    assert.match(
      worker.stdout,
      new RegExp(
        `judging: ${judgedOutcomes.length} trial\\(s\\) judged under the run's sealed round; the run unblinds it once every judged trial is finished \\(or again: parallax run SPEC --store '${escapeRegExp(shared)}'\\)`,
      ),
    );
    const unblind = await startCli(["run", QUICKSTART, "--out", outDir, "--store", shared], process.env).done;
    assert.equal(unblind.status, 0, unblind.stderr);
    results = await storedResults(shared);
    assert.equal(results.round.sealedSha256, sealed, "the worker judged under the round the run sealed");
    assert.ok(results.round.judged, "the run unblinded the round the worker judged");
    assert.deepEqual(results.outcomes, reference.outcomes, "the worker's outcomes are the single run's");
    assert.deepEqual(
      results.verdicts.map(({ linked, ...v }) => v),
      reference.verdicts.map(({ linked, ...v }) => v),
      "the worker's verdicts are the single run's",
    );
  });

  test("a worker that joins before the run sealed its round is refused with what to do", async () => {
    const url = testStoreUrl("parallax_join_unsealed");
    const run = await startCli(["run", QUICKSTART, "--out", join(work, "unsealed"), "--store", url], process.env).done;
    assert.equal(run.status, 0, run.stderr);
    await queryStore(url, "update trials set status = 'pending', executions = 0");
    await queryStore(url, "delete from judge_verdicts");
    await queryStore(url, "delete from blinding_rounds");
    const worker = await startCli(["worker", url], process.env).done;
    assert.equal(worker.status, 2, worker.stderr);
    assert.match(worker.stderr, /judges \d+ trial\(s\) at run time, but the store holds no sealed round for them/);
    assert.match(worker.stderr, /start the worker once the run has started/);
  });
});
