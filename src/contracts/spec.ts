/**
 * The study spec: the YAML a user writes, as zod schemas. The JSON Schema shipped in
 * schema/spec.schema.json is generated from these same types (npm run schema).
 */
import * as z from "zod";
import { lazySchema } from "./lazy-schema.js";
import { AnalysisPlanSpecSchema } from "./analysis.js";
import { STUDY_KINDS } from "./study-kind.js";
import { FAILURE_BUCKETS } from "./failure.js";
import { MAX_CONCURRENCY } from "./limits.js";

const identifier = lazySchema(() =>
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:@/-]*$/, "an identifier of letters, digits and _ . : @ / -"),
);

/** A name that becomes one folder name (`runs/<study>`): no "/", "\\" or "..", nothing hidden. */
const pathSegment = lazySchema(() =>
  z
    .string()
    .max(128)
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]*$/, "a single folder name of letters, digits and _ . @ - (no / or ..)"),
);

const envVarName = lazySchema(() =>
  z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name (A-Z, 0-9, _)"),
);

export const GenerationParamsSchema = lazySchema(() =>
  z
    .object({
      temperature: z.number().min(0).max(2).optional(),
      top_p: z.number().gt(0).max(1).optional(),
      top_k: z.number().int().positive().optional(),
      max_tokens: z.number().int().positive().optional(),
      seed: z.number().int().optional(),
      stop: z.array(z.string()).optional(),
    })
    .strict(),
);

export const PriceSchema = lazySchema(() =>
  z
    .object({
      input_per_mtok: z.number().nonnegative(),
      output_per_mtok: z.number().nonnegative(),
    })
    .strict(),
);

export const RateLimitSchema = lazySchema(() =>
  z
    .object({
      rpm: z.number().positive().optional(),
      tpm: z.number().positive().optional(),
      concurrency: z.number().int().positive().optional(),
    })
    .strict(),
);

export const ModelSpecSchema = lazySchema(() =>
  z
    .object({
      id: identifier.describe("Label of this model in tables and reports"),
      provider: z.string().min(1).describe("Registered provider: sim, llama, openai, anthropic, google"),
      model: z.string().min(1).describe("The provider's model identifier or GGUF path"),
      params: GenerationParamsSchema.default({}),
      // http(s) only: a bare "localhost:8000" parses as a URL with scheme "localhost:".
      base_url: z.url({ protocol: /^https?$/, error: "an http(s) URL such as http://localhost:8000/v1" }).optional(),
      api_key_env: z
        .union([envVarName, z.array(envVarName).min(1)])
        .optional()
        .describe("Environment variable(s) holding API keys; several rotate"),
      price: PriceSchema.optional(),
      rate_limit: RateLimitSchema.optional(),
      drop_params: z.array(z.enum(["temperature", "top_p", "top_k", "max_tokens", "seed", "stop"])).optional(),
      options: z.record(z.string(), z.unknown()).optional().describe("Provider-specific options"),
      quantizations: z
        .record(z.string().min(1), z.string().min(1))
        .optional()
        .describe(
          "Variants of this model for the `quantization` facet: value name -> the variant's provider model id or GGUF path (the model id stays the same)",
        ),
    })
    .strict(),
);

export const SampleSchema = lazySchema(() =>
  z
    .object({
      n: z.number().int().positive(),
      seed: z.number().int().default(0),
      stratify_by: z.string().optional().describe("Item metadata field whose values are the strata"),
      allocation: z
        .enum(["proportional", "equal"])
        .default("proportional")
        .describe("Stratum sizes: proportional to the strata, or equal (balanced, e.g. BBQ category x ambiguity)"),
      allow_smaller: z
        .boolean()
        .optional()
        .describe("Take every item, with a warning, when the benchmark has fewer than n (default: an error)"),
    })
    .strict(),
);

