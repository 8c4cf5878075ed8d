/**
 * Response sanitisation before judging (ScaffoldSafety App. Q.2, step 1): strips what could tell
 * a judge which configuration or model produced a response.
 * - chain-of-thought blocks (<think>, <thinking>, <reasoning>, <scratchpad>) and ReAct
 *   "Thought:" / "Action:" / "Observation:" lines;
 * - tool-call remnants (<tool_call>, <function_call>, special tokens such as <|im_end|>, JSON
 *   tool invocations), keeping the argument of a final Finish[...] action;
 * - agent-communication markers and scaffold talk (lines addressed by or to a critic, worker,
 *   planner, checker, adjudicator, sub-task; "on reflection I will change my answer");
 * - fenced code blocks, replaced by "[code removed]";
 * - formatting artifacts (markdown headings, emphasis, rules, blank-line runs);
 * - model self-identification ("As an AI developed by OpenAI", "I'm Claude") and model or
 *   developer names, replaced by neutral tokens;
 * - every string in `redact` (model ids, scaffold and condition labels), as whole words.
 * "Final Answer:" is normalised to "Answer:" (ReAct writes the former, other scaffolds the latter).
 */

const BLOCKS = /<(think|thinking|reasoning|scratchpad|reflection|tool_call|function_call|tool_result)>[\s\S]*?<\/\1>/gi;
const STRAY_TAGS = /<\/?(?:think|thinking|reasoning|scratchpad|reflection|tool_call|function_call|tool_result)>/gi;
const SPECIAL_TOKENS = /<\|[^|>]{1,40}\|>/g;
const CODE_FENCE = /```[\s\S]*?(?:```|$)/g;
const FINISH = /\bFinish\[([^\]\n]*)\]/gi;
const REACT_LINE = /^\s*(?:thought|action(?: input)?|observation|tool|plan|step \d+)\s*:.*$/gim;
const JSON_TOOL_LINE = /^\s*\{\s*"(?:name|tool|function)"\s*:.*\}\s*$/gm;
const AGENT_LINE =
  /^.*\b(?:sub-?tasks?|workers?|critic|critique|reviewer|checker|adjudicat\w*|planner|executor|rater|orchestrator|agents?|draft|on reflection|i keep my answer|my previous answer|revised answer)\b.*$/gim;
const HEADINGS = /^\s{0,3}#{1,6}\s*/gm;
const RULES = /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/gm;
const EMPHASIS = /(\*\*|__)(.+?)\1/g;

const MODEL_NAMES =
  /\b(?:chat-?gpt|gpt-?[0-9][\w.-]*|o[134](?:-mini)?|claude(?:[\s-][\w.]+)?|gemini(?:[\s-][\w.]+)?|bard|llama[\s-]?[\d.]*\w*|mistral(?:[\s-]large)?|mixtral|deepseek(?:[\s-]v?[\d.]+)?|qwen[\d.-]*\w*|yi-[\d.]+|gemma[\d.-]*|phi-?\d*)\b/gi;
const DEVELOPERS =
  /\b(?:openai|anthropic|google deepmind|deepmind|google|meta ai|meta|mistral ai|alibaba cloud|alibaba|01\.ai)\b/gi;
const SELF_ID =
  /\b(?:as an? (?:ai|large language model|language model|ai assistant|ai language model)(?: (?:developed|created|trained|made|built) by [\w. ]+?)?|i(?:'m| am) (?:an? )?(?:ai )?(?:assistant|model)? ?(?:developed|created|trained|made|built) by [\w. ]+?)(?=[,.;:!]|\s*$)/gi;

export function sanitiseResponse(text: string, redact: readonly string[] = []): string {
  let out = text.replace(BLOCKS, " ").replace(STRAY_TAGS, " ").replace(SPECIAL_TOKENS, " ");
  out = out.replace(CODE_FENCE, "[code removed]");
  out = out.replace(FINISH, "Answer: $1");
  out = out.replace(/^(\s*)final answer\s*:/gim, "$1Answer:");
  out = out.replace(REACT_LINE, "").replace(JSON_TOOL_LINE, "").replace(AGENT_LINE, "");
  out = out.replace(HEADINGS, "").replace(RULES, "").replace(EMPHASIS, "$2");
  out = out.replace(SELF_ID, "as an AI assistant");
  out = out.replace(MODEL_NAMES, "[model]").replace(DEVELOPERS, "[developer]");
  for (const term of redactionTerms(redact)) out = out.replace(term, "[redacted]");
  return out
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

/** Whole-word, case-insensitive patterns for the terms, longest first (so "map_reduce_options" beats "map_reduce"). */
function redactionTerms(terms: readonly string[]): RegExp[] {
  const unique = [...new Set(terms.map((t) => t.trim()).filter((t) => t.length >= 3 && /[a-z]/i.test(t)))];
  return unique
    .sort((a, b) => b.length - a.length)
    .flatMap((t) => {
      const variants = new Set([t, t.replace(/_/g, "-"), t.replace(/_/g, " ")]);
      return [...variants].map((v) => new RegExp(`(?<![\\w-])${escapeRegExp(v)}(?![\\w-])`, "gi"));
    });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
