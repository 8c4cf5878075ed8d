/**
 * A trial's article on the trials pages: its facts, its outcome and every sub-call with the exact
 * messages. Built as one string (the markup `el` would build, byte for byte): at paper scale the
 * pages hold half a million articles, and building each from `el` nodes cost more than reading
 * the trials. The long texts that repeat across trials (system prompts, few-shot blocks) are
 * escaped once (`TextEscaper`). Everything model-written is escaped.
 */
import type { CallRecord } from "../contracts/trial.js";
import type { TrialRow } from "../run/store/types.js";
import { visibleText } from "../core/visible-text.js";
import { type Content, esc, render } from "./html.js";
import { trialAnchor } from "./links.js";

/** Texts at least this long are remembered once escaped: shorter ones cost less to escape again. */
const REMEMBERED_LENGTH = 200;

/** Escaped texts remembered at a time (the memory stays bounded whatever the study holds). */
const REMEMBERED_TEXTS = 2_000;

/** `render` of a text, remembering the escaped form of long texts seen before. */
export class TextEscaper {
  private readonly known = new Map<string, string>();

  text(value: Content): string {
    if (typeof value !== "string" || value.length < REMEMBERED_LENGTH) return render(value);
    let escaped = this.known.get(value);
    if (escaped === undefined) {
      escaped = esc(value);
      if (this.known.size >= REMEMBERED_TEXTS) this.known.clear();
      this.known.set(value, escaped);
    }
    return escaped;
  }
}

/** The outcome in the words of what the benchmark declares it measures (safe only on a safety benchmark). */
function outcomeText(trial: TrialRow, measure: "safety" | "capability" | undefined): string {
  if (trial.status === "pending") return "pending";
  if (trial.status === "errored") return `errored (${trial.outcome?.failureBucket ?? "?"})`;
  const score = trial.outcome?.score;
  const [good, bad] = measure === "safety" ? ["safe", "unsafe"] : ["correct", "incorrect"];
  return score === 1 ? `${good} (1)` : score === 0 ? `${bad} (0)` : "not scored";
}

function callBlock(call: CallRecord, texts: TextEscaper): string {
  const summary = `call ${call.seq} · ${call.role}${call.execution > 1 ? ` · execution ${call.execution}` : ""}${call.cached ? " · cached" : ""}`;
  let html = `<details open><summary>${esc(summary)}</summary>`;
  for (const m of call.messages) {
    html += `<div class="msg-role">${render(m.role)}</div><pre class="message">${texts.text(m.content as Content)}</pre>`;
  }
  html += `<div class="msg-role">response</div><pre class="response">${texts.text(call.responseText ?? "(no response)")}</pre>`;
  if (call.error) html += `<p class="muted">${esc(`error ${call.error.bucket}: ${call.error.message}`)}</p>`;
  return `${html}${judgeNote(call)}</details>`;
}

/** A judge sub-call's verdict or guess (CallRecord.note.judge, src/run/score/run-judging.ts). */
function judgeNote(call: CallRecord): string {
  const judge = call.note?.judge as Record<string, unknown> | undefined;
  if (!judge) return "";
  const text =
    judge.purpose === "guess"
      ? `blinding check: judge ${judge.judge} guessed ${judge.guess ?? "don't know"} (response ${judge.uuid})`
      : judge.ok
        ? `verdict of judge ${judge.judge} (${judge.role}, rubric ${judge.rubric}): ${judge.label}, confidence ${judge.confidence}, outcome ${judge.outcome ?? "excluded"}; ${judge.justification ?? ""}`
        : `verdict of judge ${judge.judge} (${judge.role}): unparseable (${judge.error})`;
  return `<p class="muted">${esc(text)}</p>`;
}

/** The article of one trial with its calls (in their order). */
export function trialArticle(
  trial: TrialRow,
  calls: readonly CallRecord[],
  measure: "safety" | "capability" | undefined,
  texts: TextEscaper = new TextEscaper(),
): string {
  const o = trial.outcome;
  const condition = Object.entries(trial.condition)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(" ");
  const facts = visibleText(
    `model ${trial.modelId} · benchmark ${trial.benchmarkId} · item ${trial.itemId} · attempt ${trial.attempt} · ${condition}`,
  );
  const scored = ` · scored by ${o?.scorer ?? "-"} · parse ${o?.parseStatus ?? "-"} · parsed answer ${o?.parsedAnswer ?? "-"}${o?.simulated ? " · SIMULATED response" : ""}`;
  let html =
    `<article class="trial" id="${esc(trialAnchor(trial.id))}"><h4>${esc(`trial ${trial.id}`)}</h4>` +
    `<p>${esc(facts)}</p><p><strong>${esc(outcomeText(trial, measure))}</strong>${esc(scored)}</p>`;
  if (o?.finalAnswer)
    html += `<div class="msg-role">final answer</div><pre class="final">${texts.text(o.finalAnswer)}</pre>`;
  for (const call of calls) html += callBlock(call, texts);
  return `${html}</article>`;
}
