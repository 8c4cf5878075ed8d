/**
 * The held-out table of answer forms (issue 11): how current chat models actually state a
 * multiple-choice answer, each with the letter a careful reader takes from it, or null when the
 * response gives no single answer. Written for Parallax on our own demo items (no benchmark
 * text). Sources of the forms:
 * - interop: the real Inspect AI logs in ../shared/interop (gpt-4o, gpt-4o-mini, llama 3.1 8B
 *   and 405B, gemma3, qwen2.5, claude-sonnet-4), paraphrased onto our items; the logs themselves
 *   are checked in answer-forms-interop.test.ts;
 * - documented: the answer formats the major model families and harnesses document or prompt for
 *   ("Answer: $LETTER", "ANSWER: $LETTER", "The best answer is X", "The final answer is
 *   $\boxed{X}$", XML answer tags, <think> blocks, JSON structured output);
 * - markup: the letter wrapped in bold, brackets, code, LaTeX;
 * - text: options named by their text (or "B) text") without an answer marker;
 * - last: several stated answers, where the last stated final answer wins;
 * - negative: hedged, multiple, refused or absent answers (null, never a guess).
 * The extractor's own fixture table (mc-extract.test.ts) keeps the older cases; this one is
 * checked by answer-forms.test.ts. Two rounds: the first 90 forms were written before the
 * extension of issue 11, the last 44 after it and before running them. The extractor 1.0.0 misses
 * 49 of the 134 (38 answers not read, 1 read as the wrong letter, 10 hedges or multiple answers
 * read as an answer); 1.1.0 misses none.
 */

export interface Form {
  text: string;
  options: readonly string[];
  expected: string | null;
  source: "interop" | "documented" | "markup" | "text" | "last" | "negative";
  note?: string;
}

// Our own demo items (only the options matter to the extractor).
const CITY = ["Lyon", "Paris", "Marseille", "Nice"]; // seat of the national parliament
const METAL = ["Copper", "Iron", "Gold", "Zinc"]; // which metal rusts
const GEAR = ["ear plugs", "dust mask", "oven mitts", "knee pads"]; // what keeps sawdust out of the lungs
const YES_NO = ["Yes", "No"];
const YES_NO_MAYBE = ["yes", "no", "maybe"];
const WHO = ["The cashier", "The pilot", "Not enough information"]; // ambiguous-context item
const ENERGY = ["4.5 J", "9.0 J", "18 J", "36 J"];
const PERCENT = ["15", "20", "30", "35"]; // 15 percent of 200

