#!/usr/bin/env node
/**
 * The `parallax` command. Each subcommand is one pipeline stage; user errors print a clear
 * message and exit with code 2, other failures with 1.
 */
import { Command } from "commander";
import { MAX_CONCURRENCY, MAX_ENTRY_MB, MAX_INFLATED_MB, MAX_LEASE_SECONDS, MAX_WORKERS } from "../contracts/limits.js";
import { ParallaxError } from "../core/errors.js";
import { fileSystemError } from "../core/output-files.js";
import { endQuietlyOnClosedPipe } from "./closed-pipe.js";
import { scrubTerminalOutput } from "./scrubbed-output.js";
import { PARALLAX_VERSION } from "../core/version.js";

/**
 * Loads a command's module only when it runs: the providers' SDKs, the store and the chart
 * libraries would otherwise load for every command, even --version (about a second).
 */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K) {
  return async (...args: unknown[]): Promise<void> => {
    const action = (await load())[name] as (...a: unknown[]) => Promise<void>;
    await action(...args);
  };
}

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
  .option("--power", "power, MDE and the items needed per pre-registered contrast (analysis.power)")
  .option("--pilot <dir>", "with --power: estimate baseline, icc and discordance from a pilot run of the same spec")
  .action(lazy(() => import("./commands/plan.js"), "planCommand"));

program
  .command("run")
  .description("run (or resume) a study; finished trials are kept, errored ones retried")
  .argument("<spec>", "study spec (YAML)")
  .option("--out <dir>", "study directory (default: runs/<study name>)")
  .option("--store <target>", "trial store: a postgres:// URL (add ?schema=NAME) instead of DIR/parallax.db")
  .option(
    "--concurrency <n>",
    "trials in flight at once (default: the spec's execution.concurrency)",
    intOption("--concurrency", 1, MAX_CONCURRENCY, "as execution.concurrency"),
  )
  .option(
    "--workers <n>",
    "worker processes on a PostgreSQL store, sharing the concurrency (docs/SCALE.md)",
    intOption("--workers", 1, MAX_WORKERS),
  )
  .option(
    "--lease-seconds <s>",
    "how long a claimed trial is held before another worker may take it (default 60)",
    intOption("--lease-seconds", 1, MAX_LEASE_SECONDS),
  )
  .option(
    "--rate-share <n>",
    "workers sharing each API key: each keeps 1/n of the declared rate limits (default --workers)",
    intOption("--rate-share", 1, MAX_WORKERS),
  )
  .action(lazy(() => import("./commands/run.js"), "runCommand"));

program
  .command("worker")
  .description("join a run in a PostgreSQL store as one more worker (any machine; needs only the URL and API keys)")
  .argument("<url>", "the run's store: postgres://...")
  .option("--run <id>", "the run to join (default: the store's run)")
  .option(
    "--concurrency <n>",
    "trials in flight in this worker (default: the spec's execution.concurrency)",
    intOption("--concurrency", 1, MAX_CONCURRENCY, "as execution.concurrency"),
  )
  .option(
    "--lease-seconds <s>",
    "how long a claimed trial is held before another worker may take it (default 60)",
    intOption("--lease-seconds", 1, MAX_LEASE_SECONDS),
  )
  .option("--errored-before <time>", "retry errored trials last updated before this ISO time (default: now)")
  .option(
    "--rate-share <n>",
    "workers sharing each API key: each keeps 1/n of the declared rate limits (default 1)",
    intOption("--rate-share", 1, MAX_WORKERS),
  )
  .action(lazy(() => import("./commands/worker.js"), "workerCommand"));

program
  .command("status")
  .description("progress, failure buckets and parse failures of a study directory")
  .argument("<dir>", "study directory")
  .option("--json", "print as JSON")
  .action(lazy(() => import("./commands/status.js"), "statusCommand"));

program
  .command("score")
  .description("score stored trials again without calling the model: another scorer, LLM judges (blinded), unblinding")
  .argument("<dir>", "study directory")
  .option("--scorer <name>", "a registered scorer (e.g. mc_last_answer, refusal_pattern, gaia_exact), or 'judge'")
  .option("--spec <path>", "a spec of the run's benchmarks whose scoring section to use (judges added after the run)")
  .option("--unblind", "link blinded judge verdicts to their trials (verifies the seal; logged)")
  .option("--rerender", "score against today's rendering of each task when it differs from the one stored at run time")
  .option("--json", "print the result as JSON")
  .action(lazy(() => import("./commands/score.js"), "scoreCommand"));

