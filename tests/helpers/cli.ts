import { spawnSync } from "node:child_process";
import { join } from "node:path";

const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `parallax` command (through tsx) and captures its output. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const result = spawnSync(process.execPath, ["--import", "tsx", CLI, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