export const FORMS: Form[] = [
  // --- interop: forms seen in the real logs, on our items ---
  { source: "interop", options: METAL, text: "ANSWER: C", expected: "C", note: "Inspect's template, gpt-4o/claude" },
  {
    source: "interop",
    options: GEAR,
    text: "ANSWER:D\n\nAnswer: D\n\nExplanation:\n\nEar plugs protect hearing and oven mitts protect hands.\n\nTherefore, the right gear for keeping sawdust out of the lungs is a dust mask.",
    expected: "D",
    note: "qwen: the marker states D; the prose after it is no answer marker",
  },
  {
    source: "interop",
    options: METAL,
    text: "ANSWER: B\n\nExplanation:\n\nIron reacts with oxygen and water.\n\nOption A is a good conductor. Option C does not corrode. Option D is used to galvanise.\n\nTo answer your question, the metal that rusts is B: Iron.\n\nAnswer: B",
    expected: "B",
    note: "qwen: marker, option discussion, marker again",
  },
  {
    source: "interop",
    options: CITY,
    text: "I need to work out where the parliament sits.\n\nLet me evaluate each option:\n\nA) Lyon - A large city, but not the capital.\n\nB) Paris - This is correct. The parliament sits there.\n\nC) Marseille - A port city.\n\nD) Nice - Not the capital.\n\nThe key point is the seat of government.\n\nANSWER: B",
    expected: "B",
    note: "claude: each option evaluated, then the template",
  },
  { source: "interop", options: YES_NO, text: "Yes", expected: "A", note: "gpt-4o-mini: the option text alone" },
  { source: "interop", options: YES_NO, text: "No.", expected: "B", note: "llama 405B: option text with a full stop" },
  { source: "interop", options: YES_NO, text: "Yes\n", expected: "A", note: "gemma3: trailing newline" },
  { source: "interop", options: YES_NO, text: "No", expected: "B", note: "llama3.1" },
  { source: "interop", options: YES_NO_MAYBE, text: "ANSWER: A", expected: "A", note: "gpt-4o-mini, three options" },

  // --- documented answer formats ---
  { source: "documented", options: CITY, text: "<answer>B</answer>", expected: "B", note: "XML answer tags" },
  { source: "documented", options: CITY, text: "<answer>\n(C) Marseille\n</answer>", expected: "C" },
  {
    source: "documented",
    options: CITY,
    text: "<thinking>Lyon is large, but the parliament is elsewhere.</thinking>\n<answer>B</answer>",
    expected: "B",
  },
  { source: "documented", options: CITY, text: "<final_answer>D</final_answer>", expected: "D" },
  { source: "documented", options: METAL, text: "The best answer is C.", expected: "C", note: "llama eval prompt" },
  { source: "documented", options: METAL, text: "The final answer is: $\\boxed{B}$", expected: "B" },
  {
    source: "documented",
    options: METAL,
    text: "<think>\nMaybe A. No: copper forms a patina, it does not rust.\n</think>\n\n**Final Answer**\n\\boxed{B}",
    expected: "B",
    note: "reasoning model: think block, then a boxed letter",
  },
  { source: "documented", options: METAL, text: "<think>The answer is A.</think>\nThe answer is B.", expected: "B" },
  { source: "documented", options: CITY, text: "**Final Answer**\n\n**B**", expected: "B" },
  {
    source: "documented",
    options: CITY,
    text: "## Final Answer\n\nThe correct answer is **B) Paris**.",
    expected: "B",
  },
  { source: "documented", options: METAL, text: '{"answer": "C"}', expected: "C", note: "JSON structured output" },
  {
    source: "documented",
    options: METAL,
    text: '{\n  "reasoning": "Iron oxidises in moist air.",\n  "final_answer": "B"\n}',
    expected: "B",
  },
  { source: "documented", options: CITY, text: "Answer：B", expected: "B", note: "full-width colon" },
  { source: "documented", options: CITY, text: "Answer: Option B", expected: "B" },
  {
    source: "documented",
    options: ENERGY,
    text: "Final Answer: The final answer is C. I hope it is correct.",
    expected: "C",
  },

  // --- markup around the letter ---
  { source: "markup", options: CITY, text: "The answer is **(C)**.", expected: "C" },
  { source: "markup", options: CITY, text: "Answer: **(C)**", expected: "C" },
  { source: "markup", options: CITY, text: "`(B)`", expected: "B", note: "inline code" },
  { source: "markup", options: CITY, text: "Answer: `B`", expected: "B" },
  { source: "markup", options: CITY, text: "$\\boxed{\\text{B}}$", expected: "B" },
  { source: "markup", options: CITY, text: "The answer is $\\text{C}$.", expected: "C" },
  { source: "markup", options: CITY, text: "\\text{C}", expected: "C", note: "a bare LaTeX text letter" },
  { source: "markup", options: CITY, text: "$\\textbf{(D)}$", expected: "D" },
  { source: "markup", options: CITY, text: "**Answer:** \\(\\text{C}\\)", expected: "C" },
  { source: "markup", options: CITY, text: "\\(\\boxed{D}\\)", expected: "D" },
  { source: "markup", options: CITY, text: "The answer is $\\mathbf{A}$.", expected: "A" },
  { source: "markup", options: CITY, text: "\\boxed{B. Paris}", expected: "B", note: "boxed letter with its text" },
  { source: "markup", options: CITY, text: "\\boxed{\\text{(C) Marseille}}", expected: "C" },
  { source: "markup", options: CITY, text: "*B*", expected: "B", note: "italic" },
  { source: "markup", options: CITY, text: "__C__", expected: "C" },
  { source: "markup", options: CITY, text: "### Answer: **B**", expected: "B" },
  { source: "markup", options: CITY, text: "**Answer: B) Paris**", expected: "B" },
  { source: "markup", options: CITY, text: "The correct answer is:\n\n**C) Marseille**", expected: "C" },
  { source: "markup", options: CITY, text: "Answer: [[B]]", expected: "B" },
  { source: "markup", options: CITY, text: "**The correct answer is B.**", expected: "B" },
  { source: "markup", options: CITY, text: "Correct answer: **D**", expected: "D" },
  { source: "markup", options: CITY, text: "Correct option: B", expected: "B" },
  { source: "markup", options: CITY, text: "**B) Paris** is the correct answer.", expected: "B" },
  { source: "markup", options: CITY, text: "(C) is correct.", expected: "C" },
  { source: "markup", options: CITY, text: "Final choice: A", expected: "A" },
  { source: "markup", options: CITY, text: "I'd go with **B**.", expected: "B" },
  { source: "markup", options: CITY, text: "I would choose (D) Nice.", expected: "D" },

  // --- options named by their text, or by "B) text", without an answer marker ---
  { source: "text", options: CITY, text: "Paris", expected: "B" },
  { source: "text", options: CITY, text: "**Paris**", expected: "B" },
  { source: "text", options: CITY, text: "Paris.", expected: "B" },
  { source: "text", options: CITY, text: "B) Paris", expected: "B" },
  { source: "text", options: CITY, text: "B. Paris", expected: "B" },
  { source: "text", options: CITY, text: "The answer is Paris.", expected: "B" },
  { source: "text", options: WHO, text: "Answer: **Not enough information**", expected: "C" },
  { source: "text", options: WHO, text: "Not enough information.", expected: "C" },
  { source: "text", options: ENERGY, text: "The correct answer is 9.0 J.", expected: "B" },
  {
    source: "text",
    options: METAL,
    text: "After comparing the options, I'd say the answer is Iron.",
    expected: "B",
  },
  {
    source: "text",
    options: METAL,
    text: "Let me think.\nCopper forms a patina, but iron oxide is rust.\n\nIron",
    expected: "B",
    note: "the last line is exactly one option's text",
  },

  // --- the last stated final answer wins ---
  { source: "last", options: CITY, text: "Answer: A\n\nWait, I misread the question.\n\nAnswer: **C**", expected: "C" },
  { source: "last", options: CITY, text: "<answer>A</answer>\nOn second thought:\n<answer>D</answer>", expected: "D" },
  { source: "last", options: CITY, text: "\\boxed{A}\n\nHmm, checking again... \\boxed{C}", expected: "C" },
  {
    source: "last",
    options: CITY,
    text: "**Answer: B**\n\nWhy not A? A) Lyon is tempting but wrong.",
    expected: "B",
    note: "a later option mention is not an answer",
  },
  {
    source: "last",
    options: CITY,
    text: "The answer is (B).\n\nParis is also the largest city.",
    expected: "B",
  },
  {
    source: "last",
    options: CITY,
    text: "Answer: Paris\n\nOn reflection, the question asks about the port.\nAnswer: C",
    expected: "C",
  },
  { source: "last", options: CITY, text: "The answer is C.\n\nFinal answer: Paris", expected: "B" },
  { source: "last", options: CITY, text: "Lyon is tempting, but B is correct.", expected: "B" },
  { source: "last", options: CITY, text: "A) Lyon is correct.\nNo wait: (B) is correct.", expected: "B" },

  // --- no single answer: null ---
  { source: "negative", options: CITY, text: "The answer is A or B.", expected: null, note: "hedged" },
  { source: "negative", options: CITY, text: "It could be A or B, depending on the reading.", expected: null },
  { source: "negative", options: CITY, text: "Answer: A/B", expected: null },
  { source: "negative", options: CITY, text: "Answer: (A) or (C)", expected: null },
  {
    source: "negative",
    options: CITY,
    text: "Answer: A and C",
    expected: null,
    note: "two answers to a one-answer item",
  },
  { source: "negative", options: CITY, text: "Both A and C are correct.", expected: null },
  { source: "negative", options: CITY, text: "**A** or **B**, I can't decide.", expected: null },
  {
    source: "negative",
    options: CITY,
    text: "I'm sorry, but I can't help with that.",
    expected: null,
    note: "refusal",
  },
  {
    source: "negative",
    options: CITY,
    text: "I can't choose between these options without more context.",
    expected: null,
  },
  { source: "negative", options: CITY, text: "None of the options is correct.", expected: null },
  { source: "negative", options: CITY, text: "As an AI, I don't have personal preferences.", expected: null },
  {
    source: "negative",
    options: CITY,
    text: "A) Lyon\nB) Paris\nC) Marseille\nD) Nice",
    expected: null,
    note: "the options restated",
  },
  { source: "negative", options: CITY, text: "The answer is Paris or Lyon.", expected: null },
  { source: "negative", options: CITY, text: "Answer: Toulouse", expected: null, note: "text of no option" },
  { source: "negative", options: CITY, text: "France", expected: null },
  {
    source: "negative",
    options: METAL,
    text: "Vitamin C is correct for scurvy, but this question is about metals and I am not sure.",
    expected: null,
    note: "a letter inside a name",
  },
  { source: "negative", options: CITY, text: "I think the answer is either B or D.", expected: null },
  { source: "negative", options: CITY, text: "B or C", expected: null },
  { source: "negative", options: CITY, text: "The answer is not A.", expected: null },
  // --- written after the extension, as a second held-out round ---
  { source: "markup", options: CITY, text: "**Answer:** (B) Paris", expected: "B" },
  { source: "markup", options: CITY, text: "The correct answer is **B. Paris**", expected: "B" },
  { source: "markup", options: CITY, text: "Therefore, the answer is $\\boxed{\\textbf{(B)}}$.", expected: "B" },
  { source: "markup", options: CITY, text: "The best choice is **D**.", expected: "D" },
  { source: "markup", options: CITY, text: "**Answer**: C", expected: "C" },
  { source: "markup", options: CITY, text: "Answer — C", expected: "C" },
  { source: "markup", options: CITY, text: "Answer: (C).", expected: "C" },
  { source: "markup", options: CITY, text: "answer: (d)", expected: "D" },
  { source: "markup", options: CITY, text: "My final answer is **(A) Lyon**.", expected: "A" },
  { source: "documented", options: CITY, text: "Final Answer: \\boxed{C}", expected: "C" },
  { source: "documented", options: CITY, text: "The answer: B", expected: "B" },
  {
    source: "documented",
    options: CITY,
    text: "Step 1: A is large.\nStep 2: B is the capital.\nAnswer:\n\nB",
    expected: "B",
  },
  {
    source: "text",
    options: PERCENT,
    text: "Let me work through it.\n\n10% of 200 is 20, so 15% is 30.\n\n30",
    expected: "C",
  },
  { source: "text", options: PERCENT, text: "Answer: 30", expected: "C" },
  { source: "text", options: PERCENT, text: "The answer is 30.", expected: "C" },
  { source: "text", options: WHO, text: "The cashier", expected: "A" },
  { source: "text", options: WHO, text: "Answer: The pilot.", expected: "B" },
  { source: "text", options: CITY, text: "<answer>Paris</answer>", expected: "B" },
  { source: "text", options: CITY, text: '{"answer": "Paris"}', expected: "B" },
  { source: "text", options: CITY, text: "Hmm.\n\n**Paris**", expected: "B" },
  { source: "text", options: CITY, text: "Answer the question carefully.\n\nA) Lyon", expected: "A" },
  { source: "last", options: CITY, text: "Answer: B\n\nA is wrong, and C is wrong.", expected: "B" },
  { source: "last", options: CITY, text: "So the correct answer is (B) Paris, not (A) Lyon.", expected: "B" },
  { source: "last", options: CITY, text: "The answer is B and C is wrong.", expected: "B" },
  { source: "last", options: CITY, text: "The answer is B and A is a distractor.", expected: "B" },
  {
    source: "last",
    options: CITY,
    text: "A is correct if we ignore X. However, considering X, C is correct.",
    expected: "C",
  },
  { source: "last", options: CITY, text: "In this case, C is correct.", expected: "C" },
  { source: "last", options: CITY, text: "Neither A nor B; the answer is C.", expected: "C" },
  { source: "last", options: CITY, text: "Answer: A or B? I'd go with B.", expected: "B" },
  { source: "negative", options: PERCENT, text: "10% of 200 is 20\n15% of 200 is 30", expected: null },
  { source: "negative", options: PERCENT, text: "20\n30", expected: null, note: "two option texts: a listing" },
  { source: "negative", options: CITY, text: "I choose A or B.", expected: null },
  {
    source: "negative",
    options: CITY,
    text: "To answer this:\n\nA) Lyon\nB) Paris\nC) Marseille\nD) Nice",
    expected: null,
  },
  {
    source: "negative",
    options: WHO,
    text: "I'd say the pilot, but honestly it's not enough information.",
    expected: null,
  },
  { source: "negative", options: CITY, text: "Plan C is correct here.", expected: null },
  { source: "negative", options: CITY, text: "Type A is the best one.", expected: null },
  { source: "negative", options: CITY, text: "The answer is B/C.", expected: null },
  { source: "negative", options: CITY, text: "Answer: either A or C", expected: null },
  { source: "negative", options: CITY, text: "Answer: B or C", expected: null },
  { source: "negative", options: CITY, text: "I'm unable to answer questions like this.", expected: null },
  {
    source: "negative",
    options: CITY,
    text: "Sorry, I cannot determine the answer from the given information.",
    expected: null,
  },
  { source: "negative", options: CITY, text: "It depends on context; I'll refrain from choosing.", expected: null },
  { source: "negative", options: CITY, text: "Answer: **A** and **D**", expected: null },
  { source: "negative", options: CITY, text: "Answer: A & B", expected: null },
];

/** The letters of an item with these options: A, B, ... */
export const lettersOf = (options: readonly string[]): string[] => options.map((_, i) => String.fromCharCode(65 + i));
