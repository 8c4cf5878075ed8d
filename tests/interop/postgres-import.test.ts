import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { runAnalysis } from "../../src/cli/commands/analyze.js";
import { importLogs } from "../../src/interop/import.js";
import { openStore } from "../../src/run/store/open.js";
import { countInspectJson, filesIn, interopSkip } from "./shared-logs.js";

const PG_URL = process.env.PARALLAX_TEST_PG_URL;
const skip =
  interopSkip ??
  (PG_URL
    ? undefined
    : "PARALLAX_TEST_PG_URL is not set: PostgreSQL import test skipped (scripts/start-test-postgres.sh prints one)");
const work = mkdtempSync(join(tmpdir(), "parallax-pg-import-"));
after(() => rmSync(work, { recursive: true, force: true }));

const schemaUrl = () => `${PG_URL}?schema=interop_${randomBytes(4).toString("hex")}`;

async function runCount(url: string): Promise<{ runs: number; trials: number; scores: number }> {
  const store = await openStore(url);
  try {
    const run = await store.getRun();
    if (!run) return { runs: 0, trials: 0, scores: 0 };
    return {
      runs: 1,
      trials: (await store.listTrials(run.id)).length,
      scores: (await store.listScores(run.id)).length,
    };
  } finally {
    await store.close();
  }
}

test("import into a PostgreSQL schema, analyse it there; a second import and a broken log write nothing", {
  skip,
}, async () => {
  const logs = filesIn("inspect-json", ".json").filter((f) => f.includes("arc"));
  const url = schemaUrl();
  await importLogs({ format: "inspect", paths: logs, target: url });
  const raw = logs.map(countInspectJson);
  const expected = {
    runs: 1,
    trials: raw.reduce((n, c) => n + c.trials, 0),
    scores: raw.reduce((n, c) => n + c.scores, 0),
  };
  assert.deepEqual(await runCount(url), expected);
  const { record } = await runAnalysis(url, {});
  assert.equal(record.analysis.meta.comparisonFacet, "subject");

  await assert.rejects(importLogs({ format: "inspect", paths: logs, target: url }), /already holds run/);
  assert.deepEqual(await runCount(url), expected, "the refused import changed nothing");

  const broken = join(work, "broken.json");
  const log = JSON.parse(readFileSync(logs[0], "utf8"));
  log.samples[1].id = null;
  writeFileSync(broken, JSON.stringify(log));
  const empty = schemaUrl();
  await assert.rejects(
    importLogs({ format: "inspect", paths: [logs[1], broken], target: empty }),
    /broken\.json \(samples\[1\]\): field 'id'/,
  );
  assert.deepEqual(await runCount(empty), { runs: 0, trials: 0, scores: 0 }, "no partial run");
});
