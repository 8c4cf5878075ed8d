/**
 * Open-ended renderings of multiple-choice stems (the MC/OE format pairs of ScaffoldSafety
 * 5.1). Removing the options leaves artefacts that refer to them ("Which of the following",
 * "Choose the best answer."); App. N.3 found that simple patterns miss variants ("Of the
 * following solutions, ...") and that some questions cannot be asked without their options
 * ("all of the above", "Which of these", "EXCEPT"). Such items are rewritten as well as
 * possible but flagged option-dependent, so analyses can exclude them.
 */

export interface OpenEndedStem {
  /** The question with MC artefacts removed. */
  question: string;
  /** True when the question only makes sense with its options. */
  optionDependent: boolean;
  /** Why the item is option-dependent (empty when it is not). */
  reasons: string[];
  /** The artefacts removed or rewritten, for audit. */
  removed: string[];
}

const LIST_NOUN = "(?:options?|choices?|answers?|alternatives?|responses?|statements? (?:below|above))";
const LIST_NOUN_RE = /^(?:options?|choices?|answers?|alternatives?|responses?)$/i;
const WHERE = "(?:\\s+(?:below|above|given|provided|listed(?: below| above)?|that follow))?";

/** Trailing instructions that only make sense with visible options. */
const TRAILING: RegExp[] = [
  /(?<=(?:^|[.?!:)\n])\s*)\(?(?:please\s+)?(?:choose|select|pick|circle|mark|indicate)\b[^.?!\n]*\b(?:one|answer|option|choice|response|following|below|above|letter)\b[^.?!\n]*[.:!]?\)?\s*$/i,
  /\s*(?:answer|choices|options|answer choices)\s*:\s*$/i,
];

/** Sentence-initial "From the options below," and kin: dropped. */
const LEAD_IN = new RegExp(
  `(^|[.?!:]\\s+|\\n\\s*)(?:from|of|among|out of|considering)\\s+(?:the|these)\\s+${LIST_NOUN}${WHERE}\\s*,\\s*`,
  "gi",
);

/** "Of the following solutions, which would ..." -> "Which solution would ...". */
const OF_THE_FOLLOWING_NOUN = /\b(?:of|from|among) the following((?: [\w-]+){0,3})\s*,\s*(which|what|who)\b/gi;

/** "Which (one) of the following (options)" / "which of these", then up to two following words. */
const WHICH_OF = new RegExp(
  `\\b(which|what)(?:\\s+of)?(?:\\s+one|\\s+ones)?\\s+of\\s+(?:the\\s+following|these|those|the\\s+${LIST_NOUN})(?:\\s+(?:options|choices|answers))?${WHERE}(?:\\s*,)?(?:\\s+(\\w+))?(?:(\\s+)(\\w+))?`,
  "gi",
);

/** Words after "which of the following" that make it "what ...", not "which <noun> ...". */
const VERB_START = new Set(
  "is are was were be best most least would could can should does do did has have will might may must correctly accurately likely probably typically usually describes describe explains explain represents represent refers refer".split(
    " ",
  ),
);

/** A clause whose verb is singular: "Which of the following drugs is ..." -> "Which drug is ...". */
const SINGULAR_CLAUSE = /^[^?.]*?\b(?:is|was|has|does)\b/i;
const PLURAL_CLAUSE = /^[^?.]*?\b(?:are|were|have|do)\b/i;

const DEPENDENT_STEM: [RegExp, string][] = [
  [/\b(?:all|none|both|neither|any) of the (?:above|below)\b/i, "refers to the other options (… of the above)"],
  [/\bwhich(?: one)? of (?:these|those)\b/i, "asks to pick among the listed options (which of these)"],
  [/\b(?:all|each|every|both|any|two|three|four) of the following\b/i, "enumerates the listed options"],
  [
    /\bEXCEPT\b|\b(?:is|are|was|were|be|does|do|would|could|can|will|should)\s+(?:NOT|LEAST|FALSE|INCORRECT)\b/,
    "asks for the option that does not fit (EXCEPT/NOT)",
  ],
  [/\bstatement \d\b.*\bstatement \d\b/is, "asks to judge numbered statements"],
  [
    /\b(?:the|these) (?:options?|choices?|alternatives?)\b|\b(?:listed|given|shown) (?:below|above)\b|\b(?:below|above)\s*\??\s*$|\b(?:of|from|among) the following\b|\bthe following(?:\s+[\w-]+){0,3}\s*[.:?,]?\s*$/i,
    "still refers to the options after cleaning",
  ],
];

