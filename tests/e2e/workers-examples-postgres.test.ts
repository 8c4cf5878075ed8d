/**
 * `parallax worker URL` runs every simulated example `run` runs: for each, `run --store URL`
 * records and executes the study, a sample of its trials is put back to pending (their calls
 * removed), and a worker joining by URL from the store alone runs them again; every trial it ran
 * stores the outcome the run stored (few-shot draws, run-time judges, grid decoding, audit
 * cells, agent tool calls). Examples reading ../shared/datasets skip when it is absent, the agents'
 * one without bubblewrap. Skipped without PARALLAX_TEST_PG_URL (`node scripts/test.mjs --e2e
 * postgres` starts a server).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { EXIT_TRIALS_ERRORED } from "../../src/cli/interrupt.js";
import { dropTestSchemas, queryStore, skipWithoutPostgres, startCli, testStoreUrl } from "../helpers/postgres-run.js";
import { after, describeNeeding, needsBubblewrap, test } from "../helpers/prerequisites.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const DATASETS = resolve(repoRoot, "..", "shared", "datasets");
const sharedData = existsSync(DATASETS) ? false : `needs ../shared/datasets: ${DATASETS} is absent`;
const work = mkdtempSync(join(tmpdir(), "parallax-worker-examples-"));
after(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropTestSchemas();
});

interface StoredOutcome {
  id: string;
  status: string;
  error_message: string | null;
  final_answer: string | null;
  parsed_answer: string | null;
  parse_status: string | null;
  score: number | null;
  scorer: string | null;
}

const OUTCOME = "id, status, error_message, final_answer, parsed_answer, parse_status, score, scorer";

/** Runs the example into a fresh store, re-runs `sample` of its trials with a worker, compares. */
async function workerRepeatsRun(example: string, sample: number): Promise<void> {
  const name = example.replace(/\W/g, "_");
  const url = testStoreUrl(`parallax_ex_${name}`);
  const spec = join(repoRoot, "examples", example);
  const run = await startCli(["run", spec, "--out", join(work, name), "--store", url], process.env).done;
  // A simulated provider may plant failures: those trials error in the run (exit 4) and again in the worker.
  assert.ok(run.status === 0 || run.status === EXIT_TRIALS_ERRORED, `${run.stdout}\n${run.stderr}`);
  // Trial ids are content hashes: the first ones by id are a spread of models, benchmarks and conditions.
  const picked = `select id from trials order by id limit ${sample}`;
  const byRun = await queryStore<StoredOutcome>(
    url,
    `select ${OUTCOME} from trials where id in (${picked}) order by id`,
  );
  assert.equal(byRun.length, sample, `${example} has at least ${sample} trials`);
  const finished = byRun.filter((t) => t.status === "finished").length;
  assert.ok(finished > sample / 2, `${example}: the run finished most of the sampled trials (${finished})`);
  await queryStore(
    url,
    `update trials set status = 'pending', executions = 0, task_hash = null, final_answer = null,
     parsed_answer = null, parse_status = null, score = null, scorer = null where id in (${picked})`,
  );
  await queryStore(url, `delete from calls where trial_id in (${picked})`);
  const worker = await startCli(["worker", url], process.env).done;
  const [errored] = await queryStore<{ n: string }>(url, "select count(*) as n from trials where status = 'errored'");
  assert.equal(worker.status, Number(errored.n) === 0 ? 0 : EXIT_TRIALS_ERRORED, `${worker.stdout}\n${worker.stderr}`);
  // The worker also retries trials the run left errored (outside the sample).
  assert.match(worker.stdout, /study status: \d+ finished, \d+ errored, 0 pending/);
  const byWorker = await queryStore<StoredOutcome>(
    url,
    `select ${OUTCOME} from trials where id in (${byRun.map((t) => `'${t.id}'`).join(", ")}) order by id`,
  );
  assert.deepEqual(byWorker, byRun, `${example}: the worker stored the outcomes the run stored`);
}

describeNeeding(skipWithoutPostgres, "every simulated example with a worker joining by URL", () => {
  test("quickstart.yaml (run-time judges)", async () => {
    await workerRepeatsRun("quickstart.yaml", 120);
  });

  test("audit-quickstart.yaml", async () => {
    await workerRepeatsRun("audit-quickstart.yaml", 300);
  });

  test("grid-quickstart.yaml (few-shot pools, decoding grid)", { skip: sharedData }, async () => {
    await workerRepeatsRun("grid-quickstart.yaml", 300);
  });

  test("scaffold-safety-sim.yaml", { skip: sharedData }, async () => {
    await workerRepeatsRun("scaffold-safety-sim.yaml", 300);
  });

  test("agents-quickstart.yaml (sandboxed tool calls)", { skip: needsBubblewrap() }, async () => {
    await workerRepeatsRun("agents-quickstart.yaml", 40);
  });
});
