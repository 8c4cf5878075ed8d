/**
 * The trials pages: every trial behind the report's cells, grouped configuration > model >
 * benchmark, each with its exact messages (every sub-call, from the calls table), the response
 * and the score, split into files of `TRIALS_PER_PAGE` trials (trials-0001.html, ...) with an
 * index (trials.html), each written as a stream. Memory stays flat in the trial count: only a
 * small key per trial (id, model, benchmark, configuration, score) is held, to order the trials
 * and to link the report's numbers; the calls are read one page of trials at a time.
 * Anchors: `t-<trial id>` per trial and the rate cells' ids (rates.ts cellId), so the report
 * links straight to a cell or a trial. Everything model-written is escaped.
 */
import { createWriteStream, existsSync } from "node:fs";
import { basename } from "node:path";
import { once } from "node:events";
import type { StudyAnalysis } from "../analysis/index.js";
import { ALL, cellId, configurationOf, trialRow } from "../analysis/index.js";
import type { CallRecord } from "../contracts/trial.js";
import { InputError } from "../core/errors.js";
import { conditionColumns } from "../facets/registry.js";
import type { RunRecord, TrialRow, TrialStore } from "../run/store/types.js";
import { trialPages } from "../run/store/pages.js";
import { type Content, el, type Html, page, raw, render } from "./html.js";
import { trialAnchor } from "./links.js";
import { isReportOutput } from "./output.js";

export { trialAnchor } from "./links.js";

/** Trials per page file: a page stays a few MB however large the study. */
export const TRIALS_PER_PAGE = 500;

/** What the report keeps of each trial: enough to order, group and link it. */
export interface TrialKey {
  id: string;
  model: string;
  benchmark: string;
  configuration: string;
  score: number | null;
}

export interface TrialsPages {
  /** Every trial's key, in page order. */
  keys: TrialKey[];
  /** Trial anchor or fine cell id -> the page file (its base name) that holds it (a cell: its first page). */
  pageOf: Map<string, string>;
  /** The page files written, in order. */
  pages: string[];
}

/** The path of page `n` (1-based) of the trials index at `indexPath`: trials.html -> trials-0001.html. */
export function trialsPagePath(indexPath: string, n: number): string {
  return indexPath.replace(/(\.html?)?$/i, `-${String(n).padStart(4, "0")}.html`);
}

