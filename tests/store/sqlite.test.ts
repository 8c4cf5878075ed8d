import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { openStore, resolveSqlitePath } from "../../src/run/store/index.js";
import { makeRun, makeTrials, type StoreTarget, storeBehaviours } from "./store-suite.js";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "parallax-store-"));
}

function sqliteTarget(): Promise<StoreTarget> {
  const dir = tempDir();
  return Promise.resolve({
    open: () => openStore(dir),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  });
}

storeBehaviours("trial store on SQLite", sqliteTarget);

test("a study directory gets parallax.db in WAL mode; a .db path is used as given", async () => {
  const dir = tempDir();
  try {
    const store = await openStore(dir);
    await store.saveRun(makeRun("r1"));
    await store.close();
    const file = join(dir, "parallax.db");
    assert.ok(existsSync(file), "expected existsSync(file)");
    const raw = new Database(file, { readonly: true });
    assert.equal(raw.pragma("journal_mode", { simple: true }), "wal");
    raw.close();

    const custom = join(dir, "other.sqlite");
    assert.equal(resolveSqlitePath(custom), custom);
    const second = await openStore(custom);
    assert.equal(await second.getRun(), undefined);
    await second.close();
    assert.ok(existsSync(custom), "expected existsSync(custom)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a store path whose directory does not exist is refused with the path named", async () => {
  const dir = tempDir();
  try {
    const missing = join(dir, "no-such-study");
    await assert.rejects(openStore(missing), (e: Error) =>
      e.message.includes(`store directory ${missing} does not exist`),
    );
    const deep = join(dir, "nope", "parallax.db");
    await assert.rejects(openStore(deep), (e: Error) =>
      e.message.includes(`directory ${join(dir, "nope")} does not exist`),
    );
    assert.equal(existsSync(join(dir, "nope")), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file that is not a database is refused with its path", async () => {
  const dir = tempDir();
  try {
    const file = join(dir, "parallax.db");
    writeFileSync(file, "this is not sqlite, just text that is long enough to be read as a header".repeat(20));
    await assert.rejects(openStore(dir), (e: Error) => e.message.includes(`cannot open SQLite store ${file}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(":memory: stores are separate and empty", async () => {
  const a = await openStore(":memory:");
  const b = await openStore(":memory:");
  await a.saveRun(makeRun("r1"));
  assert.equal(await b.getRun(), undefined);
  await a.close();
  await b.close();
});

test("processes racing on one SQLite file: each trial is won exactly once", async () => {
  const dir = tempDir();
  mkdirSync(dir, { recursive: true });
  try {
    const store = await openStore(dir);
    await store.saveRun(makeRun("r1"));
    const trials = makeTrials("r1", 30);
    await store.addPlannedTrials(trials);
    const worker = join(import.meta.dirname, "fixtures", "complete-worker.ts");
    const children = ["p0", "p1", "p2"].map((label) => startWorker(worker, [dir, "r1", label]));
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    const won = (await Promise.all(children.map((c) => c.result))).flat();
    assert.equal(won.length, trials.length);
    assert.deepEqual(new Set(won), new Set(trials.map((t) => t.id)));
    const rows = await store.listTrials("r1");
    assert.ok(
      rows.every((r) => r.status === "finished" && r.executions === 1),
      'expected rows.every((r) => r.status === "finished" && r.executions === 1)',
    );
    const calls = await store.listCalls("r1");
    assert.equal(calls.length, 2 * trials.length);
    for (const row of rows) {
      const roles = calls.filter((c) => c.trialId === row.id).map((c) => c.role);
      assert.deepEqual(roles, [row.outcome?.finalAnswer, row.outcome?.finalAnswer]);
    }
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function startWorker(script: string, args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith("ready\n")) markReady();
  });
  const result = new Promise<string[]>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`worker ${args.at(-1)} exited with ${code}: ${out}`));
      else resolve(JSON.parse(out.split("\n").filter(Boolean).at(-1) ?? "[]"));
    });
  });
  return { ready, result, go: () => child.stdin.write("go\n") };
}
