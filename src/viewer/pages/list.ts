/** The trial list: filters, full-text search and keyset pages of the run's trials. */
import { visibleText } from "../../core/visible-text.js";
import { FAILURE_BUCKETS } from "../../contracts/failure.js";
import { type Content, el, table } from "../../report/html.js";
import { OUTCOME_FILTERS } from "../../run/store/browse.js";
import type { TrialRow } from "../../run/store/types.js";
import { auditNames, filterParams, type ListFilters, PARSE_STATUSES } from "../filters.js";
import { viewerPage } from "../layout.js";
import type { ViewerStudy } from "../study.js";
import { outcomeText, trialHref } from "./trial-parts.js";

export const PAGE_SIZE = 100;

export interface ListPage {
  trials: TrialRow[];
  /** Whether a next / previous page exists. */
  next: boolean;
  previous: boolean;
}

export function renderList(study: ViewerStudy, filters: ListFilters, list: ListPage): string {
  const { run } = study;
  return viewerPage(`Trials · ${run.study}`, [
    el("h1", {}, `Trials of ${run.study}`),
    el("p", { class: "lead" }, `run ${run.id} · ${totalTrials(study)} trial(s) planned · read-only view`),
    filterForm(study, filters),
    pager(filters, list),
    list.trials.length === 0
      ? el("p", { id: "empty" }, "No trial matches these filters.")
      : table(
          ["trial", "model", "benchmark", "item", "condition", "attempt", "outcome", "parse", "final answer"],
          list.trials.map((t) => trialCells(study, t)),
          { id: "trials" },
        ),
    pager(filters, list),
  ]);
}

function totalTrials(study: ViewerStudy): number {
  return study.groups.reduce((sum, g) => sum + g.trials, 0);
}

function trialCells(study: ViewerStudy, t: TrialRow): Content[] {
  const labels = study.labelsOf.get(t.conditionHash) ?? {};
  const answer = t.outcome?.finalAnswer ?? "";
  return [
    el("a", { href: trialHref(t.id), class: "trial-link" }, t.id),
    t.modelId,
    t.benchmarkId,
    visibleText(t.itemId),
    Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(" "),
    String(t.attempt),
    outcomeText(t),
    t.outcome?.parseStatus ?? "-",
    answer.length > 120 ? `${answer.slice(0, 120)}…` : answer,
  ];
}

function select(name: string, label: string, values: readonly string[], chosen: string | undefined): Content {
  return el(
    "label",
    {},
    label,
    el(
      "select",
      { name },
      el("option", { value: "" }, "any"),
      values.map((v) => el("option", { value: v, selected: v === chosen }, v)),
    ),
  );
}

function filterForm(study: ViewerStudy, f: ListFilters): Content {
  const models = [...new Set(study.groups.map((g) => g.modelId))];
  const benchmarks = [...new Set(study.groups.map((g) => g.benchmarkId))];
  return el(
    "form",
    { class: "filters", method: "get", action: "/" },
    select("model", "model", models, f.model),
    select("benchmark", "benchmark", benchmarks, f.benchmark),
    [...study.facets].map(([facet, labels]) => select(`f.${facet}`, facet, labels, f.facets[facet])),
    select("outcome", "outcome", OUTCOME_FILTERS, f.outcome),
    select("parse", "parse status", PARSE_STATUSES, f.parse),
    select("bucket", "failure bucket", FAILURE_BUCKETS, f.bucket),
    select("audit", "audit check failed", auditNames(), f.audit),
    el("label", {}, "item", el("input", { name: "item", value: f.item ?? "", size: 10 })),
    el("label", {}, "search prompts and responses", el("input", { name: "q", type: "search", value: f.q ?? "" })),
    el("button", { type: "submit" }, "apply"),
  );
}

function pager(filters: ListFilters, list: ListPage): Content {
  const link = (key: "after" | "before", id: string, text: string, rel: string) => {
    const params = filterParams(filters);
    params.set(key, id);
    return el("a", { href: `/?${params}`, rel }, text);
  };
  const first = list.trials[0]?.id;
  const last = list.trials.at(-1)?.id;
  return el(
    "nav",
    { class: "pager" },
    el("a", { href: `/?${filterParams(filters)}` }, "first page"),
    list.previous && first ? link("before", first, "previous page", "prev") : "",
    list.next && last ? link("after", last, "next page", "next") : "",
  );
}
