#!/usr/bin/env node
/**
 * The `parallax` command. Each subcommand is one pipeline stage; user errors print a clear
 * message and exit with code 2, other failures with 1.
 */
import { Command } from "commander";
import { ParallaxError } from "../core/errors.js";
import { PARALLAX_VERSION } from "../core/version.js";
import { exportCommand } from "./commands/export.js";
import { planCommand } from "./commands/plan.js";
import { runCommand } from "./commands/run.js";
import { statusCommand } from "./commands/status.js";

const program = new Command()
  .name("parallax")
  .description("Measure how evaluation conditions shape LLM scores")
  .version(PARALLAX_VERSION)
  .showHelpAfterError();

program
  .command("plan")
  .description("show the expanded design, call counts and a cost estimate, without calling any model")
  .argument("<spec>", "study spec (YAML)")
  .option("--json", "print the plan as JSON")
  .action(planCommand);

program
  .command("run")
  .description("run (or resume) a study; finished trials are kept, errored ones retried")
  .argument("<spec>", "study spec (YAML)")
  .option("--out <dir>", "study directory (default: runs/<study name>)")
  .option("--concurrency <n>", "trials in flight at once (default: the spec's execution.concurrency)", parsePositiveInt)
  .action(runCommand);

program
  .command("status")
  .description("progress, failure buckets and parse failures of a study directory")
  .argument("<dir>", "study directory")
  .option("--json", "print as JSON")
  .action(statusCommand);

program
  .command("export")
  .description("write the tidy table of trials or calls")
  .argument("<dir>", "study directory")
  .option("--table <table>", "trials | calls", "trials")
  .option("--format <format>", "csv | jsonl", "csv")
  .option("--output <file>", "write to a file instead of standard output")
  .action(exportCommand);

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ParallaxError(`expected a positive integer, found '${value}'`, 2);
  return n;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ParallaxError) {
    process.stderr.write(`parallax: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  throw error;
}
