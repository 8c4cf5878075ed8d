/**
 * Semantic: rule-based sentence restructuring (App. C "rule-based sentence restructure"). Rules:
 * a leading subordinate clause moves after the main clause ("If X, Y?" -> "Y, if X?"); a question
 * after context moves before it; a sentence with a comma-separated opening phrase swaps its two
 * parts. An item none of the rules matches is not applicable (App. J F1c: the rules' trigger
 * strings are often absent, so the no-op must be recorded rather than passed through).
 */
import { copyItem, lastSentenceStart, lowerFirst, splitLead } from "../text.js";
import type { Perturbation } from "../types.js";

type Rule = (lead: string) => string | null;

const SUBORDINATORS = "if|when|although|though|because|while|after|before|since|unless|once";

/** "If X, Y?" -> "Y, if X?" on the last sentence. */
const moveSubordinateClause: Rule = (lead) => {
  const start = lastSentenceStart(lead);
  const sentence = lead.slice(start);
  const m = new RegExp(`^(${SUBORDINATORS})\\s+([^,]+),\\s+(.+?)([?.!])\\s*$`, "i").exec(sentence);
  if (!m) return null;
  const [, conj, sub, main, end] = m;
  const restructured = `${main.charAt(0).toUpperCase()}${main.slice(1)}, ${conj.toLowerCase()} ${sub}${end}`;
  return lead.slice(0, start) + restructured;
};

/** "Context. Context. Question?" -> "Question? Context. Context." */
const questionFirst: Rule = (lead) => {
  const start = lastSentenceStart(lead);
  if (start === 0) return null;
  const question = lead.slice(start).trim();
  if (!question.endsWith("?")) return null;
  return `${question} ${lead.slice(0, start).trim()}`;
};

/** "In 1990, X happened." -> "X happened in 1990." (one opening phrase before a comma, on the last sentence). */
const swapOpeningPhrase: Rule = (lead) => {
  const start = lastSentenceStart(lead);
  const sentence = lead.slice(start);
  const m = /^([^,]{3,40}),\s+([^,]+?)([?.!])\s*$/.exec(sentence);
  if (!m || new RegExp(`^(${SUBORDINATORS})\\b`, "i").test(m[1])) return null;
  const [, opening, main, end] = m;
  return `${lead.slice(0, start)}${main.charAt(0).toUpperCase()}${main.slice(1)} ${lowerFirst(opening)}${end}`;
};

const RULES: readonly [string, Rule][] = [
  ["subordinate clause last", moveSubordinateClause],
  ["question first", questionFirst],
  ["opening phrase last", swapOpeningPhrase],
];

export const restructure: Perturbation = {
  name: "restructure",
  family: "semantic",
  description: "reorders the clauses of the stem's question by rule (not applicable when no rule matches)",
  writes: ["stem"],
  apply(item, ctx) {
    const { lead, rest } = splitLead(item.stem);
    const applicable = RULES.flatMap(([name, rule]) => {
      const result = rule(lead);
      return result !== null && result !== lead ? [[name, result] as const] : [];
    });
    if (applicable.length === 0)
      return {
        notApplicable: "no restructuring rule matches the stem (no subordinate clause, context or opening phrase)",
      };
    const [name, result] = applicable[ctx.variant % applicable.length];
    const out = copyItem(item);
    out.stem = result + rest;
    return { item: out, note: name };
  },
};
