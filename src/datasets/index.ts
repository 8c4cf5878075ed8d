// Public surface of the datasets layer (parallax-eval/datasets): the loader registry, the
// loader contract and the helpers a loader author needs (docs/EXTENDING.md).
export { parseCsv, readCsvTable } from "./csv.js";
export type { CsvRecord, CsvRow, CsvTable } from "./csv.js";
export { datasetLoaders } from "./registry.js";
export { asRecord, ItemCollector, oneOf, parseJsonLine, RowError, str, textLines } from "./rows.js";
export { type Allocation, sampleItems } from "./sample.js";
export { seededPermutation, shuffleOptions, shuffleSeed } from "./shuffle.js";
export { pickFiles, pickOne, readText, resolveSource, stringList } from "./source.js";
export type { ResolvedSource, SourceFile } from "./source.js";
export type { BenchmarkMeta, DatasetLoader, DefaultScorers, LoadContext, LoadedBenchmark } from "./types.js";
