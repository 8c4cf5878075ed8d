/**
 * The agent-scaffold analyses (GAIA scaffold comparison): per-cell outcomes, accuracy and the
 * scaffold gap under the three slices, H1, pairwise contrasts, the GLMM likelihood-ratio test,
 * the file-task difference of differences, behavioural signatures, cost per correct with the
 * Pareto frontier chart, and the tier ladder.
 */
import type { AgentSliceLevel, AgentsResult } from "../../../analysis/index.js";
import { num, pct, pp, pValue } from "../../../analysis/index.js";
import { ACCURACY_DEFINITIONS, frontierText, NO_PRICES } from "../../../analysis/agents/agents-analysis.js";
import { ci, figure } from "../../blocks.js";
import { paretoChart } from "../../charts.js";
import { type Content, el, table } from "../../html.js";
import { type ReportContext, registerReportSection } from "../registry.js";

type Estimate = { estimate: number | null; ci: [number, number] | null };
const BUCKETS = ["correct", "wrong", "p2l", "cf", "pdf", "bug", "other"] as const;

function est(e: Estimate | undefined, f: (v: number) => string): string {
  return !e || e.estimate === null ? "n/a" : `${f(e.estimate)}${ci(e.ci, f)}`;
}

const dollars = (v: number) => `$${v.toFixed(3)}`;
const thousands = (v: number) => `${(v / 1000).toFixed(1)}k`;
const seconds = (v: number) => `${v.toFixed(0)} s`;

function sliceOf(a: AgentsResult, slice: string, level: string): AgentSliceLevel | undefined {
  return a.slices.find((s) => s.slice === slice && s.level === level);
}

const SLICE_NAMES = ["primary", "robust", "intersection"] as const;

function outcomesTables(a: AgentsResult): Content {
  return a.levels.map((level) => {
    const s = sliceOf(a, "primary", level);
    if (!s) return null;
    return [
      el("h4", {}, `Level ${level}: per-cell outcomes (primary slice, ${s.questions} questions)`),
      table(
        ["model", a.facet, "attempts", "completion", ...BUCKETS, "acc. overall", "acc. completed", "quarantined"],
        s.cells.map((c) => [
          c.model,
          c.scaffold,
          c.outcomes.attempts,
          pct(c.outcomes.completionRate),
          ...BUCKETS.map((b) => c.outcomes.buckets[b]),
          pct(c.outcomes.accuracyOverall),
          pct(c.outcomes.accuracyCompleted),
          c.outcomes.quarantined,
        ]),
      ),
      el(
        "p",
        { class: "muted" },
        ACCURACY_DEFINITIONS.replace("acc =", "acc. overall =").replace("acc done", "acc. completed"),
      ),
    ];
  });
}

function accuracyTable(a: AgentsResult): Content {
  const rows: Content[][] = [];
  for (const level of a.levels)
    for (const model of a.models)
      for (const scaffold of a.scaffolds) {
        const per = SLICE_NAMES.map((slice) =>
          sliceOf(a, slice, level)?.cells.find((c) => c.model === model && c.scaffold === scaffold),
        );
        if (!per[0]) continue;
        rows.push([level, model, scaffold, ...per.map((c) => est(c?.accuracy, (v) => num(v, 3)))]);
      }
  return table(["level", "model", a.facet, "primary [95% CI]", "robust [95% CI]", "intersection [95% CI]"], rows);
}

function gapTable(a: AgentsResult): Content {
  const rows: Content[][] = [];
  for (const level of a.levels)
    for (const model of a.models)
      rows.push([
        level,
        model,
        ...SLICE_NAMES.map((slice) => {
          const g = sliceOf(a, slice, level)?.gaps.find((x) => x.model === model);
          return g ? `${est(g.gap, (v) => num(v, 3))} (${g.max ?? "-"}, ${g.min ?? "-"})` : "n/a";
        }),
      ]);
  return table(["level", "model", "primary (max, min)", "robust (max, min)", "intersection (max, min)"], rows);
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
  const rows: Content[][] = [];
  for (const level of a.levels) {
    const primary = sliceOf(a, "primary", level);
    for (const p of primary?.pairwise ?? [])
      rows.push([
        level,
        p.model,
        `${p.first} − ${p.second}`,
        ...SLICE_NAMES.map((slice) =>
          est(
            sliceOf(a, slice, level)?.pairwise.find(
              (x) => x.model === p.model && x.first === p.first && x.second === p.second,
            )?.difference,
            (v) => pp(v),
          ),
        ),
      ]);
  }
  return table(["level", "model", "pair", "primary [95% CI]", "robust [95% CI]", "intersection [95% CI]"], rows);
}

