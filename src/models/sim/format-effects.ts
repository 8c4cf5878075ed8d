/**
 * How the form of a prompt shapes a simulated answer: whether the item's options are visible (an
 * MC item whose options are not all shown is answered in free text, with the openEnded shift),
 * under which letter each option is listed (options may be shuffled, relabelled or reworded), and
 * the planted wording effects (reasoning and bias-invocation phrases).
 */
import { type Item, OPTION_LETTERS } from "../../contracts/item.js";
import { countIn, sameText, wordsOf } from "./text.js";

/** Logit shifts of the planted mechanisms. Documented in docs/SIMULATION.md. */
export const SIM_EFFECTS = {
  /** Open-ended answering (no options visible) vs choosing among visible options. */
  openEnded: -0.6,
  /** A reasoning-elicitation phrase ("step by step", "think") in the prompt. */
  reasoning: 0.25,
  /** Bias-invocation wording ("bias", "stereotype", "fair") in the prompt. */
  biasInvocation: 0.4,
} as const;

/** Sum of the planted prompt-wording effects that apply to this prompt. */
export function promptEffects(prompt: string): number {
  const lower = prompt.toLowerCase();
  let effect = 0;
  if (/step by step|think (it )?through|reason carefully/.test(lower)) effect += SIM_EFFECTS.reasoning;
  if (/\bbias|stereotyp|\bfair(ly|ness)?\b/.test(lower)) effect += SIM_EFFECTS.biasInvocation;
  return effect;
}

/** The reasoning a respondent writes before its answer when the prompt asks for it. */
export function reasoningPreface(prompt: string): string {
  return /step by step/i.test(prompt)
    ? "Let me work through this step by step.\nFirst, I consider each possibility.\n"
    : "";
}

/** The prompt from the item's question on (few-shot exemplars before it may list the same option texts). */
export function askedPart(prompt: string, item: Item): string {
  const at = prompt.lastIndexOf(item.stem);
  return at > 0 ? prompt.slice(at) : prompt;
}

export function goldText(item: Item): string | undefined {
  return item.goldText ?? (item.goldIndex !== undefined ? item.options?.[item.goldIndex] : undefined);
}

export function optionsVisible(item: Item, prompt: string): boolean {
  const options = item.options ?? [];
  // Case-insensitive, and a listed option with most of its words (a perturbed option) counts as shown.
  return (
    options.length > 0 &&
    options.every(
      (option) => letterBefore(prompt, option) !== undefined || prompt.toLowerCase().includes(option.toLowerCase()),
    )
  );
}

/** The option letter printed right before an option's text ("B. text", "(B) text", "B) text"). */
export function letterBefore(prompt: string, optionText: string): string | undefined {
  return exactLetterBefore(prompt, optionText) ?? listedLetterLike(prompt, optionText);
}

function exactLetterBefore(prompt: string, optionText: string): string | undefined {
  // The first occurrence that is a listing: the text may also appear in quoted sub-task results.
  const lower = prompt.toLowerCase();
  const needle = optionText.toLowerCase();
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
    const before = prompt.slice(Math.max(0, at - 6), at);
    const match = /\(?([A-Z])[.):]\s*$/.exec(before);
    if (match && OPTION_LETTERS.includes(match[1])) return match[1];
  }
  return undefined;
}

/**
 * The letter of the listed option ("B. text") that shows most of this option's words (at least
 * half, and more than any other line): a recased or reworded option is still recognised.
 */
function listedLetterLike(prompt: string, optionText: string): string | undefined {
  const wanted = wordsOf(optionText);
  if (wanted.size === 0) return undefined;
  let best: { letter: string; share: number } | undefined;
  for (const match of prompt.matchAll(/^\(?([A-Z])[.):]\s+(.+)$/gm)) {
    const share = countIn(wanted, wordsOf(match[2])) / Math.max(wanted.size, wordsOf(match[2]).size);
    if (share >= 0.5 && (!best || share > best.share)) best = { letter: match[1], share };
  }
  return best?.letter;
}

/** A log-prob request without a question (a sentence pair): its continuations shown as the item's options. */
export function pairView(item: Item, continuations: readonly string[]): string {
  return `Question: ${item.stem}\n${continuations.map((c, i) => `${OPTION_LETTERS[i]}. ${c.trim()}`).join("\n")}`;
}

/** The index of the continuation that is the item's gold option (its text, or its letter); -1: none. */
export function goldContinuation(item: Item, continuations: readonly string[]): number {
  if (item.goldIndex === undefined || !item.options) return -1;
  const gold = item.options[item.goldIndex];
  const byText = continuations.findIndex((c) => sameText(c, gold));
  return byText >= 0 ? byText : continuations.findIndex((c) => c.trim() === OPTION_LETTERS[item.goldIndex!]);
}