export const InlineItemSchema = lazySchema(() =>
  z
    .object({
      id: identifier,
      stem: z.string().min(1),
      options: z.array(z.string().min(1)).min(2).optional(),
      gold_index: z.number().int().nonnegative().optional(),
      gold_text: z.string().optional(),
      metadata: z.record(z.string(), z.unknown()).optional(),
    })
    .strict()
    .refine(
      (item) => item.gold_index === undefined || (item.options !== undefined && item.gold_index < item.options.length),
      {
        message: "gold_index must point at one of the options",
        path: ["gold_index"],
      },
    ),
);

/** Where a benchmark's few-shot exemplars come from (the `few_shot` facet); disjoint from the evaluated items. */
export const ExemplarPoolSchema = lazySchema(() =>
  z
    .object({
      source: z.string().optional().describe("Path or URL of the exemplar file(s), read by `loader`"),
      loader: z.string().min(1).optional().describe("Dataset loader of `source` (default: the benchmark's own)"),
      options: z.record(z.string(), z.unknown()).optional(),
      items: z.array(InlineItemSchema).min(1).optional().describe("Inline exemplars"),
      exclude_evaluated: z
        .boolean()
        .default(false)
        .describe(
          "Drop the evaluated items from the pool (a pool read from the benchmark's own file); else an overlap is an error",
        ),
    })
    .strict()
    .refine((pool) => pool.source !== undefined || pool.items !== undefined, {
      message: "an exemplar pool needs a source file or inline items",
    }),
);

export const BenchmarkSpecSchema = lazySchema(() =>
  z
    .object({
      id: identifier,
      loader: z.string().min(1).describe("Registered dataset loader, or 'inline'"),
      source: z.string().optional().describe("Path or URL of the published file(s)"),
      items: z.array(InlineItemSchema).min(1).optional(),
      sample: SampleSchema.optional(),
      options: z.record(z.string(), z.unknown()).optional(),
      exemplars: ExemplarPoolSchema.optional().describe("The few-shot exemplar pool (the `few_shot` facet)"),
      archetype: z
        .enum(["diagnostic", "invariance", "mixed"])
        .optional()
        .describe(
          "The perturbation audit's archetype (G5/F5): diagnostic (a construct flip must change the answer), " +
            "invariance (it must not: BBQ-like, ineligible under F5) or mixed; default: the loader's",
        ),
      baseline: z
        .enum(["uniform", "majority", "none"])
        .optional()
        .describe(
          "The trivial baseline of the audit's G2: uniform (1/k over the options), majority (the most common " +
            "gold class) or none (0); default: the loader's",
        ),
    })
    .strict()
    .refine((b) => b.loader !== "inline" || b.items !== undefined, {
      message: "an inline benchmark needs items",
      path: ["items"],
    })
    .refine((b) => b.loader === "inline" || b.source !== undefined, {
      message: "a benchmark with a loader needs a source path or URL",
      path: ["source"],
    }),
);

/** A facet value: a bare name/number/flag, or a named value with parameters. */
export const FacetValueSchema = lazySchema(() =>
  z.union([
    z.string().min(1),
    z.number(),
    z.boolean(),
    z
      .object({ name: z.string().min(1) })
      // A list of integers: the seeds of a stochastic decoding setting (`seeds: [1, 2, 3, 4, 5]`).
      .catchall(z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.number().int())])),
  ]),
);

export const ConditionsSchema = lazySchema(() =>
  z
    .object({
      facets: z
        .record(z.string().regex(/^[a-z][a-z0-9_]*$/, "a facet name in snake_case"), z.array(FacetValueSchema).min(1))
        .refine((facets) => Object.keys(facets).length > 0, "at least one facet"),
      exclude: z
        .array(z.record(z.string(), z.union([FacetValueSchema, z.array(FacetValueSchema)])))
        .default([])
        .describe(
          "Validity constraints: a condition matching every key of an entry is excluded (the key `benchmark` matches a benchmark id)",
        ),
    })
    .strict(),
);

/** What a sequential run may stop for (docs/ANALYSIS.md, "Sequential runs"). */
export const SEQUENTIAL_STOPS = ["harm", "benefit", "equivalence", "futility"] as const;

/**
 * Interim looks of a sequential run: whole items (every model, condition and attempt) in a
 * seeded random order, analysed at each information fraction against alpha-spending boundaries.
 */
