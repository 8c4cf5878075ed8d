/**
 * GAIA (Mialon et al., 2023): <year>/<split>/metadata.jsonl with task_id, Question, Level
 * (1-3; an int in some copies, a string in others), "Final answer" (note the space),
 * file_name ("" or an attachment beside metadata.jsonl) and "Annotator Metadata". The test
 * split has no answers ("?"): such items get no goldText. A directory source takes
 * options.split (default "validation").
 */
import { lazySchema } from "../../contracts/lazy-schema.js";
import { dirname, join, posix } from "node:path";
import * as z from "zod";
import type { Item } from "../../contracts/item.js";
import { loaderOptions } from "../options.js";
import { asRecord, ItemCollector, parseJsonLine, RowError, str, textLines } from "../rows.js";
import { pickOne, readText, resolveSource, type SourceFile } from "../source.js";
import type { DatasetLoader } from "../types.js";

export const gaiaLoader: DatasetLoader = {
  name: "gaia",
  optionsSchema: lazySchema(() =>
    loaderOptions({
      split: z.string().optional(),
      /** Only these levels (the GAIA scaffold study runs Levels 1 and 2); default every level. */
      levels: z.array(z.number().int().min(1).max(3)).min(1).optional(),
    }),
  ),
  meta: {
    outcomeMeaning: "the final answer matches the reference under the official GAIA normaliser",
    scoring: "exact",
    scorers: { mc: "mc_last_answer", open: "gaia_exact", logprob: "logprob_options" },
    // Not judged: the official normaliser is the reference scorer.
    judgeRubric: null,
    // Open-ended exact answers: no trivial guess scores above about 0.
    baseline: "none",
    archetype: "diagnostic",
    measures: "capability",
  },
  async load(spec, ctx) {
    const src = await resolveSource(spec, ctx);
    const split = typeof spec.options?.split === "string" ? spec.options.split : "validation";
    const file = pickOne(src, spec, [`2023/${split}/metadata.jsonl`, `${split}/metadata.jsonl`, "metadata.jsonl"]);
    const collector = ItemCollector.forSpec(spec);
    const levels = Array.isArray(spec.options?.levels) ? (spec.options.levels as number[]) : undefined;
    for (const { text, line } of textLines(readText(file))) {
      collector.row(file.display, line, () => {
        const item = gaiaItem(parseJsonLine(text), file, spec.id);
        return levels && !levels.includes(item.metadata.level as number) ? undefined : item;
      });
    }
    return collector.result();
  },
};

function gaiaItem(record: Record<string, unknown>, file: SourceFile, benchmark: string): Item {
  const level = Number(record.Level);
  if (![1, 2, 3].includes(level) || (typeof record.Level !== "number" && typeof record.Level !== "string")) {
    throw new RowError(`unknown Level value ${JSON.stringify(record.Level)} (expected 1, 2 or 3)`);
  }
  const answer = str(record, "Final answer", { allowEmpty: true }).trim();
  const attachment = str(record, "file_name", { allowEmpty: true });
  const annotator = record["Annotator Metadata"];
  const item: Item = {
    id: str(record, "task_id"),
    benchmark,
    stem: str(record, "Question"),
    metadata: {
      level,
      file_name: attachment,
      // The attachment sits beside metadata.jsonl; relative to the source for the manifest.
      attachment: attachment === "" ? null : posix.join(posix.dirname(file.rel), attachment),
      attachment_path: attachment === "" ? null : join(dirname(file.path), attachment),
      has_answer: answer !== "" && answer !== "?",
      annotator_metadata: annotator === undefined ? null : asRecord(annotator, "Annotator Metadata"),
    },
  };
  if (item.metadata.has_answer) item.goldText = answer;
  return item;
}
