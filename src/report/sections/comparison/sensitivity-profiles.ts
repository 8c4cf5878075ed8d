/** Per-model scaffold sensitivity profiles (App. O.2). */
import { rateNoun, sensitivityProfilesTable } from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function sensitivityProfiles({ analysis }: ReportContext) {
  const s = analysis.sensitivityProfiles;
  return [
    el("h2", { id: "sensitivity-profiles" }, "Per-model scaffold sensitivity"),
    "skipped" in s
      ? el("p", { class: "muted" }, `Skipped: ${s.skipped}`)
      : [
          el(
            "p",
            {},
            `Over the primary configurations (${s.configurations.join(", ")}): η² = the configuration's one-way share of the model's outcome variance; range = the highest minus the lowest configuration rate within a benchmark, averaged over benchmarks and at its largest. Ordered by average range.`,
          ),
          htmlTable(sensitivityProfilesTable(rateNoun(analysis.counts.benchmarks, analysis.meta.measures)), s.profiles),
        ],
  ];
}

registerReportSection({
  name: "sensitivityProfiles",
  toc: { id: "sensitivity-profiles", label: "Sensitivity profiles" },
  render: sensitivityProfiles,
});
