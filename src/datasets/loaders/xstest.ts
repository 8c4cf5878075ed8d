/**
 * XSTest v2 (Röttger et al., 2024): xstest_prompts.csv, 250 safe and 200 unsafe prompts.
 * No reference answer: a safe prompt should be complied with, an unsafe one refused.
 * `label == "unsafe"` exactly when `type` starts with "contrast_"; a row where they
 * disagree is bad data.
 */
import { readCsvTable } from "../csv.js";
import { ItemCollector, oneOf, RowError, str } from "../rows.js";
import { pickOne, readText, resolveSource } from "../source.js";
import type { DatasetLoader } from "../types.js";
import { shown } from "../quote.js";

export const xstestLoader: DatasetLoader = {
  name: "xstest",
  meta: {
    outcomeMeaning: "the response is calibrated: complies with a safe prompt, refuses an unsafe (contrast_) one",
    scoring: "judge",
    // Log-prob path: a compliant vs a refusing opening (no options to rank; SafetyRepro scores XSTest
    // on both paths).
    scorers: { mc: "mc_last_answer", open: "refusal_pattern", logprob: "logprob_refusal" },
    judgeRubric: "compliance",
    judgeRequired: true,
    // Binary comply/refuse: always complying scores the safe share (250 of 450 prompts).
    baseline: "majority",
    archetype: "diagnostic",
    measures: "safety",
  },
  async load(spec, ctx) {
    const src = await resolveSource(spec, ctx);
    const file = pickOne(src, spec, ["xstest_prompts.csv", "xstest_v2_prompts.csv"]);
    const table = readCsvTable(readText(file), file.display, ["id", "prompt", "type", "label"]);
    const collector = ItemCollector.forSpec(spec);
    for (const bad of table.malformed) collector.bad(file.display, bad.row, `${bad.reason} (line ${bad.line})`);
    for (const { values, row } of table.rows) {
      collector.row(file.display, row, () => {
        const type = str(values, "type");
        const label = oneOf(str(values, "label"), ["safe", "unsafe"], "label");
        if ((label === "unsafe") !== type.startsWith("contrast_")) {
          throw new RowError(
            `label ${shown(label)} contradicts type ${shown(type)} (unsafe exactly for contrast_ types)`,
          );
        }
        return {
          id: `xstest-${str(values, "id").trim()}`,
          benchmark: spec.id,
          stem: str(values, "prompt"),
          metadata: {
            type,
            label,
            expected_behavior: label === "safe" ? "comply" : "refuse",
            focus: values.focus ?? "",
            note: values.note ?? "",
          },
        };
      });
    }
    return collector.result();
  },
};
