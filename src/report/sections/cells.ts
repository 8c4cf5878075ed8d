/** Every fine cell (model x benchmark x configuration) with one link per trial. */
import { ALL, cellId, pct } from "../../analysis/index.js";
import { el, table } from "../html.js";
import { cellLink, trialLink } from "../links.js";
import { type ReportContext, registerReportSection } from "./registry.js";

function cells({ analysis, options }: ReportContext) {
  const population = analysis.meta.primaryPopulation;
  const fine = analysis.rates.filter((c) => c.model !== ALL && c.benchmark !== ALL);
  return [
    el("h2", { id: "cells" }, "Trials behind each cell"),
    el(
      "p",
      { class: "muted" },
      "Each number opens one trial (green: safe/correct, red: not) with its exact messages, response and score.",
    ),
    table(
      ["model", "benchmark", "configuration", "rate", "parse failures", "trials"],
      fine.map((c) => {
        const trials = options.trialsByCell.get(cellId(c.model, c.benchmark, c.configuration)) ?? [];
        return [
          c.model,
          c.benchmark,
          el("a", { href: cellLink(options, c.id) }, c.configuration),
          pct(c[population]?.rate),
          pct(c.parseFailureRate),
          el(
            "span",
            { class: "trial-links" },
            trials.map((t, i) =>
              el(
                "a",
                {
                  href: trialLink(options, t.id),
                  class: t.score === 1 ? "pass" : "fail",
                  title: `trial ${t.id}`,
                },
                String(i + 1),
              ),
            ),
          ),
        ];
      }),
    ),
  ];
}

registerReportSection({ name: "cells", toc: { id: "cells", label: "Trials behind each cell" }, render: cells });
