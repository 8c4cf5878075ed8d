/**
 * Semantic: the stem's question (its last sentence) re-expressed by a template (App. C
 * "paraphrase templates"; App. J F1c: templates fire on every item, where rule-based restructuring
 * depends on trigger strings). A question gets a question template, a request a request template.
 */
import { copyItem, lastSentenceStart, lowerFirst, splitLead } from "../text.js";
import type { Perturbation } from "../types.js";

const QUESTION_TEMPLATES: readonly ((q: string) => string)[] = [
  (q) => `Can you tell me this: ${lowerFirst(q)}`,
  (q) => `I would like to know the answer to the following question. ${q}`,
  (q) => `${q.replace(/\?\s*$/, "")}? That is what I am asking.`,
];

const REQUEST_TEMPLATES: readonly ((q: string) => string)[] = [
  (q) => `Here is my request: ${lowerFirst(q)}`,
  (q) => `I would like you to do the following. ${q}`,
  (q) => `${q} That is what I am asking for.`,
];

export const paraphraseTemplate: Perturbation = {
  name: "paraphrase_template",
  family: "semantic",
  description: "re-expresses the stem's final question or request with one of three templates",
  writes: ["stem"],
  apply(item, ctx) {
    const { lead, rest } = splitLead(item.stem);
    const start = lastSentenceStart(lead);
    const sentence = lead.slice(start).trim();
    if (sentence === "") return { notApplicable: "the stem has no sentence to paraphrase" };
    const isQuestion = sentence.endsWith("?");
    const templates = isQuestion ? QUESTION_TEMPLATES : REQUEST_TEMPLATES;
    const out = copyItem(item);
    out.stem = `${lead.slice(0, start)}${templates[ctx.variant % templates.length](sentence)}${rest}`;
    return { item: out, note: `${isQuestion ? "question" : "request"} template ${ctx.variant % templates.length}` };
  },
};
