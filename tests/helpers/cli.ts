import { spawnSync } from "node:child_process";
import { join } from "node:path";

const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");
/** tsx resolved here, so a command run from any working directory (a temporary one) still loads it. */
const TSX = import.meta.resolve("tsx");

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `parallax` command (through tsx) and captures its output. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const result = spawnSync(process.execPath, ["--import", TSX, CLI, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
