/**
 * MMLU (Hendrycks et al., 2021): headerless CSVs `<subject>_<split>.csv` (question, A, B,
 * C, D, answer letter) in dev/, val/ and test/. The subject is only in the file name.
 * Fields hold newlines and files mix CRLF and LF, hence the real CSV parser. A directory
 * source loads options.split (default "test"; "dev", "val", "test" or "all"), optionally
 * narrowed to options.subjects.
 */
import { lazySchema } from "../../contracts/lazy-schema.js";
import { basename } from "node:path";
import type { BenchmarkSpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import * as z from "zod";
import { parseCsv } from "../csv.js";
import { annotateFormatPair } from "../format.js";
import { loaderOptions } from "../options.js";
import { ItemCollector, RowError } from "../rows.js";
import { pickFiles, readText, resolveSource, stringList } from "../source.js";
import type { DatasetLoader } from "../types.js";
import { shown } from "../quote.js";

const SPLITS = ["dev", "val", "test"] as const;
const FILE_NAME = /^(.+)_(dev|val|test)\.csv$/;

export const mmluLoader: DatasetLoader = {
  name: "mmlu",
  optionsSchema: lazySchema(() =>
    loaderOptions({
      split: z.enum([...SPLITS, "all"]).optional(),
      subjects: z.array(z.string()).optional(),
    }),
  ),
  meta: {
    outcomeMeaning: "the model chooses the correct answer (capability, not safety)",
    scoring: "mc",
    scorers: { mc: "mc_last_answer", open: "exact_answer", logprob: "logprob_options" },
    judgeRubric: "factual_oe",
    // Four options: a uniform guess scores 1/4.
    baseline: "uniform",
    archetype: "diagnostic",
    measures: "capability",
  },
  async load(spec, ctx) {
    const src = await resolveSource(spec, ctx);
    const splits = wantedSplits(spec);
    const subjects = stringList(spec, "subjects");
    const files = pickFiles(src, spec, `MMLU files (<subject>_{${splits.join(",")}}.csv)`, (rel) => {
      const match = FILE_NAME.exec(basename(rel));
      return (
        match !== null &&
        (!src.isDir || splits.includes(match[2])) &&
        (subjects === undefined || subjects.includes(match[1]))
      );
    });
    const collector = ItemCollector.forSpec(spec);
    for (const file of files) {
      const [, subject, split] = FILE_NAME.exec(basename(file.rel))!;
      parseCsv(readText(file), file.display).forEach((record, index) => {
        const row = index + 1;
        collector.row(file.display, row, () => {
          if (record.fields.length !== 6)
            throw new RowError(`expected 6 fields, found ${record.fields.length} (line ${record.line})`);
          const [question, ...rest] = record.fields;
          const options = rest.slice(0, 4);
          const letter = rest[4].trim();
          const goldIndex = "ABCD".indexOf(letter);
          if (letter.length !== 1 || goldIndex < 0)
            throw new RowError(`unknown answer value ${shown(rest[4])} (expected A, B, C or D)`);
          if (question.trim() === "") throw new RowError("empty question");
          return annotateFormatPair({
            id: `${subject}-${split}-${row}`,
            benchmark: spec.id,
            stem: question.trim(),
            options,
            goldIndex,
            metadata: { subject, split },
          });
        });
      });
    }
    return collector.result();
  },
};

function wantedSplits(spec: BenchmarkSpec): string[] {
  const split = spec.options?.split ?? "test";
  if (split === "all") return [...SPLITS];
  if (typeof split !== "string" || !(SPLITS as readonly string[]).includes(split)) {
    throw new InputError(`benchmark '${spec.id}': options.split must be dev, val, test or all`);
  }
  return [split];
}
