/**
 * `parallax items BENCHMARK --source PATH`: the items of a benchmark as the model receives
 * them, for inspecting a loader, a format pair or a sample before spending on a run.
 */
import { resolve } from "node:path";
import type { Condition } from "../../contracts/condition.js";
import { type Item, OPTION_LETTERS } from "../../contracts/item.js";
import type { BenchmarkSpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { ANSWER_FORMATS } from "../../datasets/format.js";
import { renderTrialTask } from "../../facets/render.js";
import { datasetLoaders } from "../../datasets/registry.js";
import { sampleItems } from "../../datasets/sample.js";
import type { LoadedBenchmark } from "../../datasets/types.js";
import { loadSpecBenchmark } from "../../run/prepare/spec-benchmark.js";
import { renderTask } from "../../scaffolds/prompt.js";

export interface ItemsOptions {
  /** A published file, directory or URL for a loader named by BENCHMARK. */
  source?: string;
  /** A study spec: BENCHMARK is then one of its benchmark ids (inline and plugin loaders too). */
  spec?: string;
  format?: string;
  sample?: number;
  seed?: number;
  stratify?: string;
  balanced?: boolean;
  option?: string[];
  cacheDir?: string;
  json?: boolean;
}

export interface RenderedItem {
  id: string;
  format: string;
  /** The exact user message of the direct scaffold. */
  prompt: string;
  options: string[] | null;
  /** The gold letter (mc) or reference text (open-ended); null when the benchmark has none. */
  gold: string | null;
  gold_indices?: number[];
  option_dependent: boolean;
  source: { file: string; row: number } | null;
}

export async function itemsCommand(name: string, options: ItemsOptions): Promise<void> {
  if (options.format !== undefined && !(ANSWER_FORMATS as readonly string[]).includes(options.format)) {
    throw new InputError(`unknown format '${options.format}'; known: ${ANSWER_FORMATS.join(", ")}`);
  }
  const { loaded, sample } = options.spec
    ? await fromSpec(name, options.spec, options)
    : await fromSource(name, options);
  const items =
    sample === undefined
      ? loaded.items
      : sampleItems(loaded.items, {
          n: sample.n,
          seed: sample.seed,
          stratifyBy: sample.stratify_by,
          allocation: sample.allocation,
        });
  const rendered = items.map((item) => renderItem(item, options.format, loaded));
  for (const skip of loaded.skipped ?? [])
    process.stderr.write(`skipped ${skip.file}: row ${skip.row}: ${skip.reason}\n`);
  if (options.json) {
    process.stdout.write(rendered.map((r) => `${JSON.stringify(r)}\n`).join(""));
    return;
  }
  process.stdout.write(
    `${rendered.map(readable).join("\n")}\n${rendered.length} item(s) of ${loaded.items.length}, ${loaded.skippedRows} row(s) skipped\n`,
  );
}

type Sample = { n: number; seed: number; stratify_by?: string; allocation: "proportional" | "equal" };

/** The sample asked on the command line, if any. */
function commandLineSample(options: ItemsOptions): Sample | undefined {
  if (options.sample === undefined) return undefined;
  return {
    n: options.sample,
    seed: options.seed ?? 0,
    stratify_by: options.stratify,
    allocation: options.balanced ? "equal" : "proportional",
  };
}

/** BENCHMARK is a loader name and --source its file, directory or URL. */
async function fromSource(loaderName: string, options: ItemsOptions) {
  if (options.source === undefined) {
    throw new InputError(
      "items needs --source PATH (a loader's published file) or --spec SPEC (a spec's benchmark id)",
    );
  }
  const loader = datasetLoaders.get(loaderName);
  const spec: BenchmarkSpec = {
    id: loaderName,
    loader: loaderName,
    source: options.source,
    options: parseOptions(options.option ?? []),
  };
  const cwd = process.cwd();
  const loaded = await loader.load(spec, {
    baseDir: cwd,
    cacheDir: resolve(cwd, options.cacheDir ?? ".parallax-cache"),
  });
  return { loaded, sample: commandLineSample(options) };
}

/** BENCHMARK is a benchmark id of the spec, loaded as `run` loads it; the spec's sample unless --sample. */
async function fromSpec(benchmarkId: string, specPath: string, options: ItemsOptions) {
  if (options.source !== undefined || (options.option ?? []).length > 0) {
    throw new InputError("--source and --option name a loader's file; with --spec the benchmark's own are used");
  }
  const { benchmark, loaded } = await loadSpecBenchmark(specPath, benchmarkId, { cacheDir: options.cacheDir });
  const sample = commandLineSample(options) ?? benchmark.sample;
  return { loaded, sample };
}

export function renderItem(item: Item, format: string | undefined, loaded: LoadedBenchmark): RenderedItem {
  const condition: Condition = format === undefined ? {} : { format };
  const task = renderTrialTask(item, condition);
  const goldIndices = item.metadata.gold_indices;
  const gold =
    task.format === "mc"
      ? item.goldIndex === undefined
        ? null
        : OPTION_LETTERS[item.goldIndex]
      : (item.goldText ?? (item.goldIndex !== undefined ? (item.options?.[item.goldIndex] ?? null) : null));
  return {
    id: item.id,
    format: task.format,
    prompt: renderTask(task),
    options: task.options ?? null,
    gold,
    ...(Array.isArray(goldIndices) ? { gold_indices: goldIndices as number[] } : {}),
    option_dependent: item.metadata.option_dependent === true,
    source: loaded.sources[item.id] ?? null,
  };
}

/** Repeated --option key=value; values parse as JSON when they can (numbers, booleans, lists). */
export function parseOptions(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new InputError(`--option expects key=value, found '${pair}'`);
    const raw = pair.slice(eq + 1);
    try {
      out[pair.slice(0, eq)] = JSON.parse(raw);
    } catch {
      out[pair.slice(0, eq)] = raw;
    }
  }
  return out;
}

function readable(r: RenderedItem): string {
  const where = r.source ? ` (${r.source.file} row ${r.source.row})` : "";
  const flags = r.option_dependent ? " [option-dependent]" : "";
  return `── ${r.id} [${r.format}]${flags}${where}\n${r.prompt}\n   gold: ${r.gold ?? "(none)"}\n`;
}
