/** Two trials side by side (two conditions, or two models, of the same item). */
import { type Content, el } from "../../report/html.js";
import { viewerPage } from "../layout.js";
import type { ViewerStudy } from "../study.js";
import type { TrialData } from "../trial-data.js";
import { callBlock, finalAnswer, scoresTable, trialFacts, trialHref } from "./trial-parts.js";
import { taskText } from "./trial.js";

export function renderCompare(study: ViewerStudy, a: TrialData, b: TrialData): string {
  return viewerPage(`Compare ${a.trial.id} and ${b.trial.id}`, [
    el("h1", {}, "Side by side"),
    a.trial.itemId !== b.trial.itemId || a.trial.benchmarkId !== b.trial.benchmarkId
      ? el("p", { class: "muted" }, "Note: these trials are of different items.")
      : "",
    el("div", { class: "columns" }, column(study, a), column(study, b)),
  ]);
}

/**
 * One trial's column: its facts, answer, task, scores and sub-calls. `heading` replaces the link
 * to the trial's page (the pair page labels each column with its study).
 */
export function column(study: ViewerStudy, data: TrialData, heading?: Content): Content {
  const { trial } = data;
  return el(
    "div",
    { class: "side" },
    heading ?? el("h2", {}, el("a", { href: trialHref(trial.id) }, `trial ${trial.id}`)),
    trialFacts(trial, study.labelsOf.get(trial.conditionHash) ?? {}),
    finalAnswer(trial),
    data.task ? el("pre", { class: "task" }, taskText(data.task)) : "",
    scoresTable(data.scores, data.blinded),
    data.calls.map((c) => callBlock(c, data.blinded)),
  );
}
