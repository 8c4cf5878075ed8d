/**
 * A paired case of two studies side by side (`parallax view A --with B`, `/pair?a=&b=`): trial a
 * of study A beside trial b of study B, both transcripts and both scores, each column headed by
 * its study. A's trial links to its own page; B's study is served only here.
 */
import { type Content, el } from "../../report/html.js";
import { viewerPage } from "../layout.js";
import type { ViewerStudy } from "../study.js";
import type { TrialData } from "../trial-data.js";
import { column } from "./compare.js";
import { trialHref } from "./trial-parts.js";

export interface PairSide {
  /** "A" or "B". */
  side: string;
  study: ViewerStudy;
  data: TrialData;
}

export function renderPair(a: PairSide, b: PairSide): string {
  const same = a.data.trial.itemId === b.data.trial.itemId && a.data.trial.benchmarkId === b.data.trial.benchmarkId;
  return viewerPage(`Pair ${a.data.trial.id} and ${b.data.trial.id}`, [
    el("h1", {}, "Paired case of two studies"),
    same ? "" : el("p", { class: "muted" }, "Note: these trials are of different items."),
    el("div", { class: "columns" }, pairColumn(a, true), pairColumn(b, false)),
  ]);
}

function pairColumn({ side, study, data }: PairSide, linked: boolean): Content {
  const id = data.trial.id;
  return column(study, data, [
    el("h2", { class: "study" }, `${side}: ${study.run.study} (run ${study.run.id})`),
    el("p", {}, linked ? el("a", { href: trialHref(id) }, `trial ${id}`) : `trial ${id}`),
  ]);
}
