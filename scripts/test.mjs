#!/usr/bin/env node
// Runs the tests with node:test through tsx (Node 20 does not expand globs, so the file list
// is built here): `npm test` runs every tests/**/*.test.ts outside tests/e2e/, and
// `npm run test:e2e` (--e2e) the slow end-to-end suites in tests/e2e/ (real llama.cpp runs,
// agent runs in the sandbox, PostgreSQL scale-out, headless Chromium). Extra arguments filter
// files by substring.
//
// A test whose machine prerequisite is missing skips with "needs NAME: ..." (tests/helpers/
// prerequisites.ts); the closing summary counts the skipped tests by reason.
//
// The store tests also run against PostgreSQL: when PARALLAX_TEST_PG_URL is not set and a
// PostgreSQL installation is found, a throwaway cluster is started for the run and stopped
// afterwards (scripts/start-test-postgres.sh). Without PostgreSQL those tests skip and say so.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith(".test.ts") ? [path] : [];
  });
}

function postgresInstalled() {
  if (existsSync("/usr/lib/postgresql")) {
    return readdirSync("/usr/lib/postgresql").some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`));
  }
  return spawnSync("sh", ["-c", "command -v initdb"]).status === 0;
}

/**
 * Each run gets its own cluster directory and a random first port, so two `npm test` runs (two
 * checkouts, or a benchmark beside the suite) never share or stop each other's cluster.
 */
function freshClusterDir() {
  const parent = mkdtempSync(join(tmpdir(), "parallax-test-pg-"));
  chmodSync(parent, 0o755); // the server runs as the postgres user, which must reach its cluster
  return join(parent, "cluster");
}
const pgEnv = {
  ...process.env,
  PARALLAX_TEST_PG_DIR: process.env.PARALLAX_TEST_PG_DIR ?? freshClusterDir(),
  PARALLAX_TEST_PG_PORT: process.env.PARALLAX_TEST_PG_PORT ?? String(20000 + Math.floor(Math.random() * 30000)),
};

/** Starts the throwaway cluster; returns its URL, or undefined (with the reason printed). */
function startPostgres() {
  const envFile = join(mkdtempSync(join(tmpdir(), "parallax-pg-env-")), "env");
  const started = spawnSync("bash", ["scripts/start-test-postgres.sh", envFile], {
    stdio: ["ignore", "ignore", "inherit"],
    env: pgEnv,
  });
  if (started.status !== 0) {
    console.error("test: could not start a test PostgreSQL; its store tests will be skipped");
    return undefined;
  }
  const line = readFileSync(envFile, "utf8")
    .split("\n")
    .find((l) => l.startsWith("PARALLAX_TEST_PG_URL="));
  return line?.slice("PARALLAX_TEST_PG_URL=".length);
}

const E2E_DIR = join("tests", "e2e");
const e2e = process.argv.includes("--e2e");
const filters = process.argv.slice(2).filter((a) => a !== "--e2e");
const files = walk("tests")
  .map((f) => relative(".", f))
  .filter((f) => f.startsWith(E2E_DIR + "/") === e2e)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(" ")}`);
  process.exit(1);
}

const env = { ...process.env };
let ownPostgres = false;
if (!env.PARALLAX_TEST_PG_URL && files.some((f) => f.includes("postgres")) && postgresInstalled()) {
  const url = startPostgres();
  if (url) {
    env.PARALLAX_TEST_PG_URL = url;
    ownPostgres = true;
  }
}

/**
 * The closing lines: the skipped tests and suites by reason, then one plain count line
 * ("test: N passed, N failed, N skipped") from the outcomes reporter's lines.
 */
function closingSummary(outcomesFile) {
  const outcomes = existsSync(outcomesFile)
    ? readFileSync(outcomesFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  const tests = outcomes.filter((o) => !o.suite);
  const skips = outcomes.filter((o) => o.outcome === "skip");
  const byReason = new Map();
  for (const skip of skips) {
    const entry = byReason.get(skip.reason) ?? { tests: 0, suites: 0 };
    entry[skip.suite ? "suites" : "tests"] += 1;
    byReason.set(skip.reason, entry);
  }
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const count = ({ tests, suites }) =>
    [tests > 0 && plural(tests, "test"), suites > 0 && plural(suites, "whole suite")].filter(Boolean).join(" and ");
  const tally = (outcome) => tests.filter((o) => o.outcome === outcome).length;
  return [
    ...(skips.length === 0 ? [] : ["test: skipped, by reason:"]),
    ...[...byReason].sort((a, b) => b[1].tests - a[1].tests).map(([reason, n]) => `  ${count(n)}: ${reason}`),
    `test: ${tally("pass")} passed, ${tally("fail")} failed, ${tally("skip")} skipped`,
  ];
}

const outcomesFile = join(mkdtempSync(join(tmpdir(), "parallax-test-outcomes-")), "outcomes.jsonl");
let status = 1;
try {
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--test",
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      `--test-reporter=${join(import.meta.dirname, "test-skips-reporter.mjs")}`,
      `--test-reporter-destination=${outcomesFile}`,
      "--test-concurrency=2",
      ...files,
    ],
    { stdio: "inherit", env },
  );
  status = result.status ?? 1;
  console.log(closingSummary(outcomesFile).join("\n"));
  rmSync(dirname(outcomesFile), { recursive: true, force: true });
} finally {
  if (ownPostgres) {
    spawnSync("bash", ["scripts/stop-test-postgres.sh"], { stdio: "inherit", env: pgEnv });
    if (!process.env.PARALLAX_TEST_PG_DIR)
      rmSync(dirname(pgEnv.PARALLAX_TEST_PG_DIR), { recursive: true, force: true });
  }
}
process.exit(status);