const DEPENDENT_OPTION: [RegExp, string][] = [
  [
    /^(?:all|none|both|neither|any) of (?:the )?(?:above|below|these|those|them|the (?:options|choices|answers))\b/i,
    "an option refers to the other options",
  ],
  [
    /^(?:both|either|neither|only)\s+\(?[A-H]\)?\s+(?:and|or|nor)\s+\(?[A-H]\)?/i,
    "an option combines other options by letter",
  ],
  [
    /^\(?[A-H]\)?(?:\s*,\s*\(?[A-H]\)?)*\s*,?\s*(?:and|or|&)\s+\(?[A-H]\)?(?:\s+only)?\.?$/i,
    "an option combines other options by letter",
  ],
  [
    /^(?:I{1,3}|IV|VI{0,3})(?:\s*(?:,|and|&)\s*(?:I{1,3}|IV|VI{0,3}))*(?:,?\s+only)?\.?$/,
    "options combine numbered statements (I, II, III)",
  ],
  [
    /^(?:true|false|wrong|not wrong)\s*,\s*(?:true|false|wrong|not wrong)$/i,
    "options are truth values of several statements",
  ],
];

/** A question left with nothing to ask once options are gone ("What is true?"). */
const VACUOUS =
  /(?:^|[.?!:\n]\s*)(?:what|which)(?: \w+)? (?:is|are|was|were|would be|best describes?) (?:true|false|correct|incorrect|accurate|inaccurate|right|wrong|valid|invalid|the (?:correct|best|right|most (?:appropriate|accurate|likely)) (?:answer|option|choice|statement|one))\s*\??\s*$/i;

/** Rewrites an MC stem as an open question and reports whether it depends on its options. */
export function openEndedStem(stem: string, options: readonly string[] = []): OpenEndedStem {
  const { question, removed } = openEndedRewrite(stem);
  const reasons = dependenceReasons(stem, question, options);
  return { question, optionDependent: reasons.length > 0, reasons, removed };
}

/**
 * The rewrite alone, without the dependence check: what rendering an open-ended task needs
 * (`openEndedStem(...).question`, without testing the stem and every option against two dozen
 * more patterns).
 */
export function openEndedRewrite(stem: string): { question: string; removed: string[] } {
  const removed: string[] = [];
  let text = stripTrailing(stem, removed);
  text = text.replace(LEAD_IN, (match, before: string) => {
    removed.push(match.slice(before.length).trim());
    return before;
  });
  text = text.replace(OF_THE_FOLLOWING_NOUN, (match, phrase: string, wh: string) => {
    removed.push(match);
    const words = phrase.trim().split(" ").filter(Boolean);
    // A list noun ("Of the following options, which") is itself an artefact: fall through to WHICH_OF.
    if (words.length === 0 || LIST_NOUN_RE.test(words.join(" "))) {
      return wh.toLowerCase() === "who" ? wh : `${wh} of the following`;
    }
    words[words.length - 1] = singular(words[words.length - 1]);
    return `${wh} ${words.join(" ")}`;
  });
  text = rewriteWhichOf(text, removed);
  text = capitaliseSentences(text).trim();
  return { question: text, removed };
}

function stripTrailing(stem: string, removed: string[]): string {
  let text = stem.trimEnd();
  for (let changed = true; changed; ) {
    changed = false;
    for (const pattern of TRAILING) {
      const match = pattern.exec(text);
      // Never strip the whole stem: an instruction-only stem stays as it is.
      if (match && match.index > 0) {
        removed.push(match[0].trim());
        text = text.slice(0, match.index).trimEnd();
        changed = true;
      }
    }
  }
  return text;
}

