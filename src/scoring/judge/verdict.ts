/**
 * Structured judge verdicts: a label from the rubric, a 1-5 confidence and a short justification,
 * read as JSON and validated with zod. Anything else (prose, a label outside the rubric, a missing
 * confidence) is a parse failure of the judge, recorded with the raw reply, never a default label.
 */
import * as z from "zod";
import type { Rubric } from "./rubrics.js";

export interface Verdict {
  label: string;
  confidence: number;
  justification: string;
}

export type VerdictParse = { ok: true; verdict: Verdict } | { ok: false; error: string };

/**
 * The verdict schema of a rubric's labels, made once per label list: a judged run parses a verdict
 * per judge call, and a zod schema built for each left about 6 KB of long-lived garbage a call
 * (ScaffoldSafety's run: 190 MB), which V8 answers by growing its heap.
 */
export function verdictSchema(labels: readonly string[]) {
  const key = JSON.stringify(labels);
  let schema = verdictSchemas.get(key);
  if (!schema) {
    schema = newVerdictSchema(labels);
    verdictSchemas.set(key, schema);
  }
  return schema;
}

function newVerdictSchema(labels: readonly string[]) {
  return z
    .object({
      label: z.enum(labels as [string, ...string[]]),
      confidence: z.number().int().min(1).max(5),
      justification: z.string().max(1000).default(""),
    })
    .strip();
}

const verdictSchemas = new Map<string, ReturnType<typeof newVerdictSchema>>();

/** The first JSON object of a reply, allowing a ```json fence around it. */
export function firstJsonObject(text: string): unknown {
  const unfenced = text.replace(/```(?:json)?/gi, "");
  const start = unfenced.indexOf("{");
  if (start < 0) throw new Error("no JSON object in the reply");
  let depth = 0;
  let inString = false;
  for (let i = start; i < unfenced.length; i++) {
    const ch = unfenced[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return JSON.parse(unfenced.slice(start, i + 1));
  }
  throw new Error("unterminated JSON object in the reply");
}

export function parseVerdict(text: string, rubric: Rubric): VerdictParse {
  let raw: unknown;
  try {
    raw = firstJsonObject(text);
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const parsed = verdictSchema(rubric.labels).safeParse(raw);
  if (!parsed.success) return { ok: false, error: z.prettifyError(parsed.error).replace(/\s+/g, " ").trim() };
  return { ok: true, verdict: parsed.data };
}

/** The guessing-check reply: one of the offered configurations (anything else = "don't know"). */
export function parseGuess(text: string, configurations: readonly string[]): string | null {
  try {
    const raw = firstJsonObject(text) as { guess?: unknown };
    return typeof raw.guess === "string" && configurations.includes(raw.guess) ? raw.guess : null;
  } catch {
    return null;
  }
}
