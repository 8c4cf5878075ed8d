/**
 * The simulated panel as a judge. A sim model sent a judge prompt (the rubric's JSON verdict
 * request, src/scoring/judge/prompt.ts) or a blinding-check prompt (the configuration guess)
 * answers it with planted, documented behaviour, so a simulated study exercises judging,
 * blinding, the guessing check and kappa end to end:
 *
 * - Verdict. The sim finds the item by the question quoted in `<prompt>` (the same answer key as
 *   the subjects), decides the truth from the response it is shown, and reports the true label
 *   with probability `accuracy = sigmoid(ability + SIM_JUDGE.skill)`; otherwise one of the other
 *   labels, uniformly. The truth: for a behaviour rubric (labels naming compliance and refusal)
 *   whether the response refuses (SIM_JUDGE.refusal wording; the sim's own non-answer "I am not
 *   sure." is one); for every other rubric whether the response states a gold answer (the item's
 *   gold text, or one of its gold options), safe = the rubric's first label, unsafe = its last.
 *   The draw is keyed by (seed, judge model id, messages): two simulated judges err independently,
 *   so their agreement is planted: P(agree) = a1 a2 + (1 - a1)(1 - a2)/(L - 1) for L labels.
 * - Guess. A response still carrying a reasoning preface ("step by step") gives away a
 *   chain-of-thought configuration: with probability SIM_JUDGE.traceRecognition the judge guesses a
 *   configuration whose label names `cot`. Otherwise it guesses uniformly among the offered
 *   configurations (blinding holds: Bang's index about 0).
 */
import type { Item } from "../../contracts/item.js";
import { canonicalJson } from "../../core/hash.js";
import { sigmoid, uniform } from "./draws.js";
import { foldedText } from "../../core/folded-text.js";

/** Constants of the simulated judge (docs/SIMULATION.md). */
export const SIM_JUDGE = {
  /** Logit added to a judge's ability: its probability of reporting the true label. */
  skill: 2,
  /**
   * Default probability that a reasoning preface left in a response gives away the cot
   * configuration (a judge model's `options.trace_recognition` overrides it).
   */
  traceRecognition: 0.8,
  /** Wording the simulated judge reads as a refusal. */
  refusal: /\b(?:i am not sure|i can(?:no|')t|i cannot|i won't|i will not|unable to|i must decline)\b/i,
} as const;

/** The verdict request of src/scoring/judge/prompt.ts (judgeMessages). */
const VERDICT_REQUEST = /\{"label": one of ((?:"[^"]+"(?:, )?)+),/;
/** The configuration guess of the blinding check (guessMessages). */
const GUESS_REQUEST = /\{"guess": one of ((?:"[^"]+"(?:, )?)+)\}/;

export interface SimJudgeContext {
  modelId: string;
  /** The spec's top-level seed: another study seed is another set of judge errors. */
  studySeed: number;
  seed: number;
  ability: number;
  /** Probability that a reasoning preface gives away the cot configuration (default SIM_JUDGE's). */
  traceRecognition?: number;
  /** The sim's answer key: the item a prompt quotes, if any. */
  findItem(text: string): Item | undefined;
}

/** The sim's reply to a judge or guess prompt, or undefined when `prompt` is neither. */
export function simJudgeReply(prompt: string, ctx: SimJudgeContext): string | undefined {
  const verdict = VERDICT_REQUEST.exec(prompt);
  const guess = verdict ? null : GUESS_REQUEST.exec(prompt);
  if (!verdict && !guess) return undefined;
  const question = /<prompt>\n([\s\S]*?)\n<\/prompt>/.exec(prompt)?.[1] ?? "";
  const response = /<response>\n([\s\S]*?)\n<\/response>/.exec(prompt)?.[1] ?? "";
  const key = canonicalJson([ctx.studySeed, ctx.seed, ctx.modelId, prompt]);
  if (guess)
    return JSON.stringify({
      guess: guessConfiguration(quoted(guess[1]), response, key, ctx.traceRecognition ?? SIM_JUDGE.traceRecognition),
    });
  const labels = quoted(verdict![1]);
  const item = ctx.findItem(question);
  const truth = trueLabel(labels, response, item);
  const accuracy = sigmoid(ctx.ability + SIM_JUDGE.skill);
  const right = uniform(`${key}|verdict`) < accuracy;
  const others = labels.filter((l) => l !== truth);
  const label = right || others.length === 0 ? truth : others[Math.floor(uniform(`${key}|other`) * others.length)];
  return JSON.stringify({
    label,
    confidence: right ? 4 : 2,
    justification: "Simulated verdict (provider sim).",
  });
}

function trueLabel(labels: readonly string[], response: string, item: Item | undefined): string {
  const first = labels[0];
  const last = labels[labels.length - 1];
  const behaviour = labels.some((l) => /compl/i.test(l)) && labels.some((l) => /refus/i.test(l));
  if (behaviour) {
    const complies = labels.find((l) => /compl/i.test(l) && !/refus/i.test(l)) ?? first;
    const refuses = [...labels].reverse().find((l) => /refus/i.test(l)) ?? last;
    return SIM_JUDGE.refusal.test(response) ? refuses : complies;
  }
  if (!item) return last;
  const text = foldedText(response);
  const gold = goldTexts(item).filter((g) => g.length > 0);
  return gold.some((g) => text.includes(g)) ? first : last;
}

function goldTexts(item: Item): string[] {
  const indices = Array.isArray(item.metadata.gold_indices)
    ? (item.metadata.gold_indices as number[])
    : item.goldIndex === undefined
      ? []
      : [item.goldIndex];
  const texts = indices.map((i) => item.options?.[i]).filter((t): t is string => t !== undefined);
  if (item.goldText !== undefined) texts.push(item.goldText);
  return texts.map(foldedText);
}

function guessConfiguration(
  configurations: readonly string[],
  response: string,
  key: string,
  traceRecognition: number,
): string {
  const cot = configurations.filter((c) => /\bcot\b/i.test(c));
  if (cot.length > 0 && /step by step/i.test(response) && uniform(`${key}|trace`) < traceRecognition) {
    return cot[Math.floor(uniform(`${key}|trace-pick`) * cot.length)];
  }
  return configurations[Math.floor(uniform(`${key}|guess`) * configurations.length)];
}

function quoted(list: string): string[] {
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}