export const SequentialSchema = lazySchema(() =>
  z
    .object({
      looks: z
        .array(z.number().gt(0).max(1))
        .min(1)
        .describe("Information fractions of the looks (share of each benchmark's items), increasing, the last 1"),
      spending: z
        .enum(["obrien-fleming", "pocock"])
        .default("obrien-fleming")
        .describe("Lan-DeMets alpha-spending function: O'Brien-Fleming-type or Pocock-type"),
      alpha: z.number().gt(0).lt(1).default(0.05).describe("Two-sided alpha of the harm/benefit boundaries"),
      stop_on: z
        .array(z.enum(SEQUENTIAL_STOPS))
        .min(1)
        .default(["harm", "equivalence"])
        .describe(
          "What stops a contrast: harm/benefit (its boundary crossed down/up), equivalence (repeated CI inside the TOST margin), futility (repeated CI excludes the minimum effect both ways); the run stops when every contrast has",
        ),
      seed: z.number().int().optional().describe("Seed of the item order (default: the study's seed)"),
    })
    .strict()
    .superRefine((sequential, ctx) => {
      const { looks } = sequential;
      looks.forEach((t, k) => {
        if (k > 0 && !(t > looks[k - 1]))
          ctx.addIssue({
            code: "custom",
            message: `looks must increase (${looks[k - 1]} then ${t})`,
            path: ["looks", k],
          });
      });
      if (looks[looks.length - 1] !== 1)
        ctx.addIssue({ code: "custom", message: "the last look must be at 1 (every item)", path: ["looks"] });
    }),
);

/** Default of execution.max_trials: a design above it is refused (docs/RELIABILITY.md). */
export const DEFAULT_MAX_TRIALS = 5_000_000;

/** Above this many trials `plan` warns (and `run` says so while it plans them). */
export const LARGE_DESIGN_TRIALS = 1_000_000;

export const ExecutionSchema = lazySchema(() =>
  z
    .object({
      concurrency: z.number().int().positive().max(MAX_CONCURRENCY).default(8),
      max_trials: z
        .number()
        .int()
        .positive()
        .default(DEFAULT_MAX_TRIALS)
        .describe(
          "Most trials (models x conditions x items x attempts) plan and run accept; a larger design is refused before anything is written",
        ),
      max_retries: z.number().int().nonnegative().max(20).default(4),
      timeout_s: z.number().positive().default(120),
      backoff_base_ms: z.number().nonnegative().default(500),
      backoff_max_ms: z.number().positive().default(60_000),
      cache: z.boolean().default(true),
      mode: z
        .enum(["sync", "batch"])
        .optional()
        .describe(
          "sync (default), or batch: calls of providers with a batch API go through it, at the batch price (docs/SCALE.md)",
        ),
      batch: z
        .object({
          max_requests: z
            .number()
            .int()
            .positive()
            .max(50_000)
            .default(1000)
            .describe("Requests per batch (and trials in flight)"),
          flush_after_ms: z
            .number()
            .int()
            .nonnegative()
            .default(500)
            .describe("A batch is submitted once no call joined it for this long"),
          poll_initial_ms: z.number().int().positive().default(15_000),
          poll_max_ms: z.number().int().positive().default(300_000),
        })
        .strict()
        .optional(),
      sequential: z
        .lazy(() => SequentialSchema)
        .optional()
        .describe("Interim looks with alpha-spending boundaries; the run stops once its contrasts are decided"),
    })
    .strict(),
);

export const BudgetSchema = lazySchema(() =>
  z
    .object({
      max_cost_usd: z.number().positive().optional(),
      max_calls: z.number().int().positive().optional(),
    })
    .strict(),
);

/** A judge: a model spec of its own, or the id of a model in `models` (it never judges its own outputs). */
export const JudgeRefSchema = lazySchema(() => z.union([identifier, ModelSpecSchema]));

