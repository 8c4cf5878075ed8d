/**
 * Pieces of the trial pages: a trial's facts and its sub-calls, each with the exact messages
 * sent, the parameters used and dropped, the response, usage, cost, latency, cache hit, error,
 * the propagation checks and the scaffold's note. While the study is blinded, judge sub-calls
 * show only that they exist: their prompts carry the blinded response and their replies and
 * notes carry the verdict.
 */
import { visibleText } from "../../core/visible-text.js";
import type { CallRecord, ScoreRecord } from "../../contracts/trial.js";
import { type Content, el, table } from "../../report/html.js";
import { JUDGE_ROLES } from "../../run/score/run-judging.js";
import type { TrialRow } from "../../run/store/types.js";
import { facts } from "../layout.js";

const JUDGE_CALL_ROLES = new Set<string>(Object.values(JUDGE_ROLES));

export function trialHref(id: string): string {
  return `/trials/${encodeURIComponent(id)}`;
}

export function outcomeText(trial: TrialRow): string {
  if (trial.status === "pending") return "pending";
  if (trial.status === "errored") return `errored (${trial.outcome?.failureBucket ?? "?"})`;
  const score = trial.outcome?.score;
  return score === 1 ? "pass (1)" : score === 0 ? "fail (0)" : "not scored";
}

export function trialFacts(trial: TrialRow, labels: Readonly<Record<string, string>>): Content {
  const o = trial.outcome;
  return facts([
    ["model", trial.modelId],
    ["benchmark", trial.benchmarkId],
    ["item", visibleText(trial.itemId)],
    [
      "condition",
      Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ") || "-",
    ],
    ["attempt", String(trial.attempt)],
    ["executions", String(trial.executions)],
    ["outcome", el("strong", { class: "outcome" }, outcomeText(trial))],
    ["scorer (run time)", o?.scorer ?? "-"],
    ["parse status", o?.parseStatus ?? "-"],
    ["parsed answer", o?.parsedAnswer ?? "-"],
    ["failure bucket", o?.failureBucket ?? "-"],
    ["error", o?.errorMessage ?? "-"],
    ["tokens in / out", o ? `${o.usage.inputTokens} / ${o.usage.outputTokens}` : "-"],
    ["cost", o ? `$${o.costUsd.toFixed(6)}` : "-"],
    ["latency", o ? `${Math.round(o.latencyMs)} ms` : "-"],
    ["dropped parameters", o?.droppedParams.join(", ") || "none"],
    ["simulated", o?.simulated ? "yes: a simulated respondent" : "no"],
  ]);
}

export function finalAnswer(trial: TrialRow): Content {
  const text = trial.outcome?.finalAnswer;
  return text ? [el("div", { class: "msg-role" }, "final answer"), el("pre", { class: "final" }, text)] : "";
}

/** The scores of every scorer (and version) stored for the trial; judge scores only once unblinded. */
export function scoresTable(scores: readonly ScoreRecord[], blinded: boolean): Content {
  const shown = blinded ? scores.filter((s) => !s.scorer.startsWith("judge:")) : scores;
  if (shown.length === 0) return el("p", { class: "muted" }, "No stored rescoring (the run-time score is above).");
  return table(
    ["scorer", "version", "parse", "parsed answer", "score", "details"],
    shown.map((s) => [
      s.scorer,
      s.version,
      s.parseStatus,
      s.parsedAnswer ?? "-",
      s.score === null ? "-" : String(s.score),
      s.details ? el("pre", {}, JSON.stringify(s.details, null, 2)) : "-",
    ]),
    { class: "scores" },
  );
}

export function callBlock(call: CallRecord, blinded: boolean): Content {
  const hidden = blinded && JUDGE_CALL_ROLES.has(call.role);
  const title = `call ${call.seq} · ${call.role}${call.execution > 1 ? ` · execution ${call.execution}` : ""}${call.cached ? " · cached" : ""}`;
  if (hidden) {
    return el(
      "details",
      { class: "call", open: true },
      el("summary", {}, title),
      el(
        "p",
        { class: "hidden-verdict" },
        "Judge call hidden until the study is unblinded (parallax score DIR --unblind).",
      ),
    );
  }
  return el(
    "details",
    { class: "call", open: true },
    el("summary", {}, title),
    facts([
      ["parameters used", el("code", {}, JSON.stringify(call.paramsUsed))],
      ["parameters dropped", call.droppedParams.length ? call.droppedParams.join(", ") : "none"],
      ["tokens in / out", `${call.usage.inputTokens} / ${call.usage.outputTokens}`],
      ["cost", `$${call.costUsd.toFixed(6)}`],
      ["latency", `${Math.round(call.latencyMs)} ms`],
      ["cache hit", call.cached ? "yes" : "no"],
      ["finish reason", call.finishReason ?? "-"],
      ["started", call.startedAt],
      ["error", call.error ? `${call.error.bucket}: ${call.error.message}` : "none"],
    ]),
    call.messages.map((m) => [el("div", { class: "msg-role" }, m.role), el("pre", { class: "message" }, m.content)]),
    el("div", { class: "msg-role" }, "response"),
    el("pre", { class: "response" }, call.responseText ?? "(no response)"),
    call.toolCalls
      ? [el("div", { class: "msg-role" }, "tool calls"), el("pre", {}, JSON.stringify(call.toolCalls, null, 2))]
      : "",
    checksTable(call),
    call.note
      ? [
          el("div", { class: "msg-role" }, "scaffold note"),
          el("pre", { class: "note" }, JSON.stringify(call.note, null, 2)),
        ]
      : "",
  );
}

function checksTable(call: CallRecord): Content {
  if (!call.audit) return el("p", { class: "muted" }, "propagation checks: none applied");
  return table(
    ["propagation check", "value"],
    Object.entries(call.audit).map(([name, value]) => [name, value === null ? "not applied" : JSON.stringify(value)]),
    { class: "checks" },
  );
}
