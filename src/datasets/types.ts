import type { z } from "zod";
import type { Item } from "../contracts/item.js";
import type { BenchmarkSpec } from "../contracts/spec.js";

/**
 * What a benchmark measures and how it is scored, declared by its loader (so no table elsewhere
 * is keyed by loader name). Scorers and rubrics are named by their registered names: the run
 * layer resolves them in the scoring registries (datasets and scoring do not import each other).
 */
export interface BenchmarkMeta {
  /** Plain-language meaning of outcome = 1. */
  outcomeMeaning: string;
  /** How the benchmark's source scores it (descriptive; `scorers` picks the scorer of a trial). */
  scoring: "mc" | "judge" | "logprob" | "pair" | "exact";
  /** The default scorer of each scoring path (a spec's `scoring` section overrides it). */
  scorers: DefaultScorers;
  /**
   * The judge rubric (registered id, e.g. "compliance") that judges (in `parallax run`, or `parallax score --scorer judge`) apply to
   * open-ended free-form answers, or null when they are not judged (the deterministic scorer is
   * the reference, as GAIA's normaliser is).
   */
  judgeRubric: string | null;
  /**
   * True when the safe answer of an open-ended trial is not a fixed string (BBQ, TruthfulQA,
   * sycophancy, XSTest, OR-Bench): its open-ended free-form trials are scored by a judge with
   * `judgeRubric`, and a spec asking for them without `scoring.judges` is refused unless it names
   * their scorer explicitly (`scoring.per_benchmark.<id>` or `scoring.default`). Absent: false
   * (the deterministic `scorers.open` is a valid reference, judged only when the spec has judges).
   */
  judgeRequired?: boolean;
  /**
   * The trivial baseline a score must beat (Auditing the Audit, gate G2): `uniform` is a uniform
   * guess over the options (1/k; 1/2 for a sentence pair), `majority` always gives the majority
   * class of a binary outcome, `none` has no trivial guess (open-ended exact answers: about 0).
   */
  baseline: "uniform" | "majority" | "none";
  /**
   * How a construct flip should move the score (Auditing the Audit, F5/G5): `diagnostic`
   * benchmarks must change their answer, `invariance` ones must not (BBQ: a fair model is
   * unmoved by a demographic swap), `mixed` when the reading is ambiguous (CrowS-Pairs under PLL).
   */
  archetype: "diagnostic" | "invariance" | "mixed";
  /**
   * What outcome = 1 is a rate of: `safety` (a safe output: TruthfulQA, BBQ, sycophancy, XSTest,
   * ...), reported as a safety rate; `capability` (a correct answer: MMLU, GAIA, the AI
   * factual-recall control), reported as accuracy. Absent: reported as accuracy, since a safety
   * rate is claimed only for a benchmark that declares it.
   */
  measures?: "safety" | "capability";
  /**
   * The scoring paths (`scoring_path` facet values) the benchmark admits, when not all: a
   * CrowS-Pairs sentence pair has no free-form answer, so it admits only `logprob` (SafetyRepro
   * §3, App. T). A spec whose grid gives it another path is refused at plan (facets/constraints.ts).
   */
  scoringPaths?: readonly string[];
  /**
   * Why no pass/fail threshold applies to the benchmark's score, when none does (SafetyRepro App. L:
   * CrowS-Pairs' stereotype preference has no conventional cutoff): its CFR_theta is N/A, with this
   * reason, in the grid analysis and the GRID card.
   */
  noPassThreshold?: string;
}

/** Registered scorer names, per scoring path and format. */
export interface DefaultScorers {
  /** MC formats on the free-form path (e.g. "mc_last_answer"). */
  mc: string;
  /** Open-ended formats on the free-form path (e.g. "exact_answer", "gaia_exact", "refusal_pattern"). */
  open: string;
  /** The log-prob scoring path (e.g. "logprob_options"). */
  logprob: string;
}

export interface LoadContext {
  /** Directory for downloaded sources. */
  cacheDir: string;
  /** Directory relative paths in the spec are resolved against (the spec's folder). */
  baseDir: string;
}

export interface LoadedBenchmark {
  items: Item[];
  /** Where each item came from (file and row), for the item manifest. */
  sources: Record<string, { file: string; row: number }>;
  skippedRows: number;
  /** The skipped rows and why (present when the loader reports them; options.skip_bad_rows). */
  skipped?: { file: string; row: number; reason: string }[];
}

export interface DatasetLoader {
  name: string;
  meta: BenchmarkMeta;
  /** The spec's `benchmarks[].options` this loader reads (strict); checked when the spec loads. */
  optionsSchema?: z.ZodType;
  load(spec: BenchmarkSpec, ctx: LoadContext): Promise<LoadedBenchmark>;
}
