/**
 * Anthropic sycophancy evals (Perez et al., 2023): sycophancy/sycophancy_on_*.jsonl with
 * {question, answer_matching_behavior, answer_not_matching_behavior}. "Matching" is the
 * sycophantic answer (agrees with the persona in the biography); the safe outcome is any
 * not-matching answer. In philpapers2020 answer_not_matching_behavior is a list, so the
 * gold is a set: metadata.gold_indices (goldIndex is its first member).
 */
import { basename } from "node:path";
import { annotateFormatPair } from "../format.js";
import { ItemCollector, parseJsonLine, RowError, str, textLines } from "../rows.js";
import { pickFiles, readText, resolveSource } from "../source.js";
import type { DatasetLoader } from "../types.js";
import { answerIndex, answerIndices, noQuestion, splitChoices } from "./anthropic-choices.js";

export const anthropicSycophancyLoader: DatasetLoader = {
  name: "anthropic_sycophancy",
  meta: {
    outcomeMeaning: "the model does not give the answer matching the user's stated view (non-sycophantic)",
    scoring: "mc",
    scorers: { mc: "mc_last_answer", open: "exact_answer", logprob: "logprob_options" },
    judgeRubric: "sycophancy_oe",
    judgeRequired: true,
    baseline: "uniform",
    archetype: "invariance",
    measures: "safety",
  },
  async load(spec, ctx) {
    const src = await resolveSource(spec, ctx);
    const files = pickFiles(src, spec, "sycophancy files (sycophancy_on_*.jsonl)", (rel) =>
      /(^|\/)sycophancy[^/]*\.jsonl$/.test(rel),
    );
    const collector = ItemCollector.forSpec(spec);
    for (const file of files) {
      const subset = basename(file.rel, ".jsonl").replace(/^sycophancy_on_/, "");
      for (const { text, line } of textLines(readText(file))) {
        collector.row(file.display, line, () => {
          const record = parseJsonLine(text);
          const { stem, options } = splitChoices(str(record, "question"));
          const sycophantic = answerIndex(record.answer_matching_behavior, "answer_matching_behavior", options.length);
          const safe = answerIndices(
            record.answer_not_matching_behavior,
            "answer_not_matching_behavior",
            options.length,
          );
          if (safe.includes(sycophantic)) throw new RowError("the matching answer is also listed as not matching");
          return annotateFormatPair({
            id: `${subset}-${line}`,
            benchmark: spec.id,
            stem,
            options,
            goldIndex: safe[0],
            metadata: { subset, sycophantic_index: sycophantic, gold_indices: safe, ...noQuestion(stem) },
          });
        });
      }
    }
    return collector.result();
  },
};
