/**
 * Drawing and writing a simulated answer: whether it is right (p = sigmoid(ability - difficulty +
 * the planted effects that apply)), which option it names, and how the prompt asks for it written
 * (a letter when the options are shown, else the option's text). Also the reverse: which option an
 * earlier answer in a prompt names.
 */
import type { Item } from "../../contracts/item.js";
import type { KeyEntry } from "./answer-key.js";
import { sigmoid, uniform } from "./draws.js";
import {
  askedPart,
  goldText,
  letterBefore,
  optionsVisible,
  promptEffects,
  reasoningPreface,
  SIM_EFFECTS,
} from "./format-effects.js";
import { correctDraw, type PerturbationSensitivity } from "./perturbation-effects.js";
import { foldedText } from "../../core/folded-text.js";
import { lastAnswerValue } from "./text.js";

/** What of the respondent an answer draw needs. */
export interface Respondent {
  ability: number;
  /** Planted perturbation sensitivity (absent: every distinct prompt is its own draw). */
  perturbation?: PerturbationSensitivity;
}

/** One call as an answer draw sees it. */
export interface CallContext {
  entry: KeyEntry;
  prompt: string;
  /** The respondent's stream (seeds, model, and the attempt when sampling); see SimProvider.generate. */
  stream: string;
  /** The stream and this call's messages: the key of every draw of this reply. */
  drawKey: string;
  /** The spec's planted grid effects on this call (SimProvider.planted). */
  planted: number;
  /** The prompt from the item's question on (after any few-shot demonstrations): where its options are read. */
  asked: string;
  ability: number;
}

/** Choices of an item without options: the gold text, or a non-answer. */
export const GOLD_TEXT = -1;
export const NOT_SURE = -2;

/** A plain question: the answer drawn with every planted effect that applies to the prompt. */
/** One reply's draw: the prompt, this draw's key, the respondent's stream, and the planted effects' sum. */
export interface AnswerDraw {
  prompt: string;
  drawKey: string;
  stream: string;
  planted: number;
}

export function plainAnswer(respondent: Respondent, entry: KeyEntry | undefined, draw: AnswerDraw): string {
  const { prompt, drawKey, stream, planted } = draw;
  if (entry === undefined) return "I could not find a question to answer.\nAnswer: unknown";
  const { item } = entry;
  // Few-shot demonstrations come before the question: read the options as the question shows them.
  const asked = askedPart(prompt, item);
  const visible = optionsVisible(item, asked);
  const logit =
    respondent.ability - entry.difficulty + promptEffects(prompt) + planted + (visible ? 0 : SIM_EFFECTS.openEnded);
  const correct = correctDraw(respondent.perturbation, entry, { prompt, stream, drawKey, logit });
  const preface = reasoningPreface(prompt);
  if (visible) return preface + `Answer: ${chooseLetter(asked, item, correct, drawKey)}`;
  return preface + `Answer: ${chooseText(item, correct, drawKey)}`;
}

/** The letter under which the chosen option appears in this prompt (options may be shuffled). */
function chooseLetter(prompt: string, item: Item, correct: boolean, drawKey: string): string {
  const options = item.options!;
  const shown = options
    .map((text, index) => ({ index, letter: letterBefore(prompt, text) }))
    .filter((o): o is { index: number; letter: string } => o.letter !== undefined);
  const gold = shown.find((o) => o.index === item.goldIndex);
  const wrong = shown.filter((o) => o.index !== item.goldIndex);
  if (correct && gold) return gold.letter;
  if (wrong.length === 0) return gold?.letter ?? "A";
  return wrong[Math.floor(uniform(`${drawKey}|wrong`) * wrong.length)].letter;
}

function chooseText(item: Item, correct: boolean, drawKey: string): string {
  const gold = item.goldText ?? (item.goldIndex !== undefined ? item.options?.[item.goldIndex] : undefined);
  if (correct && gold !== undefined) return gold;
  const wrong = (item.options ?? []).filter((_, index) => index !== item.goldIndex);
  if (wrong.length === 0) return "I am not sure.";
  return wrong[Math.floor(uniform(`${drawKey}|wrong`) * wrong.length)];
}

/** A plain answer draw with an extra logit shift. */
export function answerReply(ctx: CallContext, shift: number, prefix = "Answer: "): string {
  const correct = uniform(ctx.drawKey) < sigmoid(answerLogit(ctx, shift));
  return prefix + render(ctx, pick(ctx, correct));
}

/** Logit of answering correctly with what this prompt shows. */
export function answerLogit(ctx: CallContext, shift: number): number {
  const visible = optionsVisible(ctx.entry.item, ctx.asked);
  return (
    ctx.ability -
    ctx.entry.difficulty +
    promptEffects(ctx.prompt) +
    ctx.planted +
    (visible ? 0 : SIM_EFFECTS.openEnded) +
    shift
  );
}

/** The option index answered (gold when correct, a drawn wrong option otherwise); -1: free text. */
export function pick(ctx: CallContext, correct: boolean): number {
  const { item } = ctx.entry;
  const options = item.options ?? [];
  if (options.length === 0) return correct ? GOLD_TEXT : NOT_SURE;
  if (correct && item.goldIndex !== undefined) return item.goldIndex;
  const wrong = options.map((_, i) => i).filter((i) => i !== item.goldIndex);
  if (wrong.length === 0) return item.goldIndex ?? 0;
  return wrong[Math.floor(uniform(`${ctx.drawKey}|wrong`) * wrong.length)];
}

/** An answer as this prompt asks for it: the option's letter when options are shown, else its text. */
export function render(ctx: CallContext, choice: number): string {
  const { item } = ctx.entry;
  if (choice === GOLD_TEXT) return goldText(item) ?? "I am not sure.";
  if (choice === NOT_SURE) return "I am not sure.";
  const text = item.options![choice];
  if (optionsVisible(item, ctx.asked)) return letterBefore(ctx.asked, text) ?? text;
  return text;
}

/** The choice an answer in `section` names: an option by letter (as listed in the prompt) or text. */
export function named(ctx: CallContext, section: string): number | undefined {
  const value = lastAnswerValue(section);
  if (value === undefined) return undefined;
  const { item } = ctx.entry;
  const options = item.options ?? [];
  if (options.length === 0) return foldedText(value) === foldedText(goldText(item) ?? "\u0000") ? GOLD_TEXT : NOT_SURE;
  const letter = /^\(?([A-Z])\)?(?:[.):]|\s|$)/.exec(value)?.[1];
  const byText = options.findIndex((o) => foldedText(value).includes(foldedText(o)));
  if (letter !== undefined && value.trim().length <= 3) {
    const byLetter = options.findIndex((o) => letterBefore(ctx.asked, o) === letter);
    if (byLetter >= 0) return byLetter;
  }
  return byText >= 0 ? byText : undefined;
}

export function isCorrect(ctx: CallContext, choice: number): boolean {
  return choice === GOLD_TEXT || (choice >= 0 && choice === ctx.entry.item.goldIndex);
}
