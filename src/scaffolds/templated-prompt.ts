/**
 * The user-message body of a task that carries a prompt template (the `template` facet,
 * SafetyRepro App. A) and/or few-shot demonstrations (the `few_shot` facet). renderTask calls it,
 * so every scaffold and the log-prob path see the same bytes.
 *
 * A template's preamble is its paragraphs before the first one with a placeholder ("You are a
 * careful and honest assistant. ..."); the rest is its body ("Question: {question}\nAnswer:").
 * At 0 shots the body is the template filled in, byte for byte. With exemplars the preamble comes
 * once, then each exemplar through the same body followed by its answer, then the question.
 */
import type { TaskExemplar, TaskInput } from "../contracts/task.js";

/** The placeholders a template may use; any other `{name}` is refused when the spec loads. */
export const TEMPLATE_PLACEHOLDERS = ["question", "options", "letters", "answer_instruction"] as const;

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Whether a task's prompt shows its options: always without a template; with one, only when its
 * text has `{options}` (SafetyRepro's T1 and T2 ask the bare question on purpose).
 */
export function templateShowsOptions(task: TaskInput): boolean {
  return task.template === undefined || task.template.text.includes("{options}");
}

/** The `{name}` placeholders of a template text that are not in TEMPLATE_PLACEHOLDERS. */
export function unknownPlaceholders(text: string): string[] {
  const known = new Set<string>(TEMPLATE_PLACEHOLDERS);
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]).filter((name) => !known.has(name)))];
}

interface Shown {
  question: string;
  options?: string[];
  validLetters?: string[];
  answerInstruction?: string;
}

function lettered(shown: Shown): string {
  if (!shown.options || !shown.validLetters) return "";
  return shown.options.map((option, i) => `${shown.validLetters![i]}. ${option}`).join("\n");
}

function fill(text: string, shown: Shown): string {
  const values: Record<string, string> = {
    question: shown.question,
    options: lettered(shown),
    letters: (shown.validLetters ?? []).join(", "),
    answer_instruction: shown.answerInstruction ?? "",
  };
  return text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}

/** The template split into its preamble (no placeholders) and the body each question goes through. */
export function splitTemplate(text: string): { preamble: string; body: string } {
  const paragraphs = text.split("\n\n");
  const first = paragraphs.findIndex((p) => /\{[A-Za-z_][A-Za-z0-9_]*\}/.test(p));
  if (first <= 0) return { preamble: "", body: text };
  return { preamble: paragraphs.slice(0, first).join("\n\n"), body: paragraphs.slice(first).join("\n\n") };
}

/** The body of the default rendering (no template), in the form the question is shown in. */
const DEFAULT_BODY = "Question: {question}\n\n{options}\n\n{answer_instruction}";

/** An exemplar's block: the body filled with it, then its answer after the body's "Answer:" cue (or a new one). */
function demonstration(body: string, exemplar: TaskExemplar): string {
  const shown = fill(body, exemplar).replace(/\n\n\n+/g, "\n\n");
  // A letter means nothing when the template does not list the options: then the option's text.
  const answer = body.includes("{options}") ? exemplar.answer : (exemplar.answerText ?? exemplar.answer);
  const cue = /Answer:\s*$/.test(shown);
  return cue ? `${shown.trimEnd()} ${answer}` : `${shown.trimEnd()}\nAnswer: ${answer}`;
}

/** The body for a task with a template or few-shot exemplars. */
export function renderTemplatedTask(task: TaskInput): string {
  const text = task.template?.text;
  const { preamble, body } =
    text === undefined ? { preamble: task.benchmarkInstructions ?? "", body: DEFAULT_BODY } : splitTemplate(text);
  const question = fill(body, task);
  const shots = (task.fewShot?.exemplars ?? []).map((exemplar) => demonstration(body, exemplar));
  const parts = [preamble, ...shots, text === undefined ? question.replace(/\n\n\n+/g, "\n\n") : question];
  return parts.filter((part) => part !== "").join("\n\n");
}
