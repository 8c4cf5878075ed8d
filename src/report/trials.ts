/**
 * The trials pages: every trial behind the report's cells, grouped configuration > model >
 * benchmark, each with its exact messages (every sub-call, from the calls table), the response
 * and the score, split into files of `TRIALS_PER_PAGE` trials (trials-0001.html, ...) with an
 * index (trials.html), each written as a stream. Memory stays nearly flat in the trial count: the
 * cells come from the run's (model, benchmark, condition) groups, each cell's trial ids (a string
 * per trial, some 25 MB at 519k trials) from one pass over the run's trials in id order, and the
 * trials themselves are read in page order by id, a small batch of trials and their calls at a
 * time. Anchors: `t-<trial id>` per trial and the rate cells' ids (analysis/every-study/rates.ts cellId), so
 * the report links straight to a cell. Everything model-written is escaped.
 */
import { createWriteStream, existsSync } from "node:fs";
import { basename } from "node:path";
import { once } from "node:events";
import type { StudyAnalysis } from "../analysis/index.js";
import { ALL, cellId, configurationOf, trialRow } from "../analysis/index.js";
import type { CallRecord } from "../contracts/trial.js";
import { InputError } from "../core/errors.js";
import { conditionColumns } from "../facets/registry.js";
import { rowsHasher } from "../analysis/core/rows-hash.js";
import { scoredTablePages } from "../analysis/core/table.js";
import { trialPages } from "../run/store/pages.js";
import type { RunRecord, TrialRow, TrialStore } from "../run/store/types.js";
import { type Content, el, type Html, page, raw, render } from "./html.js";
import { isReportOutput } from "./output.js";
import type { CellTrials } from "./sections/registry.js";
import { TextEscaper, trialArticle } from "./trial-article.js";

export { trialAnchor } from "./links.js";

/** Trials per page file: a page stays a few MB however large the study. */
export const TRIALS_PER_PAGE = 500;

/** A fine cell (model x benchmark x configuration) of the trials pages. */
export interface TrialCell extends CellTrials {
  /** Its id (analysis/every-study/rates.ts cellId): the anchor of its section on each page that holds its trials. */
  id: string;
  configuration: string;
  /** The run's conditions whose trials fall in this cell. */
  conditionHashes: string[];
  /** Where its first trial stands in page order (0-based). */
  start: number;
}

export interface TrialsPages {
  /** The cells in page order, each with its trial count and the pages holding its trials. */
  cells: TrialCell[];
  /** Fine cell id -> the page file (its base name) holding the cell's first trial. */
  pageOf: Map<string, string>;
  /** The page files written, in order. */
  pages: string[];
}

/** The path of page `n` (1-based) of the trials index at `indexPath`: trials.html -> trials-0001.html. */
export function trialsPagePath(indexPath: string, n: number): string {
  return indexPath.replace(/(\.html?)?$/i, `-${String(n).padStart(4, "0")}.html`);
}

/** Trials read per statement when the run is scanned for its cells' trials (a few MB of rows). */
const SCAN_PAGE = 2_000;

/**
 * Trials per store page when the scan also hashes the analysed rows (`scanRun`): the pages' rows
 * and calls are garbage once hashed, and a page this small mostly dies young (rows-hash.ts).
 */
const HASHED_SCAN_PAGE = 200;

/**
 * The run's cells in page order (configurations in the analysis's order, then models and
 * benchmarks sorted), from its (model, benchmark, condition) groups, with each cell's trial ids
 * in id order. One pass over the run's trials in id order (keyset pages) finds them: a query per
 * cell would scan the run's trials in id order once per cell (quadratic: half an hour at 519k
 * trials). A group's first trial gives its configuration label, exactly as the analysis derived
 * it. `pages` is left empty.
 */
export async function trialCells(store: TrialStore, run: RunRecord, analysis: StudyAnalysis): Promise<TrialCell[]> {
  return [...(await cellsWithTrials(store, run, analysis)).keys()];
}

/** The run's cells in page order, each with its trial ids in id order (`trialCells`). */
export type ScannedCells = ReadonlyMap<TrialCell, readonly string[]>;

