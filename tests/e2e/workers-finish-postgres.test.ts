/**
 * Scale-out runs finish: a worker whose peer was SIGKILLed stays while the dead worker's leases
 * are live, claims the trials once they expire, and the run ends with none pending; the parent
 * of `run --workers` names how each child ended; `status` shows a killed worker as dead.
 * Skipped without PARALLAX_TEST_PG_URL (`node scripts/test.mjs postgres` starts a server).
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../helpers/cli.js";
import { startOpenAIMock } from "../helpers/mock-openai.js";
import type { MockServer } from "../helpers/mock-server.js";
import {
  dropTestSchemas,
  PG_URL,
  queryStore,
  skipWithoutPostgres,
  startCli,
  testStoreUrl,
} from "../helpers/postgres-run.js";
import { writeDemoSpec, writeOpenAIMockStudy } from "../helpers/study.js";
import { after, before, describeNeeding, test } from "../helpers/prerequisites.js";

const KEY = "sk-finish-test-1234567890abcdef";
const env = { ...process.env, PARALLAX_FINISH_TEST_KEY: KEY };

let mock: MockServer;
before(async () => {
  if (PG_URL) mock = await startOpenAIMock([KEY]);
});
after(async () => {
  await mock?.close();
  await dropTestSchemas();
});

function study(items: number, concurrency: number) {
  return writeOpenAIMockStudy({
    baseUrl: mock.url,
    keyEnv: "PARALLAX_FINISH_TEST_KEY",
    items,
    attempts: 1,
    concurrency,
  });
}

async function count(url: string, where: string): Promise<number> {
  const rows = await queryStore<{ n: string }>(url, `select count(*) as n from trials where ${where}`).catch(() => [
    { n: "0" },
  ]);
  return Number(rows[0].n);
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let polls = 0; polls < 4_000; polls++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`never happened: ${what}`);
}

describeNeeding(skipWithoutPostgres, "runs that finish", () => {
  test("a worker waits for a killed peer's live leases, takes its trials over, and the run ends complete", async () => {
    const { specPath, outDir } = study(300, 2);
    const url = testStoreUrl("parallax_finish");
    const parent = startCli(
      ["run", specPath, "--out", outDir, "--store", url, "--workers", "2", "--lease-seconds", "3"],
      env,
    );
    let childPid = 0;
    await until(async () => {
      const workers = await queryStore<{ pid: number }>(url, "select pid from workers").catch(() => []);
      childPid = workers.map((w) => Number(w.pid)).find((pid) => pid !== parent.child.pid) ?? 0;
      return childPid !== 0 && (await count(url, "status = 'finished'")) >= 20;
    }, "the second worker is running");
    // The child is killed holding leases; the parent must not stop until they expired and it ran them.
    process.kill(childPid, "SIGKILL");
    const heldAtKill = await count(url, "status = 'pending' and lease_owner is not null");
    const result = await parent.done;
    assert.equal(await count(url, "status = 'finished'"), 300, `nothing left pending\n${result.stdout}`);
    assert.equal(await count(url, "executions > 1"), 0, "nothing stored twice");
    assert.match(result.stdout, /study status: 300 finished, 0 errored, 0 pending/);
    assert.match(result.stdout, /workers: this one and 1 more \(killed by SIGKILL\)/);
    assert.doesNotMatch(result.stdout, /pending: run again/);
    // A child that did not end cleanly makes the run exit non-zero, though every trial finished.
    assert.equal(result.status, 1, result.stderr);

    const status = runCli(["status", url], { env });
    assert.equal(status.status, 0, status.stderr);
    const childLine = status.stdout.split("\n").find((line) => line.includes(`| ${childPid} |`)) ?? "";
    assert.match(childLine, /\| dead \(no heartbeat within its 3 s lease\) \|/, status.stdout);
    assert.equal((status.stdout.match(/ \| stopped \| /g) ?? []).length, 1, "the parent stopped cleanly");
    assert.ok(heldAtKill >= 0, "leases counted");
  });

  test("a worker that starts while a dead worker's leases are live waits and runs them", async () => {
    const { specPath, outDir } = study(12, 2);
    const url = testStoreUrl("parallax_finish_late");
    const recorded = await startCli(["run", specPath, "--out", outDir, "--store", url], env).done;
    assert.equal(recorded.status, 0, recorded.stderr);
    // Half the trials back to pending, leased for 3 s to a worker that no longer exists.
    await queryStore(
      url,
      `update trials set status = 'pending', executions = 0, lease_owner = 'gone:1:dead',
       lease_expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + 3000
       where id in (select id from trials order by id limit 6)`,
    );
    await queryStore(url, "delete from calls where trial_id in (select id from trials where status = 'pending')");
    const worker = await startCli(["worker", url], env).done;
    assert.equal(worker.status, 0, worker.stderr);
    assert.match(worker.stdout, /ran 6 trial\(s\), 6 finished/);
    assert.match(worker.stdout, /study status: 12 finished, 0 errored, 0 pending/);
  });
});

describeNeeding(skipWithoutPostgres, "workers joining by URL", () => {
  test("run a few-shot study from the store alone, drawing the same exemplars as the run", async () => {
    const pool = ["p1", "p2", "p3", "p4", "p5"]
      .map(
        (id, k) =>
          `        - { id: ${id}, stem: "Pool question ${id}?", options: [yes ${k}, no ${k}], gold_index: ${k % 2} }`,
      )
      .join("\n");
    const { specPath, outDir } = writeDemoSpec({ items: 6, facets: "    format: [mc]\n    few_shot: [0, 2]" });
    const text = readFileSync(specPath, "utf8").replace(
      "    loader: inline\n",
      `    loader: inline\n    exemplars:\n      items:\n${pool}\n`,
    );
    writeFileSync(specPath, text);
    const url = testStoreUrl("parallax_fewshot");
    const recorded = await startCli(["run", specPath, "--out", outDir, "--store", url], env).done;
    assert.equal(recorded.status, 0, recorded.stderr);
    const tasks = async () =>
      new Map(
        (await queryStore<{ id: string; task_hash: string }>(url, "select id, task_hash from trials")).map((r) => [
          r.id,
          r.task_hash,
        ]),
      );
    const byRun = await tasks();
    assert.equal(byRun.size, 12);
    await queryStore(url, "update trials set status = 'pending', executions = 0, task_hash = null");
    await queryStore(url, "delete from calls");
    const worker = await startCli(["worker", url], env).done;
    assert.equal(worker.status, 0, worker.stderr);
    assert.match(worker.stdout, /ran 12 trial\(s\), 12 finished/);
    assert.deepEqual(await tasks(), byRun, "every trial was sent the task the run sent, few-shot examples included");
  });
});

describeNeeding(skipWithoutPostgres, "relative paths for workers", () => {
  test("a worker started elsewhere resolves the spec's relative paths against the spec's folder, as run does", async () => {
    const { specPath, outDir, dir } = writeDemoSpec({ items: 3, facets: "    format: [mc]" });
    mkdirSync(join(dir, "web-docs"));
    writeFileSync(join(dir, "web-docs", "page.md"), "# A page\nThe box is red.\n");
    writeFileSync(
      specPath,
      `${readFileSync(specPath, "utf8")}agents:\n  web: { backend: offline, folder: web-docs }\n`,
    );
    const url = testStoreUrl("parallax_specdir");
    const recorded = await startCli(["run", specPath, "--out", outDir, "--store", url], env).done;
    assert.equal(recorded.status, 0, recorded.stderr);
    await queryStore(url, "update trials set status = 'pending', executions = 0");
    await queryStore(url, "delete from calls");
    // This process's working directory is the repository, not the spec's folder.
    assert.notEqual(process.cwd(), dir);
    const worker = await startCli(["worker", url], env).done;
    assert.equal(worker.status, 0, worker.stderr);
    assert.match(worker.stdout, /ran 3 trial\(s\), 3 finished/);
  });
});
