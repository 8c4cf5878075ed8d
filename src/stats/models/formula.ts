// A small formula language in the R/patsy style: `y ~ a + b + a:b`, `a*b` (= a + b + a:b),
// `- 1` or `0` (no intercept), and one random intercept `(1 | g)` for mixed models.

export interface ParsedFormula {
  response: string;
  /** Fixed-effect terms in written order; an interaction is its variables joined by ':'. */
  terms: string[];
  intercept: boolean;
  /** Grouping variable of a `(1 | g)` random intercept, if the formula has one. */
  randomIntercept?: string;
}

export function parseFormula(formula: string): ParsedFormula {
  const [lhs, rhs, extra] = formula.split("~");
  if (rhs === undefined || extra !== undefined || lhs.trim() === "") {
    throw new Error(`formula must look like 'response ~ terms', got '${formula}'`);
  }
  let body = rhs;
  let randomIntercept: string | undefined;
  const random = /\(\s*1\s*\|\s*([^)]+?)\s*\)/g;
  for (const match of body.matchAll(random)) {
    if (randomIntercept !== undefined) throw new Error("only one random intercept '(1 | g)' is supported");
    randomIntercept = match[1];
  }
  body = body.replace(random, "");
  let intercept = true;
  const terms: string[] = [];
  for (const raw of splitSigned(body)) {
    const token = raw.text.trim();
    if (token === "") continue;
    if (token === "1" || token === "0") {
      // `+ 1` keeps the intercept; `- 1` and `0` drop it.
      intercept = token === "1" && raw.sign > 0;
      continue;
    }
    if (raw.sign < 0) throw new Error(`removing terms other than the intercept is not supported: '- ${token}'`);
    for (const term of expandStar(token)) if (!terms.includes(term)) terms.push(term);
  }
  return { response: lhs.trim(), terms, intercept, ...(randomIntercept ? { randomIntercept } : {}) };
}

function splitSigned(body: string): { sign: number; text: string }[] {
  const parts: { sign: number; text: string }[] = [];
  let sign = 1;
  let current = "";
  for (const ch of body) {
    if (ch === "+" || ch === "-") {
      parts.push({ sign, text: current });
      sign = ch === "+" ? 1 : -1;
      current = "";
    } else current += ch;
  }
  parts.push({ sign, text: current });
  return parts;
}

/** `a*b*c` -> every non-empty sub-interaction, lower orders first; `a:b` stays as is. */
function expandStar(token: string): string[] {
  const factors = token.split("*").map((f) => f.trim());
  if (factors.length === 1) return [normalizeInteraction(token)];
  const out: string[] = [];
  const n = factors.length;
  for (let size = 1; size <= n; size++) {
    for (let mask = 1; mask < 1 << n; mask++) {
      if (popCount(mask) !== size) continue;
      out.push(factors.filter((_, i) => mask & (1 << i)).join(":"));
    }
  }
  return out.map(normalizeInteraction);
}

function normalizeInteraction(term: string): string {
  return term
    .split(":")
    .map((v) => v.trim())
    .join(":");
}

function popCount(x: number): number {
  let c = 0;
  for (let v = x; v; v &= v - 1) c++;
  return c;
}
