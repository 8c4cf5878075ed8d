/** One trial's page: facts, task (with the diff against the unperturbed item), scores, verdicts, sub-calls. */
import { diffWords } from "diff";
import type { TaskInput } from "../../contracts/task.js";
import type { VerdictRecord } from "../../run/store/types.js";
import { type Content, el, table } from "../../report/html.js";
import { viewerPage } from "../layout.js";
import type { ViewerStudy } from "../study.js";
import type { TrialData } from "../trial-data.js";
import { callBlock, finalAnswer, outcomeText, scoresTable, trialFacts, trialHref } from "./trial-parts.js";

export function renderTrial(study: ViewerStudy, data: TrialData): string {
  const { trial } = data;
  const labels = study.labelsOf.get(trial.conditionHash) ?? {};
  return viewerPage(`Trial ${trial.id}`, [
    el("h1", {}, `Trial ${trial.id}`),
    trialFacts(trial, labels),
    finalAnswer(trial),
    el("h2", {}, "Task as rendered"),
    taskSection(data),
    el("h2", {}, "Scores"),
    scoresTable(data.scores, data.blinded),
    el("h2", {}, "Judge verdicts"),
    verdictSection(data),
    el("h2", {}, `Trajectory: ${data.calls.length} sub-call(s)`),
    data.calls.map((c) => callBlock(c, data.blinded)),
    el("h2", {}, "Other trials of this item"),
    siblingsTable(study, data),
  ]);
}

/** The task's text as a diffable block: question, options with their letters, instruction. */
export function taskText(task: TaskInput): string {
  const letters = task.validLetters ?? [];
  const options = (task.options ?? []).map((o, i) => `(${letters[i] ?? i + 1}) ${o}`);
  return [task.question, ...options].join("\n");
}

function taskSection({ task, original }: TrialData): Content {
  if (!task)
    return el("p", { class: "muted" }, "No stored task (the trial has not run, or ran before tasks were stored).");
  const p = task.perturbation;
  return [
    p
      ? el(
          "p",
          { class: "perturbation" },
          `perturbation ${p.value}: ${p.status}${p.perturbation ? ` (${p.perturbation})` : ""}${p.note ? `, ${p.note}` : ""}${p.reason ? `, ${p.reason}` : ""}`,
        )
      : "",
    el("pre", { class: "task" }, taskText(task)),
    p?.status === "applied" ? diffSection(task, original) : "",
  ];
}

function diffSection(task: TaskInput, original: TrialData["original"]): Content {
  if (!original) return el("p", { class: "muted" }, "No unperturbed trial of this item in the run to compare with.");
  const parts = diffWords(taskText(original.task), taskText(task));
  return [
    el(
      "h3",
      {},
      "Against the unperturbed item (from trial ",
      el("a", { href: trialHref(original.trial.id) }, original.trial.id),
      ")",
    ),
    el(
      "pre",
      { class: "diff" },
      parts.map((part) =>
        part.added ? el("ins", {}, part.value) : part.removed ? el("del", {}, part.value) : part.value,
      ),
    ),
  ];
}

function verdictSection(data: TrialData): Content {
  if (data.blinded) {
    return el(
      "p",
      { class: "hidden-verdict", id: "verdicts-hidden" },
      "The study is blinded: judge verdicts stay hidden until unblinding.",
    );
  }
  if (data.verdicts.length === 0) return el("p", { class: "muted" }, "No judge verdict on this trial.");
  return table(
    ["judge", "role", "rubric", "label", "confidence", "outcome", "justification"],
    data.verdicts.map((v: VerdictRecord) => [
      v.judge,
      v.role,
      v.rubric,
      v.ok ? (v.label ?? "-") : `unparseable: ${v.error ?? ""}`,
      v.confidence === null ? "-" : String(v.confidence),
      v.outcome === null ? "excluded" : String(v.outcome),
      v.justification ?? "",
    ]),
    { id: "verdicts" },
  );
}

function siblingsTable(study: ViewerStudy, { trial, siblings }: TrialData): Content {
  if (siblings.length === 0) return el("p", { class: "muted" }, "None.");
  return table(
    ["trial", "model", "condition", "attempt", "outcome", "side by side"],
    siblings.map((s) => [
      el("a", { href: trialHref(s.id) }, s.id),
      s.modelId,
      Object.entries(study.labelsOf.get(s.conditionHash) ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(" "),
      String(s.attempt),
      outcomeText(s),
      el(
        "a",
        { href: `/compare?a=${encodeURIComponent(trial.id)}&b=${encodeURIComponent(s.id)}`, class: "compare" },
        "compare",
      ),
    ]),
    { class: "siblings" },
  );
}