/**
 * The run's cells (`trialCells`, with their trial ids) and the rows hash of its analysed table
 * for `scorer` (rows-hash.ts), from one pass over the run's trials: the report checks its stored
 * analysis and finds its cells without reading the run twice.
 */
export async function scanRun(
  store: TrialStore,
  run: RunRecord,
  analysis: StudyAnalysis,
  hashed: { path: string; scorer?: string },
): Promise<{ cells: ScannedCells; rowsHash: string }> {
  const collector = await cellCollector(store, run, analysis);
  const hasher = rowsHasher(hashed.path, hashed.scorer);
  for await (const page of scoredTablePages(store, run, HASHED_SCAN_PAGE)) {
    collector.add(page.trials);
    hasher.add(page);
  }
  // The rows hash first: a scorer the run does not hold is refused before a changed run is.
  const rowsHash = hasher.digest();
  return { cells: collector.cells(), rowsHash };
}

/** The cells in page order, each with its trial ids in id order (a string per trial: flat enough at paper scale). */
async function cellsWithTrials(
  store: TrialStore,
  run: RunRecord,
  analysis: StudyAnalysis,
): Promise<Map<TrialCell, string[]>> {
  const collector = await cellCollector(store, run, analysis);
  for await (const trials of trialPages(store, run.id, { pageSize: SCAN_PAGE })) collector.add(trials);
  return collector.cells();
}

/** Collects the cells of the run's trials fed in id order (all of them, pending ones included). */
async function cellCollector(
  store: TrialStore,
  run: RunRecord,
  analysis: StudyAnalysis,
): Promise<{ add(trials: readonly TrialRow[]): void; cells(): Map<TrialCell, string[]> }> {
  const facets = conditionColumns(run.spec.conditions);
  const varying = analysis.meta.configurationFacets;
  const groups = await store.trialGroups(run.id);
  const groupKey = (model: string, benchmark: string, hash: string) => `${model}\u0000${benchmark}\u0000${hash}`;
  const cellOfGroup = new Map<string, TrialCell | undefined>(
    groups.map((g) => [groupKey(g.modelId, g.benchmarkId, g.conditionHash), undefined]),
  );
  const cells = new Map<string, TrialCell>();
  const idsOf = new Map<TrialCell, string[]>();
  const add = (trials: readonly TrialRow[]) => {
    for (const trial of trials) {
      const key = groupKey(trial.modelId, trial.benchmarkId, trial.conditionHash);
      let cell = cellOfGroup.get(key);
      if (cell === undefined) {
        if (!cellOfGroup.has(key)) throw changedWhileWriting();
        const row = trialRow(trial, facets);
        const configuration = configurationOf(row, varying);
        const id = cellId(trial.modelId, trial.benchmarkId, configuration);
        cell = cells.get(id) ?? {
          id,
          model: trial.modelId,
          benchmark: trial.benchmarkId,
          configuration,
          facets: Object.fromEntries(varying.map((f) => [f, row.facets[f]])),
          conditionHashes: [],
          trials: 0,
          start: 0,
          pages: [],
          firstPage: 0,
        };
        cells.set(id, cell);
        cellOfGroup.set(key, cell);
        idsOf.set(cell, idsOf.get(cell) ?? []);
      }
      idsOf.get(cell)!.push(trial.id);
    }
  };
  const ordered = (): Map<TrialCell, string[]> => {
    // The cells as their first groups come (the groups' order), each with its groups' trial counts.
    const firstMet = new Set<TrialCell>();
    for (const g of groups) {
      const cell = cellOfGroup.get(groupKey(g.modelId, g.benchmarkId, g.conditionHash));
      if (cell === undefined) throw changedWhileWriting();
      firstMet.add(cell);
      cell.conditionHashes.push(g.conditionHash);
      cell.trials += g.trials;
    }
    for (const cell of firstMet) if (cell.trials !== idsOf.get(cell)!.length) throw changedWhileWriting();
    // The analysis's configuration order (its rate cells); a configuration it has no rate for
    // (every trial still pending) after them, as first met.
    const rank = new Map<string, number>();
    for (const c of analysis.rates) if (!rank.has(c.configuration)) rank.set(c.configuration, rank.size);
    for (const c of firstMet) if (!rank.has(c.configuration)) rank.set(c.configuration, rank.size);
    const list = [...firstMet].sort(
      (a, b) =>
        rank.get(a.configuration)! - rank.get(b.configuration)! ||
        a.model.localeCompare(b.model) ||
        a.benchmark.localeCompare(b.benchmark),
    );
    let start = 0;
    for (const cell of list) {
      cell.start = start;
      start += cell.trials;
    }
    return new Map(list.map((cell) => [cell, idsOf.get(cell)!]));
  };
  return { add, cells: ordered };
}

