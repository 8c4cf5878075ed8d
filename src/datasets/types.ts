import type { z } from "zod";
import type { Item } from "../contracts/item.js";
import type { BenchmarkSpec } from "../contracts/spec.js";

/** What a correct/safe outcome means for a benchmark and how it is scored. */
export interface BenchmarkMeta {
  /** Plain-language meaning of outcome = 1. */
  outcomeMeaning: string;
  scoring: "mc" | "judge" | "logprob" | "pair" | "exact";
  /** Trivial baseline: uniform over options, or the majority class. */
  baseline: "uniform" | "majority";
  archetype: "diagnostic" | "invariance" | "mixed";
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
