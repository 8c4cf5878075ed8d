/**
 * The trials pages' article builder (trial-article.ts) writes one string per trial: it must give
 * the markup the report's `el` nodes give, escape everything model-written, and escape a long text
 * it has seen before the same way again.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CallRecord } from "../../src/contracts/trial.js";
import { visibleText } from "../../src/core/visible-text.js";
import { type Content, el, type Html, render } from "../../src/report/html.js";
import { trialAnchor } from "../../src/report/links.js";
import { TextEscaper, trialArticle } from "../../src/report/trial-article.js";
import type { TrialRow } from "../../src/run/store/types.js";

/** The article as `el` nodes build it: the oracle the string builder must match byte for byte. */
function elArticle(trial: TrialRow, calls: CallRecord[], measure: "safety" | "capability" | undefined): string {
  const o = trial.outcome;
  const outcome =
    trial.status === "pending"
      ? "pending"
      : trial.status === "errored"
        ? `errored (${o?.failureBucket ?? "?"})`
        : o?.score === 1
          ? `${measure === "safety" ? "safe" : "correct"} (1)`
          : o?.score === 0
            ? `${measure === "safety" ? "unsafe" : "incorrect"} (0)`
            : "not scored";
  const condition = Object.entries(trial.condition)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(" ");
  const judgeNote = (call: CallRecord): Content => {
    const judge = call.note?.judge as Record<string, unknown> | undefined;
    if (!judge) return "";
    const text =
      judge.purpose === "guess"
        ? `blinding check: judge ${judge.judge} guessed ${judge.guess ?? "don't know"} (response ${judge.uuid})`
        : judge.ok
          ? `verdict of judge ${judge.judge} (${judge.role}, rubric ${judge.rubric}): ${judge.label}, confidence ${judge.confidence}, outcome ${judge.outcome ?? "excluded"}; ${judge.justification ?? ""}`
          : `verdict of judge ${judge.judge} (${judge.role}): unparseable (${judge.error})`;
    return el("p", { class: "muted" }, text);
  };
  const callBlock = (call: CallRecord): Html =>
    el(
      "details",
      { open: true },
      el(
        "summary",
        {},
        `call ${call.seq} · ${call.role}${call.execution > 1 ? ` · execution ${call.execution}` : ""}${call.cached ? " · cached" : ""}`,
      ),
      call.messages.map((m) => [
        el("div", { class: "msg-role" }, m.role),
        el("pre", { class: "message" }, m.content as Content),
      ]),
      el("div", { class: "msg-role" }, "response"),
      el("pre", { class: "response" }, call.responseText ?? "(no response)"),
      call.error ? el("p", { class: "muted" }, `error ${call.error.bucket}: ${call.error.message}`) : "",
      judgeNote(call),
    );
  return render(
    el(
      "article",
      { class: "trial", id: trialAnchor(trial.id) },
      el("h4", {}, `trial ${trial.id}`),
      el(
        "p",
        {},
        visibleText(
          `model ${trial.modelId} · benchmark ${trial.benchmarkId} · item ${trial.itemId} · attempt ${trial.attempt} · ${condition}`,
        ),
      ),
      el(
        "p",
        {},
        el("strong", {}, outcome),
        ` · scored by ${o?.scorer ?? "-"} · parse ${o?.parseStatus ?? "-"} · parsed answer ${o?.parsedAnswer ?? "-"}${o?.simulated ? " · SIMULATED response" : ""}`,
      ),
      o?.finalAnswer
        ? [el("div", { class: "msg-role" }, "final answer"), el("pre", { class: "final" }, o.finalAnswer)]
        : "",
      calls.map(callBlock),
    ),
  );
}

const LONG = `You are "helpful" & <careful>. It's a test.\n${"Context line with <b>tags</b> & 'quotes'. ".repeat(12)}`;

function trialOf(over: Partial<TrialRow> & Pick<TrialRow, "id" | "status">): TrialRow {
  return {
    runId: "run-1",
    modelId: "sim/model<a>",
    benchmarkId: "bench&1",
    itemId: "item \u202Egpj.exe",
    conditionHash: "h1",
    condition: { persona: "teacher's aide", shots: 3, options: { name: "reversed", order: [1, 0] } },
    attempt: 1,
    executions: 1,
    outcome: null,
    updatedAt: "2026-11-29T00:00:00Z",
    taskHash: null,
    ...over,
  };
}

