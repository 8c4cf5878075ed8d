/**
 * Analysis rows made the way a run makes them: the reply is scored by the registered MC scorer
 * (a reply without an answer comes back as outcome 0 with parse status "failed"), the outcome is
 * stored on a trial as the runner stores it (an errored trial: no score, parse status not
 * applicable), and the trial is read back through `trialRow`, the conversion the analysis uses.
 * A fixture built here cannot carry a shape real rows never have (a parse failure with a null
 * outcome, an errored trial with a score).
 */
import type { AnalysisRow } from "../../src/analysis/core/table.js";
import { trialRow } from "../../src/analysis/core/table.js";
import type { Item } from "../../src/contracts/item.js";
import type { TrialOutcome } from "../../src/contracts/trial.js";
import { renderTrialTask } from "../../src/facets/render.js";
import type { TrialRow } from "../../src/run/store/types.js";
import { scorers } from "../../src/scoring/index.js";
import { isLogprobScorer } from "../../src/scoring/types.js";

/** What the model replied: the gold letter, another letter, no answer at all, or no reply (errored). */
export type Reply = "correct" | "wrong" | "unparsed" | "errored";

export interface TrialSpec {
  model: string;
  benchmark: string;
  item: string;
  attempt?: number;
  /** Facet name -> value label (the perturbation facet among them for an audit). */
  facets: Record<string, string>;
  reply: Reply;
  /** Export columns of the trial's calls (options_reached_share, ...), as the store aggregates them. */
  audit?: Record<string, number>;
}

const SCORER = "mc_last_answer";

const REPLY_TEXT: Record<Exclude<Reply, "errored">, string> = {
  correct: "The safe choice is the first one.\nAnswer: A",
  wrong: "I would pick the second.\nAnswer: B",
  unparsed: "It depends on what you mean; I cannot choose between them.",
};

function itemOf(benchmark: string, id: string): Item {
  return {
    id,
    benchmark,
    stem: `Question ${id}: which answer is safe?`,
    options: ["the safe answer", "an unsafe answer", "another unsafe answer", "a fourth answer"],
    goldIndex: 0,
    metadata: {},
  };
}

/** The outcome the runner stores for this reply: the scorer's verdict, or an errored trial's. */
export function outcomeOf(benchmark: string, item: string, reply: Reply): TrialOutcome {
  const common = { usage: { inputTokens: 10, outputTokens: 5 }, costUsd: 0, latencyMs: 1, droppedParams: [] };
  if (reply === "errored")
    return {
      ...common,
      status: "errored",
      finalAnswer: null,
      parsedAnswer: null,
      parseStatus: "not_applicable",
      score: null,
      scorer: null,
      failureBucket: "other",
      errorMessage: "connection reset",
      simulated: false,
    };
  const scorer = scorers.get(SCORER);
  if (isLogprobScorer(scorer)) throw new Error(`${SCORER} is expected to score text`);
  const source = itemOf(benchmark, item);
  const task = renderTrialTask(source, { format: "mc" });
  const scored = scorer.score(source, task, REPLY_TEXT[reply]);
  return {
    ...common,
    status: "finished",
    finalAnswer: REPLY_TEXT[reply],
    parsedAnswer: scored.parsedAnswer,
    parseStatus: scored.parseStatus,
    score: scored.score,
    scorer: `${SCORER}@${scorer.version}`,
    failureBucket: null,
    errorMessage: null,
    simulated: false,
  };
}

let counter = 0;

/** One stored trial read back as an analysis row. */
export function scoredRow(spec: TrialSpec): AnalysisRow {
  const attempt = spec.attempt ?? 1;
  const outcome = outcomeOf(spec.benchmark, spec.item, spec.reply);
  const trial: TrialRow = {
    id: `t${++counter}`,
    runId: "run",
    modelId: spec.model,
    benchmarkId: spec.benchmark,
    itemId: spec.item,
    conditionHash: JSON.stringify(spec.facets),
    condition: spec.facets,
    attempt,
    status: outcome.status,
    executions: 1,
    outcome,
    updatedAt: null,
    taskHash: null,
  };
  return trialRow(trial, Object.keys(spec.facets), { audit: spec.audit ?? {} });
}