/** Scoring choices (docs/SCORING.md): scorers per benchmark, log-prob options, judges, blinding. */
export const ScoringSchema = lazySchema(() =>
  z
    .object({
      default: z.string().min(1).optional().describe("Scorer for every benchmark, replacing the per-format default"),
      per_benchmark: z.record(z.string(), z.string().min(1)).optional().describe("Scorer by benchmark id"),
      logprob_basis: z
        .enum(["text", "letter"])
        .default("text")
        .describe("Log-prob argmax over option texts or letters"),
      length_normalise: z.boolean().default(false).describe("Log-prob: divide option log-likelihoods by token count"),
      judges: z
        .array(JudgeRefSchema)
        .default([])
        .describe("Judges in order of preference; the first that is not the subject judges"),
      validation: z
        .object({
          judge: JudgeRefSchema.optional().describe("Default: the next judge in `judges` that is not the subject"),
          fraction: z.number().gt(0).max(1).default(0.1),
        })
        .strict()
        .optional(),
      blinding: z
        .object({
          guess_fraction: z
            .number()
            .min(0)
            .max(1)
            .default(0.1)
            .describe("Stratified share asked to guess the condition"),
          redact: z
            .array(z.string().min(1))
            .default([])
            .describe("Extra strings removed from responses before judging"),
        })
        .strict()
        .default({ guess_fraction: 0.1, redact: [] }),
      seed: z.number().int().default(0).describe("Seed of the validation and guessing subsamples"),
      rubrics: z
        .record(z.string(), z.record(z.string(), z.unknown()))
        .optional()
        .describe("Options of judge rubrics by rubric id, checked against each rubric's schema (docs/SCORING.md)"),
    })
    .strict(),
);

/**
 * Per-trial limits of agent trials (GAIA study section 3.5-3.6; src/run/execute/agent-limits.ts):
 * a trial that reaches one stops with what it submitted (none: wrong), and the limit is flagged.
 */
export const AgentLimitsSchema = lazySchema(() =>
  z
    .object({
      tokens: z.number().int().positive().optional().describe("Input + output tokens over the trial's calls"),
      wall_seconds: z.number().positive().optional().describe("Wall-clock seconds from the trial's start"),
      messages: z.number().int().positive().optional().describe("Model replies plus tool results"),
      cost_usd: z.number().positive().optional().describe("Dollars over the trial's calls"),
      context_tokens: z
        .number()
        .int()
        .positive()
        .optional()
        .describe("A call's input above this is truncated, oldest tool traces first (section 3.6)"),
    })
    .strict(),
);

/** Limits of each sandboxed tool call (docs/TOOLS.md); the per-trial limits (tokens, time, cost) are the scaffolds'. */
export const SandboxLimitsSchema = lazySchema(() =>
  z
    .object({
      cpu_seconds: z.number().positive().max(3600).default(30).describe("CPU seconds per tool call (RLIMIT_CPU)"),
      wall_seconds: z
        .number()
        .positive()
        .max(3600)
        .default(60)
        .describe("Wall seconds per tool call; then it is killed"),
      output_bytes: z.number().int().positive().default(16_384).describe("Bytes of stdout+stderr kept per call"),
      max_processes: z.number().int().min(2).max(4096).default(64).describe("Processes a call may have at once"),
      memory_mb: z
        .number()
        .int()
        .min(64)
        .max(65_536)
        .default(2048)
        .describe("Address space of each process of a call, MiB (RLIMIT_AS)"),
      disk_mb: z
        .number()
        .int()
        .min(1)
        .max(65_536)
        .default(512)
        .describe("Size of the trial's work dir, MiB (a tmpfs as root), and of any one file (RLIMIT_FSIZE)"),
      tmp_mb: z.number().int().min(1).max(65_536).default(256).describe("Size of a call's /tmp and of /dev/shm, MiB"),
    })
    .strict(),
);