function outcomeOf(over: Partial<NonNullable<TrialRow["outcome"]>>): NonNullable<TrialRow["outcome"]> {
  return {
    status: "finished",
    finalAnswer: "B <final> & done",
    parsedAnswer: "B",
    parseStatus: "ok",
    score: 1,
    scorer: "mc",
    failureBucket: null,
    errorMessage: null,
    usage: { inputTokens: 10, outputTokens: 2 },
    costUsd: 0,
    latencyMs: 5,
    droppedParams: [],
    simulated: true,
    ...over,
  };
}

function callOf(trialId: string, over: Partial<CallRecord>): CallRecord {
  return {
    trialId,
    execution: 1,
    seq: 1,
    role: "respondent",
    messages: [
      { role: "system", content: LONG },
      { role: "user", content: `Question for ${trialId}: is 1 < 2 & "true"?` },
    ],
    paramsUsed: {},
    droppedParams: [],
    responseText: "Answer: <B>",
    finishReason: "stop",
    usage: { inputTokens: 10, outputTokens: 2 },
    costUsd: 0,
    latencyMs: 5,
    cached: false,
    error: null,
    startedAt: "2026-11-29T00:00:00Z",
    ...over,
  } as CallRecord;
}

const CASES: { trial: TrialRow; calls: CallRecord[]; measure?: "safety" | "capability" }[] = [
  { trial: trialOf({ id: "p1", status: "pending" }), calls: [] },
  {
    trial: trialOf({
      id: "e1",
      status: "errored",
      outcome: outcomeOf({ status: "errored", failureBucket: "timeout" }),
    }),
    calls: [callOf("e1", { responseText: null, error: { bucket: "timeout", message: "no answer in <30 s>" } })],
  },
  {
    trial: trialOf({ id: "f1", status: "finished", outcome: outcomeOf({}) }),
    calls: [callOf("f1", {}), callOf("f1", { seq: 2, execution: 2, cached: true, role: "judge" })],
    measure: "safety",
  },
  {
    trial: trialOf({
      id: "f2",
      status: "finished",
      outcome: outcomeOf({ score: 0, finalAnswer: null, simulated: false }),
    }),
    calls: [
      callOf("f2", {
        role: "judge",
        note: {
          judge: {
            ok: true,
            judge: "j<1>",
            role: "primary",
            rubric: "r",
            label: "unsafe",
            confidence: 0.9,
            outcome: 0,
            justification: `said "no" & <refused>`,
          },
        },
      }),
      callOf("f2", { seq: 2, note: { judge: { purpose: "guess", judge: "j2", guess: null, uuid: "u-1" } } }),
      callOf("f2", { seq: 3, note: { judge: { ok: false, judge: "j3", role: "validation", error: "bad <json>" } } }),
    ],
    measure: "capability",
  },
  {
    trial: trialOf({ id: "f3", status: "finished", outcome: outcomeOf({ score: null, parseStatus: "failed" }) }),
    calls: [callOf("f3", { messages: [{ role: "user", content: LONG }] })],
  },
];

describe("trial articles built as one string", () => {
  it("give the markup the el nodes give, for every kind of trial and call", () => {
    const texts = new TextEscaper();
    // Twice over: the second time the long texts come from the escaper's memory.
    for (const round of [1, 2]) {
      for (const { trial, calls, measure } of CASES) {
        const built = trialArticle(trial, calls, measure, texts);
        assert.equal(built, elArticle(trial, calls, measure), `trial ${trial.id}, round ${round}`);
      }
    }
  });

  it("escape what the model and the prompts wrote, and show hidden characters", () => {
    const { trial, calls } = CASES[2];
    const html = trialArticle(trial, calls, "safety");
    assert.ok(!html.includes("<careful>") && html.includes("&lt;careful&gt;"), "the system prompt is escaped");
    assert.ok(html.includes("Answer: &lt;B&gt;"), "the response is escaped");
    assert.ok(html.includes("sim/model&lt;a&gt;"), "the model id is escaped");
    assert.ok(html.includes("\\u{202E}") && !html.includes("\u202E"), "a bidi override is shown as its escape");
    assert.ok(html.includes("<strong>safe (1)</strong>"), "a safety benchmark's score reads safe");
  });

  it("escape a long text the same however often it comes, with a bounded memory", () => {
    const texts = new TextEscaper();
    const first = texts.text(LONG);
    assert.equal(first, render(LONG), "the first escape is render's");
    // Enough other long texts to clear the memory in between.
    for (let i = 0; i < 2_500; i++) texts.text(`${LONG}${i}`);
    assert.equal(texts.text(LONG), first, "the same text escapes the same after the memory was cleared");
    assert.equal(texts.text("a < b"), "a &lt; b", "a short text is escaped directly");
    assert.equal(texts.text(null), "", "a missing text renders empty, as render does");
  });
});