function glmmTables(a: AgentsResult): Content {
  const fits: Content[][] = [];
  const lrt: Content[][] = [];
  const coefficients: Content[] = [];
  for (const g of a.glmm) {
    if ("skipped" in g) {
      lrt.push([g.slice, `skipped: ${g.skipped}`, "", ""]);
      continue;
    }
    for (const [name, f] of [
      ["baseline", g.baseline],
      ["interaction", g.full],
    ] as const) {
      fits.push([
        g.slice,
        name,
        f.nObs,
        f.nIds,
        f.error ? `no (${f.error})` : f.converged ? "yes" : "no",
        num(f.maxAbsGradient, 4),
        num(f.logLik, 2),
        num(f.aic, 2),
        num(f.bic, 2),
      ]);
      if (f.coefficients.length > 0)
        coefficients.push(
          el(
            "details",
            {},
            el("summary", {}, `${g.slice} slice, ${name} model: ${f.formula}`),
            table(
              ["term", "β", "SE", "95% CI", "p"],
              f.coefficients.map((c) => [
                c.name,
                num(c.estimate, 3),
                num(c.se, 3),
                `(${num(c.ciLower, 3)}, ${num(c.ciUpper, 3)})`,
                pValue(c.p),
              ]),
            ),
          ),
        );
    }
    lrt.push([g.slice, g.lrt ? num(g.lrt.chi2, 2) : "n/a", g.lrt?.df ?? "", g.lrt ? pValue(g.lrt.p) : ""]);
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
    table(["slice", "model", "n_obs", "n_ids", "converged", "max |gradient|", "logLik", "AIC", "BIC"], fits),
    table(["slice", "χ² (interaction)", "df", "p"], lrt),
    coefficients,
  ];
}

function dodTables(a: AgentsResult): Content {
  const out: Content[] = [];
  for (const subset of ["documents", "any_file"] as const)
    for (const slice of SLICE_NAMES) {
      const rows: Content[][] = [];
      for (const level of a.levels)
        for (const d of sliceOf(a, slice, level)?.dod.filter((x) => x.subset === subset) ?? [])
          rows.push([
            level,
            d.model,
            `${d.treatment} − ${d.control}${d.h4 ? " (H4)" : ""}`,
            `${d.fileQuestions} / ${d.otherQuestions}`,
            est(d.dod, (v) => num(v, 3)),
            d.reading ?? "n/a",
          ]);
      if (rows.length === 0) continue;
      out.push(
        el("h4", {}, `${subset === "documents" ? "Document attachments" : "Any attachment"}, ${slice} slice`),
        table(["level", "model", "pair", "file / other questions", "DoD [95% CI]", "reading"], rows),
      );
    }
  return out.length
    ? out
    : el("p", { class: "muted" }, "No attachment metadata: the difference of differences is not computed.");
}

function behaviourTable(a: AgentsResult, slice: string): Content {
  const rows: Content[][] = [];
  for (const level of a.levels)
    for (const c of sliceOf(a, slice, level)?.cells ?? []) {
      const b = c.behaviour;
      rows.push([
        level,
        c.model,
        c.scaffold,
        est(b.toolCalls, (v) => num(v, 1)),
        est(b.outputTokens, thousands),
        est(b.workingSeconds, seconds),
        `${b.recovery.estimate === null ? "n/a" : est(b.recovery, (v) => num(v, 2))} (${b.recovery.recovered}/${b.recovery.withError})`,
        est(b.inputTokens, thousands),
        est(b.cacheReadTokens, thousands),
        est(b.cacheWriteTokens, thousands),
      ]);
    }
  return table(
    [
      "level",
      "model",
      a.facet,
      "tool calls",
      "output tokens",
      "working time (completed)",
      "recovery (n/N)",
      "input",
      "cache read",
      "cache write",
    ],
    rows,
  );
}

function costTable(a: AgentsResult, slice: string): Content {
  const rows: Content[][] = [];
  for (const level of a.levels) {
    const cells = [...(sliceOf(a, slice, level)?.cells ?? [])].sort(
      (x, y) =>
        (x.cost.realized.estimate ?? Number.POSITIVE_INFINITY) - (y.cost.realized.estimate ?? Number.POSITIVE_INFINITY),
    );
    for (const c of cells)
      rows.push([
        level,
        c.model,
        c.scaffold,
        c.outcomes.buckets.correct,
        c.cost.priced ? dollars(c.cost.totalUsd) : NO_PRICES,
        c.cost.priced ? est(c.cost.realized, dollars) : NO_PRICES,
        c.cost.priced ? est(c.cost.happyPath, dollars) : NO_PRICES,
        c.onFrontier ? "frontier" : "",
      ]);
  }
  return table(
    ["level", "model", a.facet, "correct", "total cost", "realized per correct [95% CI]", "happy path [95% CI]", ""],
    rows,
  );
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
  const rows = a.slices
    .filter((s) => s.ladder)
    .map((s) => [
      s.slice,
      s.level,
      s
        .ladder!.models.map((m, i) => `${m} ${s.ladder!.gaps[i] === null ? "n/a" : num(s.ladder!.gaps[i], 3)}`)
        .join(" → "),
      s.ladder!.reading ?? "n/a",
    ]);
  return rows.length
    ? table(["slice", "level", "gap by tier (least to most capable)", "reading"], rows)
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
    accuracyTable(a),
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
    behaviourTable(a, "primary"),
    el("h3", {}, "Cost per correct (primary slice)"),
    costTable(a, "primary"),
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
