#!/usr/bin/env node
/**
 * The `parallax` command. Each subcommand is one pipeline stage; user errors print a clear
 * message and exit with code 2, other failures with 1.
 */
import { Command } from "commander";
import { ParallaxError } from "../core/errors.js";
import { PARALLAX_VERSION } from "../core/version.js";
import { exportCommand } from "./commands/export.js";
import { itemsCommand } from "./commands/items.js";
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

program
  .command("items")
  .description("print a benchmark's items as the model receives them (loader, format pair, sample)")
  .argument("<benchmark>", "dataset loader name, e.g. truthfulqa_mc1, bbq, mmlu")
  .requiredOption("--source <path>", "published file or directory, or an http(s) URL")
  .option("--format <format>", "mc | oe | forced (default: mc when the item has options)")
  .option("--sample <n>", "seeded sample of n items", parsePositiveInt)
  .option("--seed <s>", "sampling seed (default 0)", parseInteger)
  .option("--stratify <field>", "metadata field to stratify the sample by (e.g. stratum)")
  .option("--balanced", "equal allocation across strata instead of proportional")
  .option("--option <key=value>", "loader option, repeatable (e.g. split=val)", (v: string, prev: string[] = []) => [
    ...prev,
    v,
  ])
  .option("--cache-dir <dir>", "download cache for URL sources (default .parallax-cache)")
  .option("--json", "JSON lines: id, prompt, options, gold, source")
  .action(itemsCommand);

function parseInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new ParallaxError(`expected an integer, found '${value}'`, 2);
  return n;
}

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
