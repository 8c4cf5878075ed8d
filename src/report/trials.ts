/**
 * trials.html: every trial behind the report's cells, grouped configuration > model > benchmark,
 * each with its exact messages (every sub-call, from the calls table), the response and the
 * score. Anchors: `t-<trial id>` per trial and the rate cells' ids (rates.ts cellId) per group,
 * so the report links straight to a cell or a trial. Everything model-written is escaped.
 */
import type { StudyAnalysis } from "../analysis/index.js";
import { ALL, cellId, configurationOf, trialRow } from "../analysis/index.js";
import type { CallRecord } from "../contracts/trial.js";
import { conditionColumns } from "../facets/registry.js";
import type { RunRecord, TrialRow, TrialStore } from "../run/store/types.js";
import { trialPages } from "../run/store/pages.js";
import { type Content, el, type Html, page, raw } from "./html.js";

export function trialAnchor(trialId: string): string {
  return `t-${trialId}`;
}

interface TrialEntry {
  trial: TrialRow;
  configuration: string;
  calls: CallRecord[];
}

/** Reads every trial and its calls, page by page. */
export async function collectTrials(store: TrialStore, run: RunRecord, analysis: StudyAnalysis): Promise<TrialEntry[]> {
  const facets = conditionColumns(run.spec.conditions);
  const entries: TrialEntry[] = [];
  for await (const trials of trialPages(store, run.id)) {
    const callsOf = await store.listCallsOf(
      run.id,
      trials.filter((t) => t.status !== "pending").map((t) => t.id),
    );
    for (const trial of trials) {
      const row = trialRow(trial, facets);
      entries.push({
        trial,
        configuration: configurationOf(row, analysis.meta.configurationFacets),
        calls: callsOf.get(trial.id) ?? [],
      });
    }
  }
  return entries;
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

function trialArticle(entry: TrialEntry): Html {
  const { trial } = entry;
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
    entry.calls.map(callBlock),
  );
}

/** The page; `reportHref` links back to the report. */
export function renderTrialsPage(entries: TrialEntry[], analysis: StudyAnalysis, reportHref: string): string {
  const byConfiguration = new Map<string, TrialEntry[]>();
  for (const e of entries) byConfiguration.set(e.configuration, [...(byConfiguration.get(e.configuration) ?? []), e]);
  const sections: Content[] = [];
  for (const [configuration, members] of byConfiguration) {
    const models = [...new Set(members.map((m) => m.trial.modelId))].sort();
    const benchmarks = [...new Set(members.map((m) => m.trial.benchmarkId))].sort();
    const modelSections = models.map((model) => {
      const mine = members.filter((m) => m.trial.modelId === model);
      return el(
        "section",
        { id: cellId(model, ALL, configuration) },
        el("h3", {}, `${model} · ${configuration}`),
        benchmarks.map((benchmark) => {
          const cell = mine.filter((m) => m.trial.benchmarkId === benchmark);
          if (cell.length === 0) return "";
          return el(
            "section",
            { id: cellId(model, benchmark, configuration) },
            el("h4", {}, `${model} · ${benchmark} · ${configuration}: ${cell.length} trial(s)`),
            cell.map(trialArticle),
          );
        }),
      );
    });
    // Benchmark-pooled-over-models cells have no single section: an index of their sub-sections.
    const benchmarkIndex = benchmarks.map((benchmark) =>
      el(
        "p",
        { id: cellId(ALL, benchmark, configuration) },
        `${benchmark}: `,
        models.map((model) => [el("a", { href: `#${cellId(model, benchmark, configuration)}` }, model), " "]),
      ),
    );
    sections.push(
      el(
        "section",
        { id: cellId(ALL, ALL, configuration) },
        el("h2", {}, `configuration ${configuration}`),
        benchmarkIndex,
        modelSections,
      ),
    );
  }
  const banner = analysis.meta.simulated
    ? el("div", { class: "simulated" }, "SIMULATED DATA: every response below comes from a simulated respondent.")
    : "";
  return page(`Trials · ${analysis.meta.source.study ?? "study"}`, [
    banner,
    el("h1", {}, `Trials of ${analysis.meta.source.study ?? analysis.meta.source.path}`),
    el(
      "p",
      { class: "lead" },
      el("a", { href: reportHref }, "back to the report"),
      raw(" · "),
      `${entries.length} trial(s), with every sub-call as sent and received.`,
    ),
    sections,
  ]);
}