/** Trials planned or removed while the report is written would shift every later page: refused. */
function changedWhileWriting(): InputError {
  return new InputError(`the run's trials changed while the report was written; run it again`);
}

/**
 * Trials rendered and written at a time: their markup is garbage once written, and a batch this
 * small dies in V8's young generation. A whole page (500 trials and their calls) outlived two
 * scavenges while its writes drained, so old space filled with dead pages and the peak RSS grew
 * with the trial count (docs/PERFORMANCE.md). It divides `TRIALS_PER_PAGE`, so a batch never
 * straddles two page files.
 */
const TRIALS_PER_BATCH = 50;

/**
 * Trials (and their calls) read per statement, in page order by id: a statement per 50 trials
 * cost more in its planning and round trip than in its rows. A multiple of `TRIALS_PER_BATCH`.
 */
const TRIALS_PER_READ = 500;

/** Trials in page order with their calls: `start` is the position of the batch's first trial. */
interface TrialBatch {
  start: number;
  trials: { cell: TrialCell; trial: TrialRow; calls: readonly CallRecord[] }[];
}

/**
 * The cells' trials in page order with their calls, `size` at a time; trials and calls are read
 * by their trial ids, `TRIALS_PER_READ` at a time.
 */
async function* trialsInPageOrder(
  store: TrialStore,
  run: RunRecord,
  cells: ReadonlyMap<TrialCell, readonly string[]>,
  size: number,
): AsyncGenerator<TrialBatch> {
  let wanted: { cell: TrialCell; id: string }[] = [];
  let start = 0;
  async function* take(): AsyncGenerator<TrialBatch> {
    const ids = wanted.map((w) => w.id);
    const { trials } = await store.browseTrials(run.id, { trialIds: ids }, { limit: ids.length });
    const byId = new Map(trials.map((t) => [t.id, t]));
    const callsOf = await store.listCallsOf(
      run.id,
      trials.filter((t) => t.status !== "pending").map((t) => t.id),
    );
    const read = wanted;
    wanted = [];
    for (let i = 0; i < read.length; i += size) {
      const batch = {
        start,
        trials: read.slice(i, i + size).map(({ cell, id }) => {
          const trial = byId.get(id);
          if (trial === undefined) throw changedWhileWriting();
          return { cell, trial, calls: callsOf.get(id) ?? [] };
        }),
      };
      start += batch.trials.length;
      yield batch;
    }
  }
  for (const [cell, ids] of cells) {
    for (const id of ids) {
      wanted.push({ cell, id });
      if (wanted.length === TRIALS_PER_READ) yield* take();
    }
  }
  if (wanted.length > 0) yield* take();
}

/**
 * Writes the trials pages and their index at `indexPath`; refuses (before writing) to replace a
 * page file that `parallax report` did not write, unless `force`.
 */
