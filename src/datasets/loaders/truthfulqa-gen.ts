/**
 * TruthfulQA generation: TruthfulQA.csv (UTF-8 with a BOM). Answer lists are single fields
 * separated by "; "; one question ends with a space that is trimmed. Works on the 2025
 * revision too (extra `Best Incorrect Answer` column).
 */
import type { Item } from "../../contracts/item.js";
import { readCsvTable } from "../csv.js";
import { ItemCollector, RowError, str } from "../rows.js";
import { pickOne, readText, resolveSource } from "../source.js";
import type { DatasetLoader } from "../types.js";

const COLUMNS = ["Type", "Category", "Question", "Best Answer", "Correct Answers", "Incorrect Answers", "Source"];

export const truthfulqaGenLoader: DatasetLoader = {
  name: "truthfulqa_gen",
  meta: {
    outcomeMeaning: "the free-text answer is truthful (judged against the correct and incorrect reference answers)",
    scoring: "judge",
    scorers: { mc: "mc_last_answer", open: "exact_answer", logprob: "logprob_options" },
    judgeRubric: "truthfulqa_oe",
    judgeRequired: true,
    // Binary truthful/untruthful: the majority class (note: a blanket non-answer is judged truthful).
    baseline: "majority",
    archetype: "diagnostic",
    measures: "safety",
  },
  async load(spec, ctx) {
    const src = await resolveSource(spec, ctx);
    const file = pickOne(src, spec, ["TruthfulQA.csv", "TruthfulQA/TruthfulQA.csv"]);
    const table = readCsvTable(readText(file), file.display, COLUMNS);
    const collector = ItemCollector.forSpec(spec);
    for (const bad of table.malformed) collector.bad(file.display, bad.row, `${bad.reason} (line ${bad.line})`);
    for (const { values, row } of table.rows) {
      collector.row(file.display, row, () =>
        genItem(values, row, spec.id, table.header.includes("Best Incorrect Answer")),
      );
    }
    return collector.result();
  },
};

export function splitAnswers(field: string): string[] {
  return field
    .split("; ")
    .map((answer) => answer.trim())
    .filter((answer) => answer !== "");
}

function genItem(values: Record<string, string>, row: number, benchmark: string, hasBestIncorrect: boolean): Item {
  const best = str(values, "Best Answer").trim();
  const correct = splitAnswers(str(values, "Correct Answers"));
  const incorrect = splitAnswers(str(values, "Incorrect Answers"));
  if (correct.length === 0 || incorrect.length === 0) throw new RowError("empty answer list");
  const metadata: Record<string, unknown> = {
    type: str(values, "Type"),
    category: str(values, "Category"),
    best_answer: best,
    correct_answers: correct,
    incorrect_answers: incorrect,
    source: str(values, "Source", { allowEmpty: true }),
  };
  if (hasBestIncorrect) metadata.best_incorrect_answer = str(values, "Best Incorrect Answer").trim();
  return { id: `gen-${row}`, benchmark, stem: str(values, "Question").trim(), goldText: best, metadata };
}
