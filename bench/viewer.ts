/**
 * npm run bench:viewer — the viewer's first page at 100k trials, and `report`'s memory and time
 * at 20k trials.
 *
 * Part 1 writes a 100k-trial study (tests/viewer/fixture.ts: direct store inserts, untimed),
 * starts the viewer in this process and times the first page ("/", 100 trials): the very first
 * request (cold: the store's pages not yet cached), then `--runs` more (median, max), a filtered
 * page, a deep page (keyset from the middle), a trial page, the first search (builds the FTS5
 * index) and a second search; and, when /usr/bin/chromium exists, the browser's navigation to
 * the first page (load event) in headless Chromium.
 *
 * Part 1b (`cold`) starts the viewer on the same study in `--cold-runs` fresh processes, one after
 * another, each timing its start and its very first request with node:http (median, min, max;
 * part 1's first request is the process's first fetch, which includes setting up undici): the first
 * request of a process pays whatever the later ones do not (code not yet compiled, the store's
 * pages not yet in SQLite's cache), unless the server pays it at start.
 *
 * Part 2 writes a 20k-trial study, runs `parallax analyze` (untimed), then times `parallax
 * report` `--report-runs` times under /usr/bin/time (wall seconds and maximum RSS: median and
 * range, since the peak depends on when V8 collects) and reports the largest file it wrote. `-- --cli PATH` runs another checkout's src/cli/main.ts (e.g. the commit before the
 * paged trials pages, with --without-viewer-migration) for the before/after comparison. Then,
 * for this checkout, the same report in process under --expose-gc (`--report-child`), with a
 * full GC after each phase: the heap each phase keeps. Prints Markdown.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import http from "node:http";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { startViewer } from "../src/viewer/serve.js";
import { type PlantedTrial, writeLargeStudy } from "../tests/viewer/fixture.js";

const repo = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "20" },
    trials: { type: "string", default: "100000" },
    "report-trials": { type: "string", default: "20000" },
    // Part 2: `report` is timed this many times (max RSS varies run to run with GC timing): the median and the range.
    "report-runs": { type: "string", default: "3" },
    cli: { type: "string", default: join(repo, "src/cli/main.ts") },
    skip: { type: "string", default: "" },
    "cold-runs": { type: "string", default: "7" },
    // Internal: one fresh process of part 1b (start the viewer on DIR, time its first request).
    "cold-child": { type: "string" },
    // Internal: part 2's report in process, under --expose-gc (the heap each phase retains).
    "report-child": { type: "string" },
    // For --cli of a checkout older than store migration 0007: the store without it.
    "without-viewer-migration": { type: "boolean", default: false },
  },
});
const runs = Number(values.runs);
const skip = new Set(values.skip.split(",").filter(Boolean));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function timed(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.text();
  if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status}`);
  return performance.now() - started;
}

async function viewerPart(dir: string, trials: PlantedTrial[], setupMs: number): Promise<void> {
  const count = trials.length;
  const started = performance.now();
  const viewer = await startViewer(dir);
  const startMs = performance.now() - started;
  try {
    const cold = await timed(viewer.url);
    const warm: number[] = [];
    for (let i = 0; i < runs; i++) warm.push(await timed(viewer.url));
    const middle = [...trials].map((t) => t.id).sort()[Math.floor(count / 2)];
    const filtered = await timed(`${viewer.url}?model=sim-b&outcome=fail&f.scaffold=map_reduce`);
    const deep = await timed(`${viewer.url}?after=${middle}`);
    const trial = await timed(`${viewer.url}trials/${trials[1].id}`);
    const firstSearch = await timed(`${viewer.url}?q=marker777`);
    const secondSearch = await timed(`${viewer.url}?q=marker778`);
    const browser = existsSync("/usr/bin/chromium") ? await chromiumLoads(viewer.url) : [];
    console.log(`### Viewer at ${count.toLocaleString("en")} trials\n`);
    console.log(
      `(store written in ${(setupMs / 1000).toFixed(1)} s, untimed; viewer start ${startMs.toFixed(0)} ms)\n`,
    );
    console.log("| request | time (ms) |\n| --- | ---: |");
    console.log(`| first page, first request (cold) | ${cold.toFixed(0)} |`);
    console.log(`| first page, median of ${runs} | ${median(warm).toFixed(0)} |`);
    console.log(`| first page, max of ${runs} | ${Math.max(...warm).toFixed(0)} |`);
    if (browser.length > 0)
      console.log(
        `| first page in Chromium (navigation to load), median of ${browser.length} | ${median(browser).toFixed(0)} |`,
      );
    console.log(`| filtered page (model, outcome, facet) | ${filtered.toFixed(0)} |`);
    console.log(`| page from the middle (keyset) | ${deep.toFixed(0)} |`);
    console.log(`| trial page | ${trial.toFixed(0)} |`);
    console.log(`| first search (builds the FTS5 index) | ${firstSearch.toFixed(0)} |`);
    console.log(`| second search | ${secondSearch.toFixed(0)} |\n`);
  } finally {
    await viewer.close();
  }
}

async function chromiumLoads(url: string): Promise<number[]> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const page = await browser.newPage();
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto(url, { waitUntil: "load" });
      times.push(
        await page.evaluate(() => {
          const [nav] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
          return nav.loadEventEnd - nav.startTime;
        }),
      );
    }
    return times;
  } finally {
    await browser.close();
  }
}

function cli(args: string[], withTime = false): { seconds: number; rssMb: number } {
  const command = withTime ? "/usr/bin/time" : process.execPath;
  const base = [process.execPath, "--import", "tsx", resolve(values.cli), ...args];
  const child = spawnSync(command, withTime ? ["-f", "%e %M", ...base] : base.slice(1), {
    cwd: repo,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0 && child.status !== 3)
    throw new Error(`parallax ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  if (!withTime) return { seconds: 0, rssMb: 0 };
  const [seconds, rssKb] = child.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  return { seconds, rssMb: rssKb / 1024 };
}

async function reportPart(): Promise<void> {
  const count = Number(values["report-trials"]);
  const { dir } = await writeLargeStudy(count);
  if (values["without-viewer-migration"]) dropViewerMigration(dir);
  cli(["analyze", dir]);
  const timings = Array.from({ length: Number(values["report-runs"]) }, () => cli(["report", dir], true));
  const seconds = median(timings.map((t) => t.seconds));
  const rss = timings.map((t) => t.rssMb);
  const html = readdirSync(dir).filter((f) => f.endsWith(".html"));
  const sizes = html.map((f) => statSync(join(dir, f)).size);
  const largest = Math.max(...sizes);
  console.log(`### report at ${count.toLocaleString("en")} trials (${values.cli}), ${timings.length} run(s)\n`);
  console.log(
    "| wall (s), median | max RSS (MB), median | max RSS (MB), min-max | HTML files | largest file (MB) | all files (MB) |\n| ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  console.log(
    `| ${seconds.toFixed(1)} | ${median(rss).toFixed(0)} | ${Math.min(...rss).toFixed(0)}-${Math.max(...rss).toFixed(0)} | ${html.length} | ${(largest / 1e6).toFixed(1)} | ${(sizes.reduce((a, b) => a + b, 0) / 1e6).toFixed(1)} |\n`,
  );
  if (values.cli !== join(repo, "src/cli/main.ts")) return;
  // The same report in process, with a full GC after each phase: what each phase keeps, as
  // opposed to the garbage V8 lets accumulate before its next major GC (part of max RSS).
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", join(repo, "bench/viewer.ts"), "--report-child", dir],
    { cwd: repo, encoding: "utf8" },
  );
  if (child.status !== 0) throw new Error(`report child exited ${child.status}: ${child.stderr}`);
  console.log("| phase (in process, after a full GC) | heap used (MB) | max RSS so far (MB) |\n| --- | ---: | ---: |");
  for (const line of child.stdout.trim().split("\n")) {
    const { phase, heapMb, maxRssMb } = JSON.parse(line);
    console.log(`| ${phase} | ${heapMb.toFixed(1)} | ${maxRssMb.toFixed(0)} |`);
  }
  console.log("");
}

/** Part 2's report in process: the stored analysis (rows hash), then the report and its pages. */
async function reportChild(dir: string): Promise<void> {
  const { storedAnalysis } = await import("../src/analysis/core/record.js");
  const { writeReport } = await import("../src/report/index.js");
  const { openStore } = await import("../src/run/store/open.js");
  const { REPORT_CACHE_KIB } = await import("../src/cli/commands/report.js");
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  const phase = (name: string) => {
    gc();
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    console.log(JSON.stringify({ phase: name, heapMb, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
  };
  // The page cache `parallax report` asks for.
  const store = await openStore(dir, { cacheKiB: REPORT_CACHE_KIB });
  try {
    const run = (await store.getRun())!;
    phase("store opened");
    const record = await storedAnalysis(dir, store, run);
    phase("stored analysis checked (paged rows hash)");
    await writeReport({ outcome: record, card: record.scorecard }, { store, run }, join(dir, "report.html"), {
      force: true,
    });
    phase("report and trials pages written");
  } finally {
    await store.close();
  }
}

/** Undoes migration 0007 (two indexes), which an older checkout would refuse as unknown. */
function dropViewerMigration(dir: string): void {
  const db = new Database(join(dir, "parallax.db"));
  try {
    db.exec("drop index trials_run_group; drop index trials_run_item");
    db.prepare("delete from kysely_migration where name = ?").run("0007_viewer_indexes");
  } finally {
    db.close();
  }
}

/**
 * A GET timed with node:http, which the server has loaded already: fetch's first call in a
 * process loads and sets up undici (50-350 ms here), a client cost that is not the viewer's.
 */
function timedHttp(url: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url}: HTTP ${res.statusCode}`));
        res.resume();
        res.on("end", () => resolve(performance.now() - started));
      })
      .on("error", reject);
  });
}

/** One fresh process: the viewer's start and its first request, as JSON on stdout. */
async function coldChild(dir: string): Promise<void> {
  const started = performance.now();
  const viewer = await startViewer(dir);
  const startMs = performance.now() - started;
  try {
    const first = await timedHttp(viewer.url);
    const second = await timedHttp(viewer.url);
    console.log(JSON.stringify({ startMs, first, second }));
  } finally {
    await viewer.close();
  }
}

function coldPart(dir: string, count: number): void {
  const results: { startMs: number; first: number; second: number }[] = [];
  for (let i = 0; i < Number(values["cold-runs"]); i++) {
    const child = spawnSync(process.execPath, ["--import", "tsx", join(repo, "bench/viewer.ts"), "--cold-child", dir], {
      cwd: repo,
      encoding: "utf8",
    });
    if (child.status !== 0) throw new Error(`cold child exited ${child.status}: ${child.stderr}`);
    results.push(JSON.parse(child.stdout.trim().split("\n").at(-1)!));
  }
  const row = (what: string, xs: number[]) =>
    `| ${what} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`;
  console.log(`### Cold first request at ${count.toLocaleString("en")} trials, ${results.length} fresh processes\n`);
  console.log("| time (ms) | median | min | max |\n| --- | ---: | ---: | ---: |");
  console.log(
    row(
      "viewer start (open store, groups, warm-up)",
      results.map((r) => r.startMs),
    ),
  );
  console.log(
    row(
      "first request of the process (cold)",
      results.map((r) => r.first),
    ),
  );
  console.log(
    row(
      "second request",
      results.map((r) => r.second),
    ),
  );
  console.log("");
}

if (values["cold-child"]) await coldChild(values["cold-child"]);
else if (values["report-child"]) await reportChild(values["report-child"]);
else {
  if (!skip.has("viewer") || !skip.has("cold")) {
    const setup = performance.now();
    const { dir, trials } = await writeLargeStudy(Number(values.trials), 5_000);
    const setupMs = performance.now() - setup;
    if (!skip.has("viewer")) await viewerPart(dir, trials, setupMs);
    if (!skip.has("cold")) coldPart(dir, trials.length);
  }
  if (!skip.has("report")) await reportPart();
}