export async function writeTrialsPages(
  source: { store: TrialStore; run: RunRecord },
  analysis: StudyAnalysis,
  /**
   * Where the index goes (the pages are numbered after it), the link back to the report, whether
   * to overwrite, and the run's cells when a `scanRun` found them already.
   */
  target: { indexPath: string; reportHref: string; force?: boolean; cells?: ScannedCells },
): Promise<TrialsPages> {
  const { store, run } = source;
  const { indexPath, reportHref, force = false } = target;
  const withTrials = target.cells ?? (await cellsWithTrials(store, run, analysis));
  const cells = [...withTrials.keys()];
  const total = cells.reduce((sum, c) => sum + c.trials, 0);
  const pages = Array.from({ length: Math.ceil(total / TRIALS_PER_PAGE) }, (_, i) => trialsPagePath(indexPath, i + 1));
  refuseForeignPages(pages, force);
  const pageOf = new Map<string, string>();
  for (const cell of cells) {
    if (cell.trials === 0) continue;
    const first = Math.floor(cell.start / TRIALS_PER_PAGE);
    const last = Math.floor((cell.start + cell.trials - 1) / TRIALS_PER_PAGE);
    cell.pages = pages.slice(first, last + 1).map((p) => basename(p));
    cell.firstPage = first + 1;
    pageOf.set(cell.id, cell.pages[0]);
  }
  const indexHref = basename(indexPath);
  const texts = new TextEscaper();
  let current: { i: number; out: StreamedPage; nav: Html; cell?: TrialCell } | undefined;
  const closeCurrent = async () => {
    if (!current) return;
    if (current.cell !== undefined) await current.out.write("</section>");
    await current.out.close([current.nav]);
  };
  try {
    for await (const batch of trialsInPageOrder(store, run, withTrials, TRIALS_PER_BATCH)) {
      const i = Math.floor(batch.start / TRIALS_PER_PAGE);
      if (current?.i !== i) {
        await closeCurrent();
        current = undefined;
        const nav = pageNav(pages, i, indexHref, reportHref);
        const out = await openStreamed(pages[i], pageTitle(analysis, `trials page ${i + 1} of ${pages.length}`), [
          banner(analysis),
          el("h1", {}, `Trials of ${studyName(analysis)}: page ${i + 1} of ${pages.length}`),
          nav,
        ]);
        current = { i, out, nav };
      }
      current.cell = await writeBatch({ measures: analysis.meta.measures, texts }, batch, current.out, current.cell);
    }
  } catch (error) {
    current?.out.abort();
    throw error;
  }
  await closeCurrent();
  const index = await openStreamed(indexPath, pageTitle(analysis, "trials"), []);
  await index.write(renderIndex(analysis, cells, { total, pageOf, pages, reportHref }));
  await index.close([]);
  return { cells, pageOf, pages: pages.map((p) => basename(p)) };
}

function refuseForeignPages(pages: string[], force: boolean): void {
  if (force) return;
  const foreign = pages.filter((p) => existsSync(p) && !isReportOutput(p));
  if (foreign.length > 0) {
    throw new InputError(
      `the trials pages would overwrite ${foreign.join(", ")}, which parallax report did not write; choose another --out, or pass --force`,
    );
  }
}

function studyName(analysis: StudyAnalysis): string {
  return analysis.meta.source.study ?? analysis.meta.source.path;
}

function pageTitle(analysis: StudyAnalysis, what: string): string {
  return `${what} · ${analysis.meta.source.study ?? "study"}`;
}

function banner(analysis: StudyAnalysis): Content {
  return analysis.meta.simulated
    ? el("div", { class: "simulated" }, "SIMULATED DATA: every response below comes from a simulated respondent.")
    : "";
}

function pageNav(pages: string[], i: number, indexHref: string, reportHref: string): Html {
  return el(
    "p",
    { class: "lead" },
    el("a", { href: reportHref }, "back to the report"),
    raw(" · "),
    el("a", { href: indexHref }, "index of the trials pages"),
    i > 0 ? [raw(" · "), el("a", { href: basename(pages[i - 1]), rel: "prev" }, "previous page")] : "",
    i < pages.length - 1 ? [raw(" · "), el("a", { href: basename(pages[i + 1]), rel: "next" }, "next page")] : "",
  );
}

/**
 * Writes a batch's trials onto their page, grouped by cell: a cell's section opens at its first
 * trial on the page. `open` is the page's open cell section; returns it.
 */
async function writeBatch(
  source: { measures: StudyAnalysis["meta"]["measures"]; texts: TextEscaper },
  batch: TrialBatch,
  out: StreamedPage,
  open: TrialCell | undefined,
): Promise<TrialCell | undefined> {
  const { measures, texts } = source;
  // The batch's markup goes to the page in one write: a write (and a wait on the stream) per
  // trial cost more than rendering it.
  let html = "";
  for (const { cell, trial, calls } of batch.trials) {
    if (cell !== open) {
      if (open !== undefined) html += "</section>";
      html += `<section id="${cell.id}">${render(el("h3", {}, `${cell.model} · ${cell.benchmark} · ${cell.configuration}: ${cell.trials} trial(s)`))}`;
      open = cell;
    }
    html += trialArticle(trial, calls, measures?.[trial.benchmarkId], texts);
  }
  await out.write(html);
  return open;
}

