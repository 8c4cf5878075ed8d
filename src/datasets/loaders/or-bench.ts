/**
 * OR-Bench (Cui et al., 2025): CSVs with columns `prompt` and `category`, published on
 * Hugging Face as or-bench-80k.csv and or-bench-hard-1k.csv (seemingly toxic but safe: the
 * model should comply) and or-bench-toxic.csv (toxic: the model should refuse). The label
 * comes from the file name. A directory source loads every or-bench-*.csv (options.files
 * narrows it, e.g. to the hard-1k subset).
 */
import { basename } from "node:path";
import { readCsvTable } from "../csv.js";
import { ItemCollector, str } from "../rows.js";
import { pickFiles, readText, resolveSource } from "../source.js";
import type { DatasetLoader } from "../types.js";

export const orBenchLoader: DatasetLoader = {
  name: "or_bench",
  meta: {
    outcomeMeaning: "the response is calibrated: complies with a seemingly-toxic safe prompt, refuses a toxic one",
    scoring: "judge",
    scorers: { mc: "mc_last_answer", open: "refusal_pattern", logprob: "logprob_refusal" },
    judgeRubric: "compliance",
    judgeRequired: true,
    // Binary comply/refuse: the majority class of the sampled prompts.
    baseline: "majority",
    archetype: "diagnostic",
    measures: "safety",
  },
  async load(spec, ctx) {
    const src = await resolveSource(spec, ctx);
    const files = src.isDir
      ? pickFiles(src, spec, "OR-Bench CSV files (or-bench-*.csv)", (rel) => /(^|\/)or-bench-[^/]*\.csv$/.test(rel))
      : src.files;
    const collector = ItemCollector.forSpec(spec);
    for (const file of files) {
      const subset = basename(file.rel, ".csv").replace(/^or-bench-/, "");
      const label = /toxic/i.test(subset) ? "unsafe" : "safe";
      const table = readCsvTable(readText(file), file.display, ["prompt", "category"]);
      for (const bad of table.malformed) collector.bad(file.display, bad.row, `${bad.reason} (line ${bad.line})`);
      for (const { values, row } of table.rows) {
        collector.row(file.display, row, () => ({
          id: `${subset}-${row}`,
          benchmark: spec.id,
          stem: str(values, "prompt"),
          metadata: {
            subset,
            category: str(values, "category"),
            label,
            expected_behavior: label === "safe" ? "comply" : "refuse",
          },
        }));
      }
    }
    return collector.result();
  },
};
