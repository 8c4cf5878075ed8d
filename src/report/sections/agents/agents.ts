/**
 * The agent-scaffold analyses (GAIA scaffold comparison): per-cell outcomes, accuracy and the
 * scaffold gap under the three slices, H1, pairwise contrasts, the GLMM likelihood-ratio test,
 * the file-task difference of differences, behavioural signatures, cost per correct with the
 * Pareto frontier chart, and the tier ladder.
 */
import type { AgentSliceLevel, AgentsResult } from "../../../analysis/index.js";
import { ACCURACY_DEFINITIONS, frontierText, NO_PRICES } from "../../../analysis/agents/agents-analysis.js";
import {
  accuracyTable,
  behaviourTable,
  costTable,
  DOD_TABLE,
  type DodRow,
  GAP_BY_SLICE_TABLE,
  GLMM_COEFFICIENTS_TABLE,
  GLMM_FITS_TABLE,
  GLMM_LRT_TABLE,
  type GlmmFitRow,
  type GlmmLrtRow,
  LADDER_TABLE,
  outcomesTable,
  PAIRWISE_TABLE,
  SLICE_NAMES,
} from "../../../analysis/agents/agents-tables.js";
import { figure } from "../../blocks.js";
import { paretoChart } from "../../charts.js";
import { type Content, el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function sliceOf(a: AgentsResult, slice: string, level: string): AgentSliceLevel | undefined {
  return a.slices.find((s) => s.slice === slice && s.level === level);
}

function outcomesTables(a: AgentsResult): Content {
  return a.levels.map((level) => {
    const s = sliceOf(a, "primary", level);
    if (!s) return null;
    return [
      el("h4", {}, `Level ${level}: per-cell outcomes (primary slice, ${s.questions} questions)`),
      htmlTable(outcomesTable(a.facet), s.cells),
      el(
        "p",
        { class: "muted" },
        ACCURACY_DEFINITIONS.replace("acc =", "acc. overall =").replace("acc done", "acc. completed"),
      ),
    ];
  });
}

function accuracyTableHtml(a: AgentsResult): Content {
  const rows = a.levels.flatMap((level) =>
    a.models.flatMap((model) =>
      a.scaffolds.flatMap((scaffold) => {
        const cells = SLICE_NAMES.map((slice) =>
          sliceOf(a, slice, level)?.cells.find((c) => c.model === model && c.scaffold === scaffold),
        );
        return cells[0] ? [{ level, model, scaffold, cells }] : [];
      }),
    ),
  );
  return htmlTable(accuracyTable(a.facet), rows);
}

function gapTable(a: AgentsResult): Content {
  const rows = a.levels.flatMap((level) =>
    a.models.map((model) => ({
      level,
      model,
      gaps: SLICE_NAMES.map((slice) => sliceOf(a, slice, level)?.gaps.find((x) => x.model === model)),
    })),
  );
  return htmlTable(GAP_BY_SLICE_TABLE, rows);
}

function h1List(a: AgentsResult): Content {
  return el(
    "ul",
    {},
    a.h1.map((h) =>
      el(
        "li",
        {},
        `H1, ${h.slice} slice, level ${h.level} (a gap of at least ${Math.round(100 * h.threshold)} pp for some model): ${
          h.supported === null
            ? "not evaluable (the level is absent)"
            : h.supported
              ? `supported (${h.models.join(", ")})`
              : "not supported"
        }${h.modelsCiAbove.length ? `; CI wholly above the threshold for ${h.modelsCiAbove.join(", ")}` : ""}.`,
      ),
    ),
  );
}

function pairwiseTable(a: AgentsResult): Content {
  const rows = a.levels.flatMap((level) =>
    (sliceOf(a, "primary", level)?.pairwise ?? []).map((pair) => ({
      level,
      pair,
      differences: SLICE_NAMES.map(
        (slice) =>
          sliceOf(a, slice, level)?.pairwise.find(
            (x) => x.model === pair.model && x.first === pair.first && x.second === pair.second,
          )?.difference,
      ),
    })),
  );
  return htmlTable(PAIRWISE_TABLE, rows);
}

function glmmTables(a: AgentsResult): Content {
  const fits: GlmmFitRow[] = [];
  const lrt: GlmmLrtRow[] = [];
  const coefficients: Content[] = [];
  for (const g of a.glmm) {
    if ("skipped" in g) {
      lrt.push({ slice: g.slice, skipped: g.skipped, lrt: null });
      continue;
    }
    for (const [model, fit] of [
      ["baseline", g.baseline],
      ["interaction", g.full],
    ] as const) {
      fits.push({ slice: g.slice, model, fit });
      if (fit.coefficients.length > 0)
        coefficients.push(
          el(
            "details",
            {},
            el("summary", {}, `${g.slice} slice, ${model} model: ${fit.formula}`),
            htmlTable(GLMM_COEFFICIENTS_TABLE, fit.coefficients),
          ),
        );
    }
    lrt.push({ slice: g.slice, lrt: g.lrt });
  }
  const reference = a.glmm.find((g) => !("skipped" in g));
  return [
    el(
      "p",
      {},
      `Logistic GLMM with a random intercept per question; reference levels ${
        reference && !("skipped" in reference)
          ? `${reference.referenceScaffold} and ${reference.referenceModel}`
          : "n/a"
      }. Converged: max |gradient| ≤ 0.002 (lme4's check).`,
    ),
    htmlTable(GLMM_FITS_TABLE, fits),
    htmlTable(GLMM_LRT_TABLE, lrt),
    coefficients,
  ];
}

function dodTables(a: AgentsResult): Content {
  const out: Content[] = [];
  for (const subset of ["documents", "any_file"] as const)
    for (const slice of SLICE_NAMES) {
      const rows: DodRow[] = a.levels.flatMap((level) =>
        (sliceOf(a, slice, level)?.dod.filter((x) => x.subset === subset) ?? []).map((dod) => ({ slice, level, dod })),
      );
      if (rows.length === 0) continue;
      out.push(
        el("h4", {}, `${subset === "documents" ? "Document attachments" : "Any attachment"}, ${slice} slice`),
        htmlTable(DOD_TABLE, rows),
      );
    }
  return out.length
    ? out
    : el("p", { class: "muted" }, "No attachment metadata: the difference of differences is not computed.");
}

function behaviourTableHtml(a: AgentsResult, slice: string): Content {
  const rows = a.levels.flatMap((level) => (sliceOf(a, slice, level)?.cells ?? []).map((cell) => ({ level, cell })));
  return htmlTable(behaviourTable(a.facet), rows);
}

function costTableHtml(a: AgentsResult, slice: string): Content {
  const rows = a.levels.flatMap((level) =>
    [...(sliceOf(a, slice, level)?.cells ?? [])]
      .sort(
        (x, y) =>
          (x.cost.realized.estimate ?? Number.POSITIVE_INFINITY) -
          (y.cost.realized.estimate ?? Number.POSITIVE_INFINITY),
      )
      .map((cell) => ({ level, cell })),
  );
  return htmlTable(costTable(a.facet), rows);
}

function paretoFigures(a: AgentsResult): Content {
  return a.levels.map((level) => {
    const s = sliceOf(a, "primary", level);
    if (!s) return null;
    if (s.cells.every((c) => !c.cost.priced))
      return el("p", { class: "muted" }, `Level ${level}: Pareto frontier ${NO_PRICES} (declare models[].price).`);
    const chart = paretoChart(
      s.cells.map((c) => ({
        model: c.model,
        scaffold: c.scaffold,
        accuracy: c.outcomes.accuracyOverall ?? Number.NaN,
        costPerCorrect: c.cost.realized.estimate ?? Number.NaN,
        onFrontier: c.onFrontier,
      })),
    );
    return figure(
      chart,
      `Level ${level}, primary slice: accuracy vs realized cost per correct (log scale); dashed: the Pareto frontier (${frontierText(s)})`,
    );
  });
}

function ladderTable(a: AgentsResult): Content {
  const rows = a.slices.filter((s) => s.ladder);
  return rows.length
    ? htmlTable(LADDER_TABLE, rows)
    : el("p", { class: "muted" }, "No tier order declared (analysis.agents.tiers): no ladder.");
}

function agents({ analysis }: ReportContext): Content {
  const a = analysis.agents;
  if (!a || "skipped" in a)
    return [
      el("h2", { id: "agents" }, "Agent scaffolds"),
      el("p", { class: "muted" }, `Not computed: ${a ? a.skipped : "not in this record"}.`),
    ];
  return [
    el("h2", { id: "agents" }, "Agent scaffolds"),
    el(
      "p",
      {},
      `${a.units} attempt-units of ${a.models.length} model(s) x ${a.scaffolds.length} ${a.facet}(s) (${a.scaffolds.join(", ")}); ${a.quarantined} zero-token rejection(s) quarantined (not scored). Slices: primary (every unit, errored = incorrect), robust (units flagged ${analysis.meta.plan.agents.robust_exclude_flags.join(", ")} left out), intersection (questions every cell of the level completed at least once). CIs: ${a.resamples} question-clustered bootstrap resamples (a question brings all its attempts), seed ${a.seed} on every slice, shared across ${a.facet}s.`,
    ),
    a.notes.length
      ? el(
          "ul",
          {},
          a.notes.map((n) => el("li", {}, n)),
        )
      : null,
    el("h3", {}, "Outcomes"),
    outcomesTables(a),
    el("h3", {}, "Accuracy"),
    accuracyTableHtml(a),
    el("h3", {}, "Scaffold gap (max − min accuracy) and H1"),
    gapTable(a),
    h1List(a),
    el("h3", {}, "Pairwise scaffold contrasts"),
    pairwiseTable(a),
    el("h3", {}, "Scaffold × model interaction (GLMM)"),
    glmmTables(a),
    el("h3", {}, "File tasks: difference of differences (H4)"),
    dodTables(a),
    el("h3", {}, "Behavioural signatures (primary slice)"),
    behaviourTableHtml(a, "primary"),
    el("h3", {}, "Cost per correct (primary slice)"),
    costTableHtml(a, "primary"),
    paretoFigures(a),
    el("h3", {}, "Tier ladder"),
    ladderTable(a),
  ];
}

registerReportSection({
  name: "agents",
  toc: { id: "agents", label: "Agent scaffolds" },
  card: "agents",
  render: agents,
});
