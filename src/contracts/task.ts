import type { Condition } from "./condition.js";

/**
 * An item as a scaffold receives it: rendered for one answer format, without the gold
 * answer, so no scaffold can peek at it.
 */
export interface TaskInput {
  itemId: string;
  benchmark: string;
  /** "mc", "oe", "forced", ... (the `format` facet). */
  format: string;
  /** The question as it is shown in this format (MC artefacts removed for open-ended). */
  question: string;
  /** Visible options (MC formats only), in presentation order. */
  options?: string[];
  /** The letters the answer may take, e.g. ["A","B","C"] (MC formats only). */
  validLetters?: string[];
  /** The answer-format instruction, e.g. "End with a line 'Answer: X'...". */
  answerInstruction: string;
  /** Benchmark-level instructions embedded in the user message (deviation D-001). */
  benchmarkInstructions?: string;
  /** System prompt for the subject model, if any. */
  systemPrompt?: string;
  /** The whole condition, for scaffolds that read their own facet parameters. */
  condition: Condition;
  /**
   * The perturbation the task was rendered with (the `perturbation` facet, applied to the item
   * before formatting): which one, and what it changed or why it does not apply. The perturbed
   * text itself is the task's question and options. Absent without the facet or for `none`.
   */
  perturbation?: TaskPerturbation;
  /**
   * The prompt template (the `template` facet, SafetyRepro App. A): the whole user-message body
   * is this text with {question}, {options}, ... filled in (scaffolds/prompt.ts renderTask), on
   * the free-form and the log-prob path alike. Absent: the default rendering.
   */
  template?: TaskTemplate;
  /** The few-shot demonstrations shown before the question (the `few_shot` facet). */
  fewShot?: TaskFewShot;
}

export interface TaskTemplate {
  /** The facet value's name ("T1", or a custom template's name). */
  name: string;
  text: string;
}

export interface TaskFewShot {
  /** The number of exemplars (the facet value). */
  level: number;
  /** The draw's seed: exemplars are drawn per (benchmark, level, seed). */
  seed: number;
  exemplars: TaskExemplar[];
}

/** One demonstration: an exemplar item as shown, with its answer. */
export interface TaskExemplar {
  id: string;
  question: string;
  options?: string[];
  validLetters?: string[];
  /** The gold answer as the demonstration states it: the letter when options are shown, else the text. */
  answer: string;
  /** The gold option's text, for a template that does not show the options. */
  answerText?: string;
}

export interface TaskPerturbation {
  /** The facet value's label: a family ("format(slot=1)") or a perturbation ("case_change"). */
  value: string;
  /** The perturbation that acted (null: no member of the family applies to the item). */
  perturbation: string | null;
  family: string;
  seed: number;
  variant: number;
  slot?: number;
  status: "applied" | "not_applicable";
  /** Applied: the parts that differ from the unperturbed item ("stem", "options", "option_letters"). */
  changed?: string[];
  /** Applied: what it did ("upper case", "option order 2,0,1"). */
  note?: string;
  /** Not applicable: why. The task is then the unperturbed item's, and must not be counted as perturbed. */
  reason?: string;
}
