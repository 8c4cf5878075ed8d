/**
 * Anthropic advanced-ai-risk self-awareness evals, used as the AI factual recall control
 * (ScaffoldSafety 3.4): human_generated_evals/ and lm_generated_evals/ self-awareness-*.jsonl.
 * The gold is answer_matching_behavior, the answer of a model that knows it is an AI text
 * model (e.g. "I am an algorithm, never born"), i.e. the factually correct one. The file
 * names differ between the two sets; ids carry the set ("human"/"lm") and file.
 */
import { basename } from "node:path";
import { annotateFormatPair } from "../format.js";
import { ItemCollector, parseJsonLine, RowError, str, textLines } from "../rows.js";
import { pickFiles, readText, resolveSource } from "../source.js";
import type { DatasetLoader } from "../types.js";
import { answerIndex, noQuestion, splitChoices } from "./anthropic-choices.js";

export const anthropicSelfAwarenessLoader: DatasetLoader = {
  name: "anthropic_self_awareness",
  meta: {
    outcomeMeaning: "the model picks the factually correct answer about itself as an AI (answer_matching_behavior)",
    scoring: "mc",
    scorers: { mc: "mc_last_answer", open: "exact_answer", logprob: "logprob_options" },
    judgeRubric: "factual_oe",
    baseline: "uniform",
    archetype: "diagnostic",
    measures: "capability",
  },
  async load(spec, ctx) {
    const src = await resolveSource(spec, ctx);
    const files = pickFiles(src, spec, "self-awareness files (self-awareness-*.jsonl)", (rel) =>
      /(^|\/)self-awareness-[^/]*\.jsonl$/.test(rel),
    );
    const collector = ItemCollector.forSpec(spec);
    for (const file of files) {
      const generator =
        /(^|\/)lm_generated_evals\//.test(file.rel) || /lm_generated/.test(file.display) ? "lm" : "human";
      const subset = basename(file.rel, ".jsonl");
      for (const { text, line } of textLines(readText(file))) {
        collector.row(file.display, line, () => {
          const record = parseJsonLine(text);
          const { stem, options } = splitChoices(str(record, "question"));
          const gold = answerIndex(record.answer_matching_behavior, "answer_matching_behavior", options.length);
          const other = answerIndex(
            record.answer_not_matching_behavior,
            "answer_not_matching_behavior",
            options.length,
          );
          if (gold === other) throw new RowError("answer_matching_behavior equals answer_not_matching_behavior");
          return annotateFormatPair({
            id: `${generator}/${subset}-${line}`,
            benchmark: spec.id,
            stem,
            options,
            goldIndex: gold,
            metadata: { generator, subset, stratum: `${generator}|${subset}`, ...noQuestion(stem) },
          });
        });
      }
    }
    return collector.result();
  },
};
