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
import { renderTask } from "../../scaffolds/prompt.js";

export interface ItemsOptions {
  source: string;
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

export async function itemsCommand(loaderName: string, options: ItemsOptions): Promise<void> {
  const loader = datasetLoaders.get(loaderName);
  if (options.format !== undefined && !(ANSWER_FORMATS as readonly string[]).includes(options.format)) {
    throw new InputError(`unknown format '${options.format}'; known: ${ANSWER_FORMATS.join(", ")}`);
  }
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
  const items =
    options.sample === undefined
      ? loaded.items
      : sampleItems(
          loaded.items,
          options.sample,
          options.seed ?? 0,
          options.stratify,
          options.balanced ? "equal" : "proportional",
        );
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
