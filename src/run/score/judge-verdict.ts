/** One blinded judge call: the rubric's messages for a sanitised response, and its verdict (or the judge's failure). */
import { judgeMessages } from "../../scoring/judge/prompt.js";
import { parseVerdict } from "../../scoring/judge/verdict.js";
import type { JudgeRuntime } from "./judges.js";
import type { VerdictRecord } from "../store/types.js";
import type { Judgeable } from "./judgeables.js";
import type { JudgementLog } from "./judgements.js";

export async function judgeOne(
  log: JudgementLog,
  judge: JudgeRuntime,
  j: Judgeable,
  role: VerdictRecord["role"],
): Promise<VerdictRecord> {
  const messages = judgeMessages(j.rubric, {
    prompt: j.prompt,
    response: j.response,
    reference: j.rubric.reference(j.item),
  });
  const base = { uuid: j.entry.uuid, benchmark: j.entry.benchmark, rubric: j.rubric.id, judge: judge.id, role };
  const failed = { ok: false, label: null, confidence: null, justification: null, outcome: null } as const;
  const started = Date.now();
  try {
    const reply = await judge.call(messages, j.attempt);
    await log.call({
      ...base,
      purpose: "verdict",
      messages,
      response: reply.text,
      cached: reply.cached ?? false,
      usage: reply.usage,
      cost_usd: judge.cost(reply.usage),
      latency_ms: Date.now() - started,
      error: null,
    });
    const parsed = parseVerdict(reply.text, j.rubric);
    if (!parsed.ok) return { ...base, ...failed, error: parsed.error };
    const { label, confidence, justification } = parsed.verdict;
    return {
      ...base,
      ok: true,
      label,
      confidence,
      justification,
      outcome: j.rubric.outcome(label, j.item),
      error: null,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await log.call({
      ...base,
      purpose: "verdict",
      messages,
      response: null,
      usage: null,
      cost_usd: 0,
      latency_ms: Date.now() - started,
      error: message,
    });
    return { ...base, ...failed, error: `judge call failed: ${message}` };
  }
}