/** The agent tools (docs/TOOLS.md): which are offered, the sandbox limits, the web backend. */
export const AgentsSchema = lazySchema(() =>
  z
    .object({
      tools: z
        .array(z.string().min(1))
        .min(1)
        .optional()
        .describe("Registered tools offered to agent scaffolds (default: each scaffold's own set)"),
      sandbox: SandboxLimitsSchema.default(() => SandboxLimitsSchema.parse({})),
      web: z
        .object({ backend: z.string().min(1).describe("Registered web backend: offline (a local folder) or brave") })
        .catchall(z.unknown())
        .optional()
        .describe("Backend of web_search/web_fetch and its settings, e.g. {backend: offline, folder: docs/}"),
    })
    .strict(),
);

/** A study family's role: its analysis reports the primary first; a control is analysed as a control, never pooled. */
export const FAMILY_ROLES = ["primary", "secondary", "control"] as const;
export type FamilyRole = (typeof FAMILY_ROLES)[number];

const familyName = lazySchema(() => z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, "a family name"));

/** A family's sample of one benchmark: drawn from the benchmark's items (its own `sample`, else every item). */
export const FAMILY_SAMPLE_KEYS = [
  "n",
  "seed",
  "stratify_by",
  "allocation",
  "where",
  "within",
  "disjoint_from",
] as const;
export const FamilySampleSchema = lazySchema(() =>
  z
    .object({
      n: z
        .number()
        .int()
        .positive()
        .optional()
        .describe("Items to draw (default: every item left after `where`, `within` and `disjoint_from`)"),
      seed: z.number().int().default(0),
      stratify_by: z.string().optional().describe("Item metadata field whose values are the strata"),
      allocation: z.enum(["proportional", "equal"]).default("proportional"),
      where: z
        .record(
          z.string(),
          z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()]))]),
        )
        .optional()
        .describe("Only items whose metadata field has this value (or one of these values), e.g. {level: 1}"),
      within: familyName
        .optional()
        .describe("Draw from this family's sample of the benchmark (a subsample of its items), not the benchmark's"),
      disjoint_from: z
        .array(familyName)
        .min(1)
        .optional()
        .describe("Families whose items of this benchmark the sample must not contain"),
    })
    .strict(),
);

/**
 * A named sub-design (ScaffoldSafety's primary study, its CoT, option-preserving and invocation
 * studies, the AI factual-recall control): its models, benchmarks, sample and conditions. A trial
 * is the same trial in every family that includes it, so shared trials run once.
 */
export const StudyFamilySchema = lazySchema(() =>
  z
    .object({
      role: z.enum(FAMILY_ROLES).default("secondary"),
      description: z.string().optional(),
      models: z.array(identifier).min(1).optional().describe("Model ids of the family (default: every model)"),
      benchmarks: z
        .array(identifier)
        .min(1)
        .optional()
        .describe("Benchmark ids of the family (default: every benchmark)"),
      conditions: z
        .record(z.string().regex(/^[a-z][a-z0-9_]*$/, "a facet name in snake_case"), z.array(FacetValueSchema).min(1))
        .optional()
        .describe(
          "Facet levels of the family (a subset of conditions.facets; a bare name takes every parameterisation); facets not named keep every level",
        ),
      exclude: z
        .array(z.record(z.string(), z.union([FacetValueSchema, z.array(FacetValueSchema)])))
        .optional()
        .describe(
          "Conditions the family leaves out, as conditions.exclude (the key `benchmark` limits an entry to those benchmarks)",
        ),
      sample: z
        .union([FamilySampleSchema, z.record(identifier, FamilySampleSchema)])
        .optional()
        .describe("One sample for each of the family's benchmarks, or a sample per benchmark id (default: every item)"),
    })
    .strict(),
);

