/**
 * Shared reading of TruthfulQA's data/mc_task.json for the MC1 and MC2 loaders. Each
 * `*_targets` is an object mapping answer text to 1 (true) or 0 (false) whose key order is
 * the option order, with the true answers first. Options are shuffled per item (seeded),
 * otherwise a first-option bias inflates the score (F3b, Auditing the Audit §2).
 */
import type { Item } from "../../contracts/item.js";
import type { BenchmarkSpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { readCsvTable } from "../csv.js";
import { annotateFormatPair } from "../format.js";
import { asRecord, ItemCollector, RowError, str } from "../rows.js";
import { pickOne, type ResolvedSource, readText, resolveSource } from "../source.js";
import { shuffleOptions, shuffleSeed } from "../shuffle.js";
import type { LoadContext, LoadedBenchmark } from "../types.js";
import { jsonParseProblem, shown, shownJson } from "../quote.js";

export type McVariant = "mc1" | "mc2";

const MC_CANDIDATES = ["data/mc_task.json", "mc_task.json", "TruthfulQA/data/mc_task.json"];

export async function loadTruthfulMc(
  spec: BenchmarkSpec,
  ctx: LoadContext,
  variant: McVariant,
): Promise<LoadedBenchmark> {
  const src = await resolveSource(spec, ctx);
  const file = pickOne(src, spec, MC_CANDIDATES);
  const records = parseArray(readText(file), file.display);
  const categories = csvCategories(src);
  const seed = shuffleSeed(spec);
  const collector = ItemCollector.forSpec(spec);
  records.forEach((raw, index) => {
    collector.row(file.display, index + 1, () => {
      const item = mcItem(raw, index + 1, { variant, benchmark: spec.id, seed });
      Object.assign(item.metadata, categories.get(item.stem.trim()) ?? {});
      return annotateFormatPair(item);
    });
  });
  return collector.result();
}

function parseArray(text: string, file: string): unknown[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${file}: malformed JSON: ${jsonParseProblem(error)}`);
  }
  if (!Array.isArray(data)) throw new InputError(`${file}: expected a JSON array of questions`);
  return data;
}

/**
 * The options in file order with their truth values. JSON.parse keeps key insertion order
 * except for integer-like keys, which it moves to the front in numeric order; such a key
 * would silently reorder the options, so it is rejected instead.
 */
export function orderedTargets(raw: unknown, key: string): { text: string; isTrue: boolean }[] {
  const targets = asRecord(raw, key);
  return Object.entries(targets).map(([text, value]) => {
    if (/^(?:0|[1-9]\d*)$/.test(text))
      throw new RowError(`${key} has an integer-like option ${shown(text)} whose order JSON.parse does not keep`);
    if (value !== 0 && value !== 1)
      throw new RowError(`${key}[${shown(text)}] is ${shownJson(value)}, expected 0 or 1`);
    return { text, isTrue: value === 1 };
  });
}

function mcItem(
  raw: unknown,
  row: number,
  /** The variant read, the benchmark's id, and the seed the options are shuffled with (null: file order). */
  loading: { variant: McVariant; benchmark: string; seed: number | null },
): Item {
  const { variant, benchmark, seed } = loading;
  const record = asRecord(raw);
  const question = str(record, "question");
  const targets = orderedTargets(record[`${variant}_targets`] ?? missing(`${variant}_targets`), `${variant}_targets`);
  const trueOriginal = targets.flatMap((t, i) => (t.isTrue ? [i] : []));
  if (targets.length < 2)
    throw new RowError(`${variant}_targets has ${targets.length} option(s); at least 2 are needed`);
  if (variant === "mc1" && trueOriginal.length !== 1)
    throw new RowError(`mc1_targets has ${trueOriginal.length} true options, expected exactly 1`);
  if (trueOriginal.length === 0) throw new RowError(`${variant}_targets has no true option`);
  const id = `${variant}-${row}`;
  const shuffled = shuffleOptions(
    targets.map((t) => t.text),
    seed,
    id,
  );
  const goldIndices = trueOriginal.map(shuffled.shownIndex).sort((a, b) => a - b);
  const metadata: Record<string, unknown> = {
    n_options: targets.length,
    original_gold_index: trueOriginal[0],
    option_permutation: shuffled.permutation,
    shuffle_seed: seed,
  };
  if (variant === "mc2") {
    // MC2 has several true options: all of them are gold (see the loader's meta for the convention).
    metadata.gold_indices = goldIndices;
    metadata.n_true = goldIndices.length;
  }
  return { id, benchmark, stem: question, options: shuffled.options, goldIndex: goldIndices[0], metadata };
}

function missing(key: string): never {
  throw new RowError(`missing field '${key}'`);
}

/** Type and category joined from TruthfulQA.csv on the trimmed question, when the source directory has it. */
function csvCategories(src: ResolvedSource): Map<string, { type: string; category: string }> {
  const csv = src.isDir
    ? src.files.find((f) => f.rel === "TruthfulQA.csv" || f.rel === "TruthfulQA/TruthfulQA.csv")
    : undefined;
  if (!csv) return new Map();
  const table = readCsvTable(readText(csv), csv.display, ["Type", "Category", "Question"]);
  // The CSV has one question with a trailing space that mc_task.json lacks: join on trimmed text.
  return new Map(
    table.rows.map((r) => [r.values.Question.trim(), { type: r.values.Type, category: r.values.Category }]),
  );
}
