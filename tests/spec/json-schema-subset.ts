/**
 * A small JSON Schema (2020-12) validator for the keywords that z.toJSONSchema emits for the study
 * spec. It exists so tests can check the published schema/spec.schema.json without a validator
 * dependency. Unknown keywords throw, so a schema change it cannot judge fails loudly instead of
 * passing silently.
 */
type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(["$schema", "title", "description", "default"]);
const HANDLED = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "enum",
  "const",
  "anyOf",
]);

/** Errors as "path: what", empty when `value` is valid. */
export function validateJsonSchema(schema: Schema, value: unknown, path = "$"): string[] {
  for (const keyword of Object.keys(schema))
    if (!ANNOTATIONS.has(keyword) && !HANDLED.has(keyword))
      throw new Error(`unsupported keyword ${keyword} at ${path}`);
  if (schema.anyOf) {
    const branches = schema.anyOf as Schema[];
    if (!branches.some((branch) => validateJsonSchema(branch, value, path).length === 0))
      return [`${path}: matches no branch of anyOf`];
  }
  if (schema.type !== undefined && !hasType(value, schema.type as string | string[]))
    return [`${path}: expected type ${schema.type}`];
  return [
    ...scalarErrors(schema, value, path),
    ...arrayErrors(schema, value, path),
    ...objectErrors(schema, value, path),
  ];
}

function hasType(value: unknown, type: string | string[]): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    if (t === "integer") return Number.isInteger(value);
    if (t === "array") return Array.isArray(value);
    if (t === "null") return value === null;
    if (t === "object") return typeof value === "object" && value !== null && !Array.isArray(value);
    return typeof value === t;
  });
}

function scalarErrors(s: Schema, v: unknown, path: string): string[] {
  const errors: string[] = [];
  const fail = (what: string) => errors.push(`${path}: ${what}`);
  if (s.enum && !(s.enum as unknown[]).includes(v)) fail("not in enum");
  if ("const" in s && s.const !== v) fail("not the const");
  if (typeof v === "number") {
    if (typeof s.minimum === "number" && v < s.minimum) fail(`below minimum ${s.minimum}`);
    if (typeof s.maximum === "number" && v > s.maximum) fail(`above maximum ${s.maximum}`);
    if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) fail(`not above ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) fail(`not below ${s.exclusiveMaximum}`);
  }
  if (typeof v === "string") {
    if (typeof s.minLength === "number" && v.length < s.minLength) fail("too short");
    if (typeof s.maxLength === "number" && v.length > s.maxLength) fail("too long");
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(v)) fail(`does not match ${s.pattern}`);
    if (s.format === "uri" && !URL.canParse(v)) fail("not a URI");
  }
  return errors;
}

function arrayErrors(s: Schema, v: unknown, path: string): string[] {
  if (!Array.isArray(v)) return [];
  const errors: string[] = [];
  if (typeof s.minItems === "number" && v.length < s.minItems) errors.push(`${path}: fewer than ${s.minItems} items`);
  if (typeof s.maxItems === "number" && v.length > s.maxItems) errors.push(`${path}: more than ${s.maxItems} items`);
  if (s.items)
    for (const [i, item] of v.entries()) errors.push(...validateJsonSchema(s.items as Schema, item, `${path}[${i}]`));
  return errors;
}

function objectErrors(s: Schema, v: unknown, path: string): string[] {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return [];
  const record = v as Record<string, unknown>;
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const errors = ((s.required ?? []) as string[])
    .filter((key) => !(key in record))
    .map((key) => `${path}: missing required ${key}`);
  for (const [key, child] of Object.entries(record)) {
    if (s.propertyNames) errors.push(...validateJsonSchema(s.propertyNames as Schema, key, `${path} key ${key}`));
    if (key in properties) errors.push(...validateJsonSchema(properties[key], child, `${path}.${key}`));
    else if (s.additionalProperties === false) errors.push(`${path}: unknown key ${key}`);
    else if (typeof s.additionalProperties === "object")
      errors.push(...validateJsonSchema(s.additionalProperties as Schema, child, `${path}.${key}`));
  }
  return errors;
}