function rewriteWhichOf(text: string, removed: string[]): string {
  return text.replace(
    WHICH_OF,
    (
      match,
      wh: string,
      w1: string | undefined,
      gap: string | undefined,
      w2: string | undefined,
      offset: number,
      whole: string,
    ) => {
      const upper = wh[0] === wh[0].toUpperCase();
      const cap = (word: string) => (upper ? word[0].toUpperCase() + word.slice(1) : word);
      const tail = w2 === undefined ? "" : `${gap}${w2}`;
      removed.push(match.trim());
      // "Which of the following is ..." -> "What is ..."; "Which of the following drugs is ..." -> "Which drug is ...".
      if (w1 === undefined) return cap("what");
      if (VERB_START.has(w1.toLowerCase())) return `${cap("what")} ${w1}${tail}`;
      const noun = singularClause(w2, whole.slice(offset + match.length)) ? singular(w1) : w1;
      return `${cap("which")} ${noun}${tail}`;
    },
  );
}

/** Whether the words after a plural noun take a singular verb ("... statements about X is correct"). */
function singularClause(next: string | undefined, rest: string): boolean {
  if (next === undefined) return false;
  const clause = `${next}${rest}`;
  // "... drugs is", "... terms describes": the verb right after the noun decides.
  if (/^(?:is|was|has|does|best|most)$/i.test(next) || /^[a-z]+[^su]s$/.test(next)) return true;
  const singularAt = SINGULAR_CLAUSE.exec(clause)?.[0].length ?? Infinity;
  const pluralAt = PLURAL_CLAUSE.exec(clause)?.[0].length ?? Infinity;
  return singularAt < pluralAt;
}

function dependenceReasons(original: string, cleaned: string, options: readonly string[]): string[] {
  const reasons = new Set<string>();
  for (const [pattern, reason] of DEPENDENT_STEM) {
    // "which of these" and friends are judged on the original; residual references on the cleaned text.
    const target = reason.startsWith("still") ? cleaned : original;
    if (pattern.test(target)) reasons.add(reason);
  }
  for (const option of options) {
    for (const [pattern, reason] of DEPENDENT_OPTION) if (pattern.test(option.trim())) reasons.add(reason);
  }
  if (cleaned === "" || VACUOUS.test(cleaned)) reasons.add("nothing left to ask without the options");
  return [...reasons];
}

const IRREGULAR: Record<string, string> = {
  gases: "gas",
  buses: "bus",
  viruses: "virus",
  lenses: "lens",
  analyses: "analysis",
  crises: "crisis",
  hypotheses: "hypothesis",
  diagnoses: "diagnosis",
  axes: "axis",
  indices: "index",
  matrices: "matrix",
  vertices: "vertex",
  criteria: "criterion",
  phenomena: "phenomenon",
  children: "child",
  people: "person",
  men: "man",
  women: "woman",
  teeth: "tooth",
  feet: "foot",
  mice: "mouse",
};
const INVARIANT = /^(?:species|series|means|news|physics|mathematics|economics|politics|ethics|genetics|data)$/i;

/** English singular for the noun after "Of the following": solutions -> solution, gases -> gas. */
export function singular(noun: string): string {
  const lower = noun.toLowerCase();
  if (IRREGULAR[lower]) return noun[0] + IRREGULAR[lower].slice(1);
  if (INVARIANT.test(noun)) return noun;
  if (/ies$/i.test(noun)) return noun.slice(0, -3) + "y";
  if (/(?:ch|sh|x|z|ss)es$/i.test(noun)) return noun.slice(0, -2);
  if (/[^suia]s$/i.test(noun)) return noun.slice(0, -1);
  return noun;
}

function capitaliseSentences(text: string): string {
  return text.replace(
    /(^\s*|[.?!]\s+|\n\s*)([a-z])/g,
    (_m, before: string, letter: string) => before + letter.toUpperCase(),
  );
}
