/**
 * The import mapping (a YAML file the user gives to `parallax import --mapping`): which facet
 * values each log's trials get, how score values map to outcomes, which scorer is the run-time
 * outcome, and renames of models and benchmarks. Validated like a spec: zod, with every problem
 * located at file:line:col and what was expected.
 */
import * as z from "zod";
import { InputError } from "../core/errors.js";
import { locatedSource, readSpecFile, type SpecProblem, zodProblems } from "../core/spec-loader.js";

const identifier = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:@/-]*$/, "an identifier of letters, digits and _ . : @ / -");

/** Where a facet's value comes from, per log: the log's own entry, else a header field, else the default. */
const FacetSourceSchema = z
  .object({
    logs: z
      .record(z.string().min(1), z.string().min(1))
      .optional()
      .describe("Log file name (or path as given) -> value"),
    field: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, "a dotted path such as eval.task_args.cot")
      .optional()
      .describe("Dotted path into the log's header whose value is the facet value"),
    default: z.string().min(1).optional().describe("Value when neither `logs` nor `field` gives one"),
  })
  .strict()
  .refine((f) => f.logs !== undefined || f.field !== undefined || f.default !== undefined, {
    message: "give at least one of logs, field or default",
  });

const RESERVED_FACETS = new Set([
  "subject",
  "model",
  "benchmark",
  "outcome",
  "cluster",
  "item",
  "attempt",
  "scorer",
  "status",
]);

export const ImportMappingSchema = z
  .object({
    study: identifier.optional().describe("Study name (default: import-<format>)"),
    facets: z
      .record(
        z
          .string()
          .regex(/^[a-z][a-z0-9_]*$/, "a facet name in snake_case")
          .refine((name) => !RESERVED_FACETS.has(name), "a facet name that is not a reserved column"),
        FacetSourceSchema,
      )
      .default({}),
    outcomes: z
      .object({
        values: z
          .record(z.string().min(1), z.union([z.literal(0), z.literal(1), z.null()]))
          .default({})
          .describe("Score value (as text) -> outcome 1, 0 or null (unscored); added to the defaults"),
        threshold: z
          .number()
          .optional()
          .describe("A numeric score >= threshold is 1, below is 0 (default: only 0 and 1 map)"),
      })
      .strict()
      .default({ values: {} }),
    scorer: z.string().min(1).optional().describe("The scorer whose outcome is the run-time outcome"),
    compare: z
      .enum(["models", "none"])
      .optional()
      .describe(
        "models: the model becomes the facet `subject` (the comparison Parallax pairs on shared items); default: models when the mapping declares no facets and the logs hold two or more models",
      ),
    models: z.record(z.string().min(1), identifier).default({}).describe("Model name in the log -> model id"),
    benchmarks: z.record(z.string().min(1), identifier).default({}).describe("Task name in the log -> benchmark id"),
    benchmark_audit: z
      .record(
        identifier,
        z
          .object({
            archetype: z.enum(["diagnostic", "invariance", "mixed"]).optional(),
            baseline: z.enum(["uniform", "majority", "none"]).optional(),
          })
          .strict(),
      )
      .default({})
      .describe(
        "Benchmark id -> its perturbation-audit archetype (diagnostic, invariance, mixed: G5/F5) and trivial " +
          "baseline (uniform, majority, none: G2), written into the imported spec's benchmark entry",
      ),
    metrics: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("HELM / lm-eval: the per-instance metrics imported as scores, the first being the run-time outcome"),
  })
  .strict();

export type ImportMapping = z.infer<typeof ImportMappingSchema>;
export type FacetSource = z.infer<typeof FacetSourceSchema>;

/** The mapping used without --mapping. */
export function defaultMapping(): ImportMapping {
  return ImportMappingSchema.parse({});
}

/** Reads and validates a mapping file; every problem at file:line:col. */
export function loadMapping(path: string): ImportMapping {
  const file = readSpecFile(path);
  if (file.text.trim() === "") return defaultMapping();
  let source: ReturnType<typeof locatedSource>;
  try {
    source = locatedSource(file);
  } catch (error) {
    throw new InputError(`invalid import mapping ${path}: ${(error as Error).message.split("\n").slice(1).join("; ")}`);
  }
  const parsed = ImportMappingSchema.safeParse(source.data);
  if (parsed.success) return parsed.data;
  throw mappingError(path, zodProblems(parsed.error.issues, [], source, ImportMappingSchema));
}

function mappingError(path: string, problems: SpecProblem[]): InputError {
  const lines = problems.map((p) => `${path}:${p.line}:${p.col}: ${p.message}`);
  const count = lines.length === 1 ? "1 problem" : `${lines.length} problems`;
  return new InputError([`invalid import mapping ${path} (${count}):`, ...lines].join("\n"));
}
