/**
 * What every importer produces: the logs another framework wrote, read into one neutral shape
 * (a log: one model on one task; its samples: one per item and epoch, each with its scores).
 * `study.ts` turns these into an ordinary Parallax run, so `analyze` and `report` read it
 * unchanged. Raw score values are kept: the user's mapping decides the outcome.
 */
import type { StudyProvenance } from "../contracts/provenance.js";
import type { ChatMessage, GenerationParams } from "../contracts/provider.js";
import type { ParseStatus } from "../contracts/trial.js";
import type { ImportMapping } from "./mapping.js";
import type { ZipLimits } from "./zip.js";

/** One scorer's verdict on one sample, as the log wrote it. */
export interface ImportedScore {
  scorer: string;
  /** The value as written (C/I, 1/0, 0.73, true, "correct", ...). */
  value: unknown;
  answer: string | null;
  explanation: string | null;
  /** Where the value is in the sample (default `scores.<scorer>`), for messages. */
  field?: string;
  /** The values the scorer can give, when the format declares them; a number outside is refused. */
  range?: readonly [number, number];
  /** The parse status the source recorded (a Parallax table); else derived from the value. */
  parseStatus?: ParseStatus;
}

/** One sample at one epoch: a trial once imported. */
export interface ImportedSample {
  /** Where in the log it is (zip entry, JSON path or line), for messages. */
  entry: string;
  item: string;
  /** 1-based epoch / repeat / train trial. */
  attempt: number;
  input: string | null;
  target: string[];
  choices: string[] | null;
  /** The conversation as sent, when the log has it (the final answer excluded when it is `output`). */
  messages: ChatMessage[];
  output: string | null;
  scores: ImportedScore[];
  usage: { inputTokens: number; outputTokens: number } | null;
  latencyMs: number | null;
  error: string | null;
  /** Facet values a source carries itself (EEE import with its sidecar); the mapping wins over them. */
  condition?: Record<string, string>;
  /** The source labels the response as a simulated respondent's (a Parallax export of a simulated study). */
  simulated?: boolean;
}

/** One log: one model on one task. */
export interface ImportedLog {
  /** The file or directory read, as given. */
  file: string;
  framework: "inspect" | "lm-eval" | "helm" | "eee" | "parquet";
  model: string;
  benchmark: string;
  /** The log's header as JSON, for facet fields of the mapping (`field: eval.task_args.cot`). */
  header: unknown;
  generation: GenerationParams;
  /** The order in which the log lists its scorers (the first is the default run-time outcome). */
  scorers: string[];
  /** The samples, held in memory (empty when `stream` gives them). */
  samples: ImportedSample[];
  /**
   * A log too large to hold (an lm-eval samples file): its samples are read from the file again,
   * in the same order, each time `each` is called, and never held together. Its samples carry no
   * `condition` of their own.
   */
  stream?: StreamedSamples;
  /** How many samples the log's results say were evaluated, when they say it (lm-eval's n-samples). */
  declaredSamples?: number;
  /** What the reader noticed and the user should know (e.g. a log without samples). */
  notes: string[];
  /** False when the source's model column is already the study's (compared models are a facet there). */
  comparesModels?: false;
  /** Facet -> levels in the source study's order (the first is the default reference). */
  facetLevels?: Record<string, string[]>;
  /** The provenance a Parallax export carried (its EEE sidecar, its Parquet metadata), restored on the imported run. */
  provenance?: StudyProvenance;
}

/** A log's samples read from its file on demand. */
export interface StreamedSamples {
  /** How many samples the file held when the importer read it through. */
  count: number;
  /** Reads the file again, giving each sample in order; `visit` is awaited before the next. */
  each(visit: (sample: ImportedSample) => void | Promise<void>): Promise<void>;
}

/** An importer: one source format, registered by name (`parallax import NAME`). */
export interface Importer {
  name: string;
  description: string;
  /** What each argument is, for the command's help. */
  argument: string;
  /** Reads and checks every path; throws an InputError naming the file and entry on bad input. */
  read(paths: readonly string[], mapping: ImportMapping, options?: ReadOptions): Promise<ImportedLog[]>;
}

/** One file an importer looked at: read as (part of) a log, or skipped and why. */
export interface FileSeen {
  file: string;
  read: boolean;
  /** What it was read as, or why it was skipped. */
  why: string;
}

/** Settings of reading that are not part of the mapping. */
export interface ReadOptions {
  /** Told of every file read and every file skipped, in order. */
  onFile?: (seen: FileSeen) => void;
  /** HELM: the split whose instances are imported (default: test, else the run's only split). */
  split?: string;
  /** Caps on the inflated size of zipped logs (Inspect's `.eval`); default `DEFAULT_ZIP_LIMITS`. */
  zipLimits?: ZipLimits;
}
