import type { Condition } from "../contracts/condition.js";
import { facetName } from "../contracts/condition.js";
import { type Item, OPTION_LETTERS } from "../contracts/item.js";
import type { TaskInput } from "../contracts/task.js";
import { InputError } from "../core/errors.js";

export const ANSWER_FORMATS = ["mc", "oe"] as const;

/**
 * Renders an item for the condition's `format` facet: "mc" shows the options and asks for a
 * letter; "oe" shows the question alone and asks for a free-text answer. Without a format
 * facet, items with options are MC and the rest open-ended.
 */
export function toTaskInput(item: Item, condition: Condition): TaskInput {
  const format = condition.format !== undefined ? facetName(condition.format) : item.options ? "mc" : "oe";
  const base = { itemId: item.id, benchmark: item.benchmark, format, condition };
  if (format === "mc") {
    if (!item.options) throw new InputError(`item '${item.id}' of '${item.benchmark}' has no options for format mc`);
    const validLetters = [...OPTION_LETTERS.slice(0, item.options.length)];
    return {
      ...base,
      question: item.stem,
      options: item.options,
      validLetters,
      answerInstruction: `Give your final answer on the last line in the form "Answer: X", where X is one of ${validLetters.join(", ")}.`,
    };
  }
  if (format === "oe") {
    return {
      ...base,
      question: item.stem,
      answerInstruction: 'Give your final answer on the last line in the form "Answer: <your answer>".',
    };
  }
  throw new InputError(`unknown format '${format}'; known: ${ANSWER_FORMATS.join(", ")}`);
}