program
  .command("export")
  .description("write the tidy table of trials or calls")
  .argument("<dir>", "study directory")
  .option("--table <table>", "trials | calls", "trials")
  .option("--format <format>", "csv | jsonl | parquet | eee (Every Eval Ever records, docs/INTEROP.md)", "csv")
  .option("--output <file>", "write to a file instead of standard output (parquet: the file; eee: a directory)")
  .option(
    "--scorer <name>",
    "take outcome and parse status from this scorer's stored scores (default: the run-time score)",
  )
  .action(lazy(() => import("./commands/export.js"), "exportCommand"));

program
  .command("preregister")
  .description("freeze spec, analysis plan and item manifest (SHA-256 stamp) before any trial runs")
  .argument("<spec>", "study spec (YAML)")
  .option("--out <dir>", "study directory (default: runs/<study name>)")
  .option("--force", "stamp even after trials finished or over a stamp (recorded as a deviation)")
  .action(lazy(() => import("./commands/preregister.js"), "preregisterCommand"));

program
  .command("analyze")
  .description("statistics, the study's cards and deviations of a study directory or a tidy CSV/JSONL table")
  .argument("<target>", "study directory, or a tidy table (.csv, .jsonl)")
  .option("--json", "print the full result as JSON")
  .option("--full", "print every table (default: an overview; analysis.json and the report hold everything)")
  .option("--out <file>", "also write the full JSON result to this file")
  .option("--plan <file>", "analysis plan (YAML/JSON) replacing the spec's; a deviation when pre-registered")
  .option("--scorer <name>", "outcomes from this stored scorer (parallax score) instead of the run-time score")
  .option(
    "--unpaired",
    "compare conditions on different item sets as independent samples, labelled unpaired (default: paired, on shared items only)",
  )
  .action(lazy(() => import("./commands/analyze.js"), "analyzeCommand"));

program
  .command("compare")
  .description("pair two studies (or two runs of one spec) item by item: per matched cell, B - A on the shared items")
  .argument("<a>", "the first study: a study directory, or a tidy table (.csv, .jsonl)")
  .argument("<b>", "the second study, matched to A by model, condition and benchmark name")
  .option("--json", "print the full comparison as JSON")
  .option("--out <file>", "write the Markdown card to this file (nothing is written without it)")
  .option("--plan <file>", "analysis plan (YAML/JSON) for the margin, correction and bootstrap (default: A's own)")
  .option("--scorer <name>", "outcomes from this stored scorer on both sides instead of the run-time score")
  .option(
    "--map <file>",
    "YAML renames from A's names to B's: models: {a: b}, conditions: {'scaffold=x': 'scaffold=y'}",
  )
  .action(lazy(() => import("./commands/compare.js"), "compareCommand"));

program
  .command("profile")
  .description("the Evaluation Conditions card: per model, how far its score moves with every condition axis studied")
  .argument("<studies...>", "study directories or tidy tables (.csv, .jsonl), pooled on their shared models and items")
  .option("--json", "print the full profile as JSON")
  .option("--out <file>", "write the Markdown card to this file (nothing is written without it)")
  .option(
    "--plan <file>",
    "analysis plan (YAML/JSON) for the population, correction and level (default: the first study's)",
  )
  .option("--scorer <name>", "outcomes from this stored scorer in every study instead of the run-time score")
  .option(
    "--resamples <n>",
    "item resamples of the score and difference intervals, and draws of each GLMM for the shares' (default 200)",
    intOption("--resamples", 20, 10_000),
  )
  .option(
    "--seed <s>",
    "seed of the item resamples and GLMM draws (default: the plan's bootstrap seed)",
    intOption("--seed", 0, 2 ** 31 - 1),
  )
  .action(lazy(() => import("./commands/profile.js"), "profileCommand"));

program
  .command("report")
  .description("write a self-contained HTML report (charts, scorecard, links to every trial)")
  .argument("<dir>", "study directory")
  .option(
    "--out <file>",
    "report file (default: DIR/report.html); its trials page goes beside it (trials.html, or NAME.trials.html for NAME.html)",
  )
  .option("--force", "overwrite an existing file that parallax report did not write")
  .option("--plan <file>", "analysis plan (YAML/JSON) replacing the spec's")
  .option("--scorer <name>", "outcomes from this stored scorer (parallax score) instead of the run-time score")
  .option("--viewer <url>", "link each trial into a running viewer (parallax view) instead of the static trials pages")
  .action(lazy(() => import("./commands/report.js"), "reportCommand"));

program
  .command("view")
  .description("browse every trial and sub-call in a local, read-only web viewer (filters, search, paging)")
  .argument("<target>", "study directory or PostgreSQL store URL")
  .option("--port <port>", "port to listen on (default: a free port)")
  .option(
    "--host <host>",
    "address to listen on (default 127.0.0.1); another address exposes the study, with a warning",
  )
  .option("--run <id>", "run to show (default: the latest)")
  .option("--with <target>", "a second study (directory or store URL) to pair with: /pair?a=ID&b=ID (compare A B)")
  .option("--no-open", "do not open the browser")
  .action(lazy(() => import("./commands/view.js"), "viewCommand"));

