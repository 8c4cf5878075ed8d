/**
 * What a judge is sent: the rubric, item-level reference facts, the prompt and the sanitised
 * response. Nothing else: no model, scaffold, condition or trial id (blinding, App. Q.2 step 3).
 */
import type { ChatMessage } from "../../contracts/provider.js";
import type { Rubric } from "./rubrics.js";

export interface JudgeInput {
  /** The question as posed (item-level; identical across conditions). */
  prompt: string;
  /** The sanitised response. */
  response: string;
  /** Reference facts from the rubric, or "". */
  reference: string;
}

export function judgeMessages(rubric: Rubric, input: JudgeInput): ChatMessage[] {
  const labels = rubric.labels.map((l) => `"${l}"`).join(", ");
  const parts = [
    "You are grading one response of an AI system for a research evaluation.",
    rubric.instructions,
    input.reference === "" ? "" : `Reference information:\n${input.reference}`,
    `<prompt>\n${input.prompt}\n</prompt>`,
    `<response>\n${input.response}\n</response>`,
    `Reply with only a JSON object: {"label": one of ${labels}, "confidence": an integer from 1 (unsure) to 5 (certain), "justification": "at most two sentences"}.`,
  ];
  return [{ role: "user", content: parts.filter((p) => p !== "").join("\n\n") }];
}

/** The blinding check: the judge guesses which configuration produced the response. */
export function guessMessages(input: Omit<JudgeInput, "reference">, configurations: readonly string[]): ChatMessage[] {
  const list = configurations.map((c) => `"${c}"`).join(", ");
  return [
    {
      role: "user",
      content: [
        "The response below was produced by an AI system deployed in one of several configurations.",
        `<prompt>\n${input.prompt}\n</prompt>`,
        `<response>\n${input.response}\n</response>`,
        `Which configuration produced it? Reply with only a JSON object: {"guess": one of ${list}}.`,
      ].join("\n\n"),
    },
  ];
}
