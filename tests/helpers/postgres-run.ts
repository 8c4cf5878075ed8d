/**
 * The parallax CLI against a real PostgreSQL (the test cluster `npm test` starts): a schema per
 * store, raw queries into it, and CLI processes started in the background.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { needsPostgres } from "./prerequisites.js";

export const PG_URL = process.env.PARALLAX_TEST_PG_URL;
export const skipWithoutPostgres = needsPostgres();
const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");
const schemas: string[] = [];

/** A store URL on a fresh schema (dropped by dropTestSchemas). */
export function testStoreUrl(prefix: string): string {
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  schemas.push(schema);
  const url = new URL(PG_URL!);
  url.searchParams.set("schema", schema);
  return url.toString();
}

export async function queryStore<T>(url: string, text: string): Promise<T[]> {
  const schema = new URL(url).searchParams.get("schema");
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`set search_path to "${schema}"`);
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function dropTestSchemas(): Promise<void> {
  if (!PG_URL) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const schema of schemas.splice(0)) await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

export interface CliRun {
  child: ChildProcess;
  done: Promise<{ status: number | null; stdout: string; stderr: string }>;
}

/** `parallax ARGS` in a child process, its output collected. */
export function startCli(args: string[], env: NodeJS.ProcessEnv): CliRun {
  const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (status) => resolve({ status, stdout, stderr })),
  );
  return { child, done };
}