program
  .command("items")
  .description("print a benchmark's items as the model receives them (loader, format pair, sample)")
  .argument(
    "<benchmark>",
    "dataset loader name (e.g. truthfulqa_mc1, bbq, mmlu) with --source, or a benchmark id with --spec",
  )
  .option("--source <path>", "published file or directory, or an http(s) URL")
  .option("--spec <spec>", "study spec: preview its benchmark BENCHMARK (inline or any loader) as run loads it")
  .option("--format <format>", "mc | oe | forced (default: mc when the item has options)")
  .option("--sample <n>", "seeded sample of n items", intOption("--sample", 1, Number.MAX_SAFE_INTEGER))
  .option(
    "--seed <s>",
    "sampling seed (default 0)",
    intOption("--seed", Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  )
  .option("--stratify <field>", "metadata field to stratify the sample by (e.g. stratum)")
  .option("--balanced", "equal allocation across strata instead of proportional")
  .option("--option <key=value>", "loader option, repeatable (e.g. split=val)", (v: string, prev: string[] = []) => [
    ...prev,
    v,
  ])
  .option("--cache-dir <dir>", "download cache for URL sources (default .parallax-cache)")
  .option("--json", "JSON lines: id, prompt, options, gold, source")
  .action(lazy(() => import("./commands/items.js"), "itemsCommand"));

const audit = program.command("audit").description("the self-audit chronology of a perturbation audit (Box 1)");
audit
  .command("log")
  .description("append a checked entry to DIR/chronology.jsonl (--add ENTRY.yaml|-) and print the chronology")
  .argument("<dir>", "study directory")
  .option("--add <entry>", "a YAML or JSON file with one entry's eight fields, or - for standard input")
  .option("--json", "print the chronology as JSON")
  .action(lazy(() => import("./commands/audit.js"), "auditLogCommand"));
audit
  .command("check")
  .description("validate DIR/chronology.jsonl after a hand edit (line and field of the first problem)")
  .argument("<dir>", "study directory")
  .action(lazy(() => import("./commands/audit.js"), "auditCheckCommand"));

program
  .command("import")
  .description(
    "import logs of another framework as a study: inspect (.eval/.json), lm-eval, helm, eee, parquet (docs/INTEROP.md)",
  )
  .argument("<format>", "inspect | lm-eval | helm | eee | parquet")
  .argument("<paths...>", "log files or directories")
  .option("--out <dir>", "a new study directory")
  .option("--store <target>", "a postgres:// URL (add ?schema=NAME) of an empty schema instead of --out")
  .option("--mapping <file>", "YAML mapping: facets per log or header field, outcome values, scorer, renames")
  .option(
    "--max-entry-mb <n>",
    "largest inflated entry of a zipped log, or log file read as text, MiB (default 256)",
    intOption("--max-entry-mb", 1, MAX_ENTRY_MB),
  )
  .option(
    "--max-inflated-mb <n>",
    "largest inflated total of one zipped log, MiB (default 1024)",
    intOption("--max-inflated-mb", 1, MAX_INFLATED_MB),
  )
  .option("--split <name>", "helm: the split whose instances are imported (default test, else the run's only split)")
  .option("--json", "print the summary as JSON")
  .action(lazy(() => import("./commands/import.js"), "importCommand"));

/** An integer option's parser: outside [min, max] is an error naming the option and its bounds (exit 2). */
function intOption(name: string, min: number, max: number, note?: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
      const range =
        max < Number.MAX_SAFE_INTEGER
          ? `an integer from ${min} to ${max}`
          : min > Number.MIN_SAFE_INTEGER
            ? `an integer of at least ${min}`
            : "an integer";
      throw new ParallaxError(`${name}: expected ${range}${note ? ` (${note})` : ""}, found '${value}'`, 2);
    }
    return n;
  };
}

endQuietlyOnClosedPipe();
scrubTerminalOutput();

// A ParallaxError prints its message and exits with its code. Any other failure is a bug: its
// stack is printed (exit 1), not reported as an uncaught error, whose report would quote the
// throwing line of the (minified) bundle and reach the terminal without the secret scrub.
// A file-system failure no command words itself is still one line naming the path (exit 2).
function fail(caught: unknown): never {
  const path = (caught as NodeJS.ErrnoException | undefined)?.path;
  const error = path ? fileSystemError(caught, (caught as NodeJS.ErrnoException).syscall ?? "use", path) : caught;
  if (error instanceof ParallaxError) {
    process.stderr.write(`parallax: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  process.stderr.write(
    `parallax: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
program.parseAsync(process.argv).catch(fail);
