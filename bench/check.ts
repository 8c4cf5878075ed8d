/**
 * npm run bench:check — re-measures the headline figures of docs/PERFORMANCE.md (bench/headline.json,
 * which the doc quotes) and prints each beside its documented value, with the load average. Each
 * figure is taken as its own benchmark takes it, in fewer rounds: the bootstrap against numpy
 * (bench/stats.ts), the run's fixed cost and the HTTP run (bench/http.ts, the built CLI: `npm run
 * build` first) and the simulated runner (bench/runner.ts). 4.5 minutes at load 16 on this 2-core
 * machine, plus the paper-scale group (bench/paper-scale.ts: its three designs at full size, which takes
 * tens of minutes; `--skip paper-scale` leaves it out). `--skip http,runner` leaves groups out;
 * `--json` prints the comparisons as JSON.
 * Exits 1 when the doc does not quote a figure of the JSON as it stands there; a figure that does
 * not reproduce is reported, not failed (the machine may be busy: read the load).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Comparison, compare, formatComparisons, readHeadlines, unquotedFigures } from "./headline-figures.js";
import { HTTP_IDEAL_S, measureFixedCost, measureHttpRun, median } from "./http.js";
import { type DesignResult, measureDesign, paperScalePrerequisites, perTrialKb } from "./paper-scale.js";

const REPO = resolve(import.meta.dirname, "..");
const CLI = join(REPO, "dist/bundle/parallax.js");

type Measured = Record<string, number>;

async function bootstrapGroup(): Promise<Measured> {
  const { bootstrapSitting } = await import("./stats.js");
  const { closeBootstrapWorkers } = await import("../src/stats/parallel-bootstrap.js");
  const out: Measured = {};
  for (const [key, cases] of [
    ["62k", 2617],
    ["251k", 2617 * 4],
  ] as const) {
    const f = await bootstrapSitting(cases, 5);
    if (f.numpy.length > 0) out[`bootstrap-${key}-vs-numpy`] = median(f.numpy.map((n, i) => n / f.one[i]));
    out[`bootstrap-${key}-two-threads`] = median(f.one.map((o, i) => o / f.two[i]));
  }
  await closeBootstrapWorkers();
  return out;
}

async function httpGroup(): Promise<Measured> {
  const fixed = await measureFixedCost(5, CLI);
  const http = await measureHttpRun(3, CLI);
  return {
    "run-fixed-cost": median(fixed.parallax),
    "http-run-of-ideal": (100 * HTTP_IDEAL_S) / median(http.parallax),
  };
}

/** The 10k-trial simulated study in process (bench/runner.ts case 0), median of 3 processes. */
function runnerGroup(): Measured {
  const rates: number[] = [];
  for (let run = 0; run < 3; run++) {
    const child = spawnSync(process.execPath, ["--import", "tsx", join(REPO, "bench/runner.ts"), "0"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (child.status !== 0) throw new Error("bench/runner.ts 0 failed");
    rates.push(JSON.parse(child.stdout).trialsPerSecond);
  }
  return { "sim-10k-trials-per-s": median(rates) };
}

/** The paper-scale figures (keys of bench/headline.json), each read off one design's measurement. */
const PAPER_SCALE_FIGURES: Record<
  string,
  (m: { scaffold: DesignResult; repro: DesignResult; audit: DesignResult }) => number | null
> = {
  "paper-repro-first-trial-s": (m) => m.repro.firstTrialS,
  "paper-repro-run-rss-mb": (m) => m.repro.stages.run.peakRssMb,
  "paper-repro-store-kb-per-trial": (m) => Number(perTrialKb(m.repro)),
  "paper-repro-analyze-s": (m) => m.repro.stages.analyze.wallS,
  "paper-repro-analyze-rss-mb": (m) => m.repro.stages.analyze.peakRssMb,
  "paper-repro-report-s": (m) => m.repro.stages.report.wallS,
  "paper-repro-viewer-first-page-ms": (m) => m.repro.viewer.firstPageColdMs,
  "paper-scaffold-run-rss-mb": (m) => m.scaffold.stages.run.peakRssMb,
  "paper-scaffold-analyze-s": (m) => m.scaffold.stages.analyze.wallS,
  "paper-scaffold-search-ms": (m) => m.scaffold.viewer.searchMs,
  "paper-audit-run-rss-mb": (m) => m.audit.stages.run.peakRssMb,
  "paper-audit-analyze-s": (m) => m.audit.stages.analyze.wallS,
};

/** The three designs at full size (bench/paper-scale.ts), in a temp folder removed afterwards: tens of minutes. */
async function paperScaleGroup(): Promise<Measured> {
  const problem = paperScalePrerequisites();
  if (problem) throw new Error(problem);
  const root = mkdtempSync(join(tmpdir(), "parallax-check-paper-scale-"));
  try {
    const scaffold = await measureDesign("scaffold", 1, root);
    const repro = await measureDesign("repro", 1, root);
    const audit = await measureDesign("audit", 1, root);
    const out: Measured = {};
    for (const [id, read] of Object.entries(PAPER_SCALE_FIGURES)) {
      const value = read({ scaffold, repro, audit });
      if (value !== null) out[id] = value;
    }
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Why a figure of a group that ran has no value: numpy absent (bootstrap), or the run finished no trial. */
const notMeasured = (id: string) => (id.startsWith("bootstrap-") ? "no numpy" : "not measured");

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { skip: { type: "string", default: "" }, json: { type: "boolean", default: false } },
  });
  const skip = new Set(values.skip.split(",").filter(Boolean));
  const figures = readHeadlines(join(REPO, "bench/headline.json"));
  const unquoted = unquotedFigures(readFileSync(join(REPO, "docs/PERFORMANCE.md"), "utf8"), figures);
  const loadBefore = loadavg()[0];
  const measured: Measured = {};
  const skipped = new Map<string, string>();
  const groups: [string, string[], () => Promise<Measured> | Measured][] = [
    [
      "bootstrap",
      ["bootstrap-62k-vs-numpy", "bootstrap-251k-vs-numpy", "bootstrap-62k-two-threads", "bootstrap-251k-two-threads"],
      bootstrapGroup,
    ],
    ["http", ["run-fixed-cost", "http-run-of-ideal"], httpGroup],
    ["runner", ["sim-10k-trials-per-s"], runnerGroup],
    ["paper-scale", Object.keys(PAPER_SCALE_FIGURES), paperScaleGroup],
  ];
  for (const [name, ids, group] of groups) {
    if (skip.has(name)) {
      for (const id of ids) skipped.set(id, `--skip ${name}`);
      continue;
    }
    process.stderr.write(`measuring ${name} ...\n`);
    Object.assign(measured, await group());
  }
  const loadAfter = loadavg()[0];
  const rows: Comparison[] = figures.map((figure) =>
    compare(
      figure,
      measured[figure.id],
      skipped.get(figure.id) ?? (measured[figure.id] === undefined ? notMeasured(figure.id) : undefined),
    ),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ load: [loadBefore, loadAfter], rows }, null, 2)}\n`);
  } else {
    console.log(
      `bench:check, ${new Date().toISOString().slice(0, 16)}Z, Node ${process.version}, load average (1 min) ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after\n`,
    );
    console.log(formatComparisons(rows));
  }
  if (unquoted.length > 0) {
    console.error(
      `docs/PERFORMANCE.md does not quote these figures of bench/headline.json as they stand there: ${unquoted.map((f) => f.id).join(", ")}`,
    );
    process.exitCode = 1;
  }
}

await main();
