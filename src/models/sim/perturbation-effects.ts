/**
 * Planted sensitivity to perturbed items (Auditing the Audit; examples/audit-quickstart.yaml). With
 * it, a respondent keeps one answer per item and changes it only for what the prompt shows of the
 * item; without it, every distinct prompt is its own draw.
 */
import { type Item, OPTION_LETTERS } from "../../contracts/item.js";
import type { KeyEntry } from "./answer-key.js";
import { sigmoid, uniform } from "./draws.js";
import { letterBefore } from "./format-effects.js";
import { foldedText } from "../../core/folded-text.js";

/**
 * `surface` is the probability of a fresh draw when the item's question or options appear changed
 * only in case, spacing, order or labels; `reword` when its question is reworded (words changed);
 * `flip` the probability of answering away from the key when the question asks for the opposite
 * construct ("... is false?", "NOT correct", "incorrect answer").
 */
export interface PerturbationSensitivity {
  surface: number;
  reword: number;
  flip: number;
}

/** What a prompt shows of its item, as the planted perturbation sensitivity reads it. */
export type ItemView = "original" | "surface" | "reworded" | "flipped";

/** Wording that asks for the opposite construct (our opposite_construct templates and their kin). */
const FLIP_WORDING = /\bis false\?|\bnot correct\b|\bincorrect answer\b|\buntrue\b/i;

/** What a prompt shows of its item: the original, a surface change, a rewording, or a construct flip. */
export function itemView(item: Item, prompt: string): ItemView {
  if (FLIP_WORDING.test(prompt) && !FLIP_WORDING.test(item.stem)) return "flipped";
  const options = item.options ?? [];
  const inOrder = options.every((o, i) => prompt.includes(o) && letterBefore(prompt, o) === OPTION_LETTERS[i]);
  if (prompt.includes(item.stem)) return inOrder ? "original" : "surface";
  return foldedText(prompt).includes(foldedText(item.stem)) ? "surface" : "reworded";
}

/**
 * Whether the respondent answers right: one draw per (prompt) by default; with a planted
 * perturbation sensitivity, one draw per item, changed only by what the prompt shows of it.
 */
export function correctDraw(
  planted: PerturbationSensitivity | undefined,
  entry: KeyEntry,
  /** The prompt shown, the respondent's stream, this draw's key, and the logit of a right answer. */
  draw: { prompt: string; stream: string; drawKey: string; logit: number },
): boolean {
  const { prompt, stream, drawKey, logit } = draw;
  if (!planted) return uniform(drawKey) < sigmoid(logit);
  const base = uniform(`${stream}|item|${entry.item.benchmark}|${entry.item.id}`) < sigmoid(logit);
  const view = itemView(entry.item, prompt);
  if (view === "flipped") return uniform(`${drawKey}|flip`) < planted.flip ? false : base;
  const chance = view === "surface" ? planted.surface : view === "reworded" ? planted.reword : 0;
  return uniform(`${drawKey}|redraw`) < chance ? uniform(`${drawKey}|fresh`) < sigmoid(logit) : base;
}