export const StudySpecSchema = lazySchema(() =>
  z
    .object({
      study: pathSegment.describe("Study name; also the folder runs/<study> a run writes to without --out"),
      description: z.string().optional(),
      kind: z
        .enum(STUDY_KINDS)
        .optional()
        .describe("The study's kind (default: from its design): comparison, grid, audit or agents"),
      kinds: z
        .array(z.enum(STUDY_KINDS))
        .min(1)
        .optional()
        .describe("The study's kinds when it is several (default: from its design)"),
      plugins: z
        .array(z.string().min(1))
        .optional()
        .describe(
          "Modules that register loaders, scaffolds, scorers or providers (docs/EXTENDING.md): paths relative to the spec file, or package names; each exports register(api)",
        ),
      seed: z.number().int().default(0),
      models: z.array(ModelSpecSchema).min(1),
      benchmarks: z.array(BenchmarkSpecSchema).min(1),
      conditions: ConditionsSchema,
      attempts: z.number().int().positive().max(100).default(1),
      execution: ExecutionSchema.default(() => ExecutionSchema.parse({})),
      budget: BudgetSchema.default({}),
      prices: z.record(z.string(), PriceSchema).optional().describe("Price overrides by provider model id"),
      scoring: ScoringSchema.optional().describe("Scorers, judges and blinding (docs/SCORING.md)"),
      agents: z
        .lazy(() => AgentsSchema)
        .optional()
        .describe("Agent tools, sandbox limits and web backend (docs/TOOLS.md)"),
      // The optional sections that most specs lack are built when a spec has them (or the JSON
      // Schema is written), not whenever a spec is checked.
      families: z
        .lazy(() => z.record(familyName, StudyFamilySchema))
        .optional()
        .describe(
          "Named sub-designs (primary, secondary, control), each with its models, benchmarks, sample and conditions; trials shared by families run once (docs/ANALYSIS.md)",
        ),
      analysis: z
        .lazy(() => AnalysisPlanSpecSchema)
        .optional()
        .describe("Analysis plan (docs/ANALYSIS.md); defaults apply when absent"),
      agent_limits: z
        .lazy(() => AgentLimitsSchema)
        .optional()
        .describe("Per-trial limits of agent (tool) trials"),
    })
    .strict()
    .superRefine(
      (spec, ctx) => {
        reportDuplicates(spec.models, ["models"], "model id", ctx);
        reportDuplicates(spec.benchmarks, ["benchmarks"], "benchmark id", ctx);
        if (spec.kind !== undefined && spec.kinds !== undefined)
          ctx.addIssue({ code: "custom", message: "declare either kind or kinds, not both", path: ["kinds"] });
      },
      // Also run when other parts of the spec are invalid, so a user sees every problem in one pass;
      // the entries may then be unvalidated, hence the defensive reads in reportDuplicates.
      { when: (payload) => hasEntryLists(payload.value) },
    ),
);

function hasEntryLists(value: unknown): boolean {
  const spec = value as { models?: unknown; benchmarks?: unknown } | null;
  return typeof spec === "object" && spec !== null && Array.isArray(spec.models) && Array.isArray(spec.benchmarks);
}

function reportDuplicates(entries: unknown[], path: (string | number)[], what: string, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const id = typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined;
    if (typeof id !== "string") return;
    if (seen.has(id))
      ctx.addIssue({ code: "custom", message: `duplicate ${what} '${id}'`, path: [...path, index, "id"] });
    seen.add(id);
  });
}

export type StudySpec = z.infer<typeof StudySpecSchema>;
export type ModelSpec = z.infer<typeof ModelSpecSchema>;
export type BenchmarkSpec = z.infer<typeof BenchmarkSpecSchema>;
export type InlineItem = z.infer<typeof InlineItemSchema>;
export type FacetValue = z.infer<typeof FacetValueSchema>;
export type ExecutionSpec = z.infer<typeof ExecutionSchema>;
export type SequentialSpec = z.infer<typeof SequentialSchema>;
export type Price = z.infer<typeof PriceSchema>;
export type RateLimit = z.infer<typeof RateLimitSchema>;
export type ScoringSpec = z.infer<typeof ScoringSchema>;
export type JudgeRef = z.infer<typeof JudgeRefSchema>;
export type SpecGenerationParams = z.infer<typeof GenerationParamsSchema>;
export type AgentsSpec = z.infer<typeof AgentsSchema>;
export type StudyFamilySpec = z.infer<typeof StudyFamilySchema>;
export type FamilySampleSpec = z.infer<typeof FamilySampleSchema>;

export { FAILURE_BUCKETS };