/** Reads every trial's key, a store page at a time, ordered configuration > model > benchmark > id. */
export async function trialKeys(store: TrialStore, run: RunRecord, analysis: StudyAnalysis): Promise<TrialKey[]> {
  const facets = conditionColumns(run.spec.conditions);
  const keys: TrialKey[] = [];
  for await (const trials of trialPages(store, run.id)) {
    for (const trial of trials) {
      keys.push({
        id: trial.id,
        model: trial.modelId,
        benchmark: trial.benchmarkId,
        configuration: configurationOf(trialRow(trial, facets), analysis.meta.configurationFacets),
        score: trial.outcome?.score ?? null,
      });
    }
  }
  // Configurations in first-seen order (as the single page had them); models, benchmarks, ids sorted.
  const rank = new Map<string, number>();
  for (const k of keys) if (!rank.has(k.configuration)) rank.set(k.configuration, rank.size);
  return keys.sort(
    (a, b) =>
      rank.get(a.configuration)! - rank.get(b.configuration)! ||
      a.model.localeCompare(b.model) ||
      a.benchmark.localeCompare(b.benchmark) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * Writes the trials pages and their index at `indexPath`; refuses (before writing) to replace a
 * page file that `parallax report` did not write, unless `force`.
 */
export async function writeTrialsPages(
  store: TrialStore,
  run: RunRecord,
  analysis: StudyAnalysis,
  indexPath: string,
  reportHref: string,
  force = false,
): Promise<TrialsPages> {
  const keys = await trialKeys(store, run, analysis);
  const chunks: TrialKey[][] = [];
  for (let i = 0; i < keys.length; i += TRIALS_PER_PAGE) chunks.push(keys.slice(i, i + TRIALS_PER_PAGE));
  const pages = chunks.map((_, i) => trialsPagePath(indexPath, i + 1));
  refuseForeignPages(pages, force);
  const pageOf = new Map<string, string>();
  chunks.forEach((chunk, i) => {
    const file = basename(pages[i]);
    for (const k of chunk) {
      pageOf.set(trialAnchor(k.id), file);
      const cell = cellId(k.model, k.benchmark, k.configuration);
      if (!pageOf.has(cell)) pageOf.set(cell, file);
    }
  });
  const indexHref = basename(indexPath);
  for (const [i, chunk] of chunks.entries()) {
    const nav = pageNav(pages, i, indexHref, reportHref);
    await writeStreamed(
      pages[i],
      pageTitle(analysis, `trials page ${i + 1} of ${pages.length}`),
      [banner(analysis), el("h1", {}, `Trials of ${studyName(analysis)}: page ${i + 1} of ${pages.length}`), nav],
      pageBody(store, run, chunk, keys),
      [nav],
    );
  }
  await writeStreamed(
    indexPath,
    pageTitle(analysis, "trials"),
    [],
    (async function* () {
      yield renderIndex(analysis, keys, pageOf, pages, reportHref);
    })(),
    [],
  );
  return { keys, pageOf, pages: pages.map((p) => basename(p)) };
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

/** A page's trials, grouped by cell, rendered as they are read (one store query per page). */
async function* pageBody(
  store: TrialStore,
  run: RunRecord,
  chunk: TrialKey[],
  keys: TrialKey[],
): AsyncGenerator<string> {
  const ids = chunk.map((k) => k.id);
  const { trials } = await store.browseTrials(run.id, { trialIds: ids }, { limit: ids.length });
  const byId = new Map(trials.map((t) => [t.id, t]));
  const callsOf = await store.listCallsOf(
    run.id,
    trials.filter((t) => t.status !== "pending").map((t) => t.id),
  );
  let open: string | undefined;
  for (const key of chunk) {
    const cell = cellId(key.model, key.benchmark, key.configuration);
    if (cell !== open) {
      if (open !== undefined) yield "</section>";
      const total = cellSize(keys, key);
      yield `<section id="${cell}">${render(el("h3", {}, `${key.model} · ${key.benchmark} · ${key.configuration}: ${total} trial(s)`))}`;
      open = cell;
    }
    const trial = byId.get(key.id);
    if (trial) yield render(trialArticle(trial, callsOf.get(trial.id) ?? []));
  }
  if (open !== undefined) yield "</section>";
}

const cellSizes = new WeakMap<TrialKey[], Map<string, number>>();

/** How many trials the key's cell has in the whole study (counted once per study). */
function cellSize(keys: TrialKey[], key: TrialKey): number {
  let sizes = cellSizes.get(keys);
  if (!sizes) {
    sizes = new Map();
    for (const k of keys) {
      const id = cellId(k.model, k.benchmark, k.configuration);
      sizes.set(id, (sizes.get(id) ?? 0) + 1);
    }
    cellSizes.set(keys, sizes);
  }
  return sizes.get(cellId(key.model, key.benchmark, key.configuration)) ?? 0;
}

/** Writes a page shell around streamed body parts, waiting on the stream when it is full. */
async function writeStreamed(
  path: string,
  title: string,
  before: Content[],
  body: AsyncIterable<string>,
  after: Content[],
): Promise<void> {
  const mark = "\u0000BODY\u0000";
  const [head, tail] = page(title, [before, raw(mark)]).split(mark);
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  try {
    await write(head);
    for await (const part of body) await write(part);
    await write(render(after));
    await write(tail);
  } finally {
    out.end();
    await once(out, "close");
  }
}

/** The index: per configuration, per model, each benchmark's cell with its page, and the list of pages. */
function renderIndex(
  analysis: StudyAnalysis,
  keys: TrialKey[],
  pageOf: Map<string, string>,
  pages: string[],
  reportHref: string,
): string {
  const cells = new Map<string, Map<string, Map<string, number>>>();
  for (const k of keys) {
    const models = cells.get(k.configuration) ?? new Map<string, Map<string, number>>();
    const benchmarks = models.get(k.model) ?? new Map<string, number>();
    benchmarks.set(k.benchmark, (benchmarks.get(k.benchmark) ?? 0) + 1);
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
      `${keys.length} trial(s) on ${pages.length} page(s) of up to ${TRIALS_PER_PAGE}, with every sub-call as sent and received.`,
    ),
    el(
      "nav",
      { class: "toc" },
      pages.map((p, i) => el("div", {}, el("a", { href: basename(p) }, `page ${i + 1}`))),
    ),
    sections,
  ]);
}

function outcomeText(trial: TrialRow): string {
  if (trial.status === "pending") return "pending";
  if (trial.status === "errored") return `errored (${trial.outcome?.failureBucket ?? "?"})`;
  const score = trial.outcome?.score;
  return score === 1 ? "safe / correct (1)" : score === 0 ? "unsafe / incorrect (0)" : "not scored";
}

function callBlock(call: CallRecord): Html {
  return el(
    "details",
    { open: true },
    el(
      "summary",
      {},
      `call ${call.seq} · ${call.role}${call.execution > 1 ? ` · execution ${call.execution}` : ""}${call.cached ? " · cached" : ""}`,
    ),
    call.messages.map((m) => [el("div", { class: "msg-role" }, m.role), el("pre", { class: "message" }, m.content)]),
    el("div", { class: "msg-role" }, "response"),
    el("pre", { class: "response" }, call.responseText ?? "(no response)"),
    call.error ? el("p", { class: "muted" }, `error ${call.error.bucket}: ${call.error.message}`) : "",
    judgeNote(call),
  );
}

/** A judge sub-call's verdict or guess (CallRecord.note.judge, src/run/scoring/run-judging.ts). */
function judgeNote(call: CallRecord): Content {
  const judge = call.note?.judge as Record<string, unknown> | undefined;
  if (!judge) return "";
  const text =
    judge.purpose === "guess"
      ? `blinding check: judge ${judge.judge} guessed ${judge.guess ?? "don't know"} (response ${judge.uuid})`
      : judge.ok
        ? `verdict of judge ${judge.judge} (${judge.role}, rubric ${judge.rubric}): ${judge.label}, confidence ${judge.confidence}, outcome ${judge.outcome ?? "excluded"}; ${judge.justification ?? ""}`
        : `verdict of judge ${judge.judge} (${judge.role}): unparseable (${judge.error})`;
  return el("p", { class: "muted" }, text);
}

function trialArticle(trial: TrialRow, calls: CallRecord[]): Html {
  const o = trial.outcome;
  const condition = Object.entries(trial.condition)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(" ");
  return el(
    "article",
    { class: "trial", id: trialAnchor(trial.id) },
    el("h4", {}, `trial ${trial.id}`),
    el(
      "p",
      {},
      `model ${trial.modelId} · benchmark ${trial.benchmarkId} · item ${trial.itemId} · attempt ${trial.attempt} · ${condition}`,
    ),
    el(
      "p",
      {},
      el("strong", {}, outcomeText(trial)),
      ` · scored by ${o?.scorer ?? "-"} · parse ${o?.parseStatus ?? "-"} · parsed answer ${o?.parsedAnswer ?? "-"}${o?.simulated ? " · SIMULATED response" : ""}`,
    ),
    o?.finalAnswer
      ? [el("div", { class: "msg-role" }, "final answer"), el("pre", { class: "final" }, o.finalAnswer)]
      : "",
    calls.map(callBlock),
  );
}