/** A page file being written: its shell's head is written, its body parts are written as they come. */
interface StreamedPage {
  /** Writes a body part, waiting on the stream when it is full. */
  write(text: string): Promise<void>;
  /** Writes `after` and the shell's tail, and closes the file. */
  close(after: Content[]): Promise<void>;
  /** Closes the file as it is (after a failure). */
  abort(): void;
}

/** Opens a page file and writes the head of its shell (`page` around `before` and the body). */
async function openStreamed(path: string, title: string, before: Content[]): Promise<StreamedPage> {
  const mark = "\u0000BODY\u0000";
  const [head, tail] = page(title, [before, raw(mark)]).split(mark);
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  const close = async (after: Content[]) => {
    try {
      await write(render(after));
      await write(tail);
    } finally {
      out.end();
      await once(out, "close");
    }
  };
  try {
    await write(head);
  } catch (error) {
    out.destroy();
    throw error;
  }
  return { write, close, abort: () => out.destroy() };
}

/** The index: per configuration, per model, each benchmark's cell with its page, and the list of pages. */
function renderIndex(
  analysis: StudyAnalysis,
  cellList: readonly TrialCell[],
  /** The trial count, which page holds each cell's anchor, the pages, and the link back to the report. */
  paging: { total: number; pageOf: Map<string, string>; pages: string[]; reportHref: string },
): string {
  const { total, pageOf, pages, reportHref } = paging;
  const cells = new Map<string, Map<string, Map<string, number>>>();
  for (const k of cellList) {
    const models = cells.get(k.configuration) ?? new Map<string, Map<string, number>>();
    const benchmarks = models.get(k.model) ?? new Map<string, number>();
    benchmarks.set(k.benchmark, (benchmarks.get(k.benchmark) ?? 0) + k.trials);
    models.set(k.model, benchmarks);
    cells.set(k.configuration, models);
  }
  const cellA = (model: string, benchmark: string, configuration: string, text: string) => {
    const id = cellId(model, benchmark, configuration);
    return el("a", { href: `${pageOf.get(id) ?? ""}#${id}` }, text);
  };
  const sections = [...cells].map(([configuration, models]) => {
    const benchmarks = [...new Set([...models.values()].flatMap((b) => [...b.keys()]))].sort();
    return el(
      "section",
      { id: cellId(ALL, ALL, configuration) },
      el("h2", {}, `configuration ${configuration}`),
      benchmarks.map((benchmark) =>
        el(
          "p",
          { id: cellId(ALL, benchmark, configuration) },
          `${benchmark}: `,
          [...models.keys()]
            .sort()
            .filter((m) => models.get(m)!.has(benchmark))
            .map((m) => [cellA(m, benchmark, configuration, m), " "]),
        ),
      ),
      [...models.keys()].sort().map((model) =>
        el(
          "section",
          { id: cellId(model, ALL, configuration) },
          el("h3", {}, `${model} · ${configuration}`),
          el(
            "ul",
            {},
            [...models.get(model)!]
              .sort()
              .map(([benchmark, n]) =>
                el("li", {}, cellA(model, benchmark, configuration, `${benchmark}: ${n} trial(s)`)),
              ),
          ),
        ),
      ),
    );
  });
  return render([
    banner(analysis),
    el("h1", {}, `Trials of ${studyName(analysis)}`),
    el(
      "p",
      { class: "lead" },
      el("a", { href: reportHref }, "back to the report"),
      raw(" · "),
      `${total} trial(s) on ${pages.length} page(s) of up to ${TRIALS_PER_PAGE}, with every sub-call as sent and received.`,
    ),
    el(
      "nav",
      { class: "toc" },
      pages.map((p, i) => el("div", {}, el("a", { href: basename(p) }, `page ${i + 1}`))),
    ),
    sections,
  ]);
}
