/**
 * A sequential run's looks: at each, every contrast's estimate, z statistic, boundary and
 * repeated confidence interval and what it decided, then where the run ended and what it did
 * not spend.
 */
import { sequentialEstimates } from "../../analysis/every-study/sequential-analysis.js";
import { SEQUENTIAL_LOOKS_TABLE } from "../../analysis/core/study-tables.js";
import { type Content, el } from "../html.js";
import { htmlTable } from "../result-table.js";
import { type ReportContext, registerReportSection } from "./registry.js";

const pp = (x: number) => `${(100 * x).toFixed(1)} pp`;

function render(context: ReportContext): Content {
  const looks = context.methodology.sequential;
  if (!looks || looks.length === 0) return "";
  const last = looks[looks.length - 1];
  const { design } = last;
  const ended = last.end
    ? `${last.end.early ? `It stopped early at look ${last.look}` : "It ran to its last look"}: ` +
      `${last.end.trialsNotRun} trial(s) not run, about ${last.end.callsNotSpent} call(s) and $${last.end.costNotSpentUsd.toFixed(2)} not spent.`
    : `It is in progress after look ${last.look}.`;
  return [
    el("h2", { id: "sequential" }, "Sequential design"),
    el(
      "p",
      {},
      `${design.looks.length} looks at information fractions ${design.looks.join(", ")} (whole items in a seeded order), ` +
        `Lan-DeMets ${design.spending}-type alpha spending, two-sided alpha ${design.alpha}; stops on ${design.stopOn.join(", ")}. ${ended}`,
    ),
    htmlTable(
      SEQUENTIAL_LOOKS_TABLE,
      looks.flatMap((l) => l.contrasts.map((contrast) => ({ look: l.look, contrast }))),
    ),
    el(
      "p",
      {},
      "Estimates with repeated confidence intervals at the boundary of the look that ended each contrast " +
        "(they keep their coverage whatever the looks decided; the fixed-n intervals elsewhere do not account for the looks): " +
        sequentialEstimates(looks)
          .map(
            (e) =>
              `${e.contrast} ${e.estimate === null ? "-" : pp(e.estimate)}${e.rci ? ` [${pp(e.rci[0])}, ${pp(e.rci[1])}]` : ""}`,
          )
          .join("; "),
    ),
  ];
}

registerReportSection({
  name: "sequential",
  toc: { id: "sequential", label: "Sequential design" },
  render,
});
