/**
 * Parsing a model's decomposition into sub-tasks. Models write numbered lists in many shapes
 * ("1.", "1)", "(1)", "Step 1:", "Sub-task 1 -", bullets, bold markers); each shape is accepted,
 * continuation lines join their item, and anything before the first item is preamble.
 */
export interface Decomposition {
  /** The sub-tasks used (at most `limit`). */
  subtasks: string[];
  /** How many list items the reply contained. */
  parsed: number;
  /** True when the reply had no list item and the question itself became the one sub-task. */
  fallback: boolean;
}

const ITEM =
  /^\s*(?:\*\*)?(?:\(?\d{1,2}[.):]|(?:step|sub-?task|sub-?question|part)\s*\d{1,2}\s*[:.)-]|[-*\u2022])(?:\*\*)?\s+(.*\S)\s*$/i;

/** The list items of a reply, in order, with wrapped continuation lines joined. */
export function parseNumberedList(reply: string): string[] {
  const items: string[] = [];
  let current: string | undefined;
  for (const line of reply.split(/\r?\n/)) {
    const match = ITEM.exec(line);
    if (match) {
      if (current !== undefined) items.push(current);
      current = clean(match[1]);
    } else if (current !== undefined && line.trim() !== "" && /^\s{2,}\S/.test(line)) {
      current = `${current} ${line.trim()}`;
    } else if (current !== undefined && line.trim() === "") {
      items.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) items.push(current);
  return items.filter((item) => item.length > 0);
}

/** At most `limit` sub-tasks; the fallback sub-task when the reply lists none. */
export function decompose(reply: string, limit: number, fallbackSubtask: string): Decomposition {
  const items = parseNumberedList(reply);
  if (items.length === 0) return { subtasks: [fallbackSubtask], parsed: 0, fallback: true };
  return { subtasks: items.slice(0, limit), parsed: items.length, fallback: false };
}

function clean(text: string): string {
  return text
    .replace(/^\*\*|\*\*$/g, "")
    .replace(/\*\*/g, "")
    .trim();
}
