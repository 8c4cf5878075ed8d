/**
 * The plain data of YAML text, fast: js-yaml builds it about ten times faster than the `yaml`
 * library's located parse, which matters for specs with thousands of inline items. The schema
 * below resolves plain scalars exactly as YAML 1.2's core schema does in the `yaml` library
 * (js-yaml's own core schema also reads 0b101 and +0x1F as numbers, and not +.5), so both parsers
 * give the same data; the one difference left is a collection used as a mapping key, which no spec
 * field accepts. Callers fall back to the located parse whenever this one declines.
 */
import { FAILSAFE_SCHEMA, load, Type } from "js-yaml";

const scalar = (tag: string, test: RegExp, construct: (text: string) => unknown) =>
  new Type(`tag:yaml.org,2002:${tag}`, {
    kind: "scalar",
    resolve: (text: string | null) => test.test(text ?? ""),
    construct: (text: string | null) => construct(text ?? ""),
  });

const CORE_SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    scalar("null", /^(?:~|[Nn]ull|NULL)?$/, () => null),
    scalar("bool", /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (text) => text[0] === "t" || text[0] === "T"),
    scalar("int", /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/, (text) =>
      text.startsWith("0o")
        ? Number.parseInt(text.slice(2), 8)
        : text.startsWith("0x")
          ? Number.parseInt(text.slice(2), 16)
          : Number.parseInt(text, 10),
    ),
    scalar(
      "float",
      /^(?:[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
      (text) =>
        /nan$/i.test(text)
          ? Number.NaN
          : /inf$/i.test(text)
            ? text[0] === "-"
              ? Number.NEGATIVE_INFINITY
              : Number.POSITIVE_INFINITY
            : Number.parseFloat(text),
    ),
  ],
});

/**
 * The data of `text` when it is one YAML mapping that this parser reads the same way as the
 * located parse; undefined otherwise (a syntax error, several documents, an explicit tag that
 * does not fit its value, a null key, which js-yaml names "null" and `yaml` names "", or an alias
 * to a collection, whose expansion the located parse limits), so that the caller's located parse
 * reports or reads it.
 */
export function quickYamlMapping(text: string): Record<string, unknown> | undefined {
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA });
  } catch {
    return undefined;
  }
  return isMapping(data) && plainTree(data, new Set()) ? data : undefined;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every collection reached once (no alias to a collection) and no key read as "null". */
function plainTree(value: unknown, seen: Set<object>): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (seen.has(value) || (!Array.isArray(value) && Object.hasOwn(value, "null"))) return false;
  seen.add(value);
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.every((child) => plainTree(child, seen));
}
