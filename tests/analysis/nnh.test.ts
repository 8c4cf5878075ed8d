/**
 * Numbers needed (ScaffoldSafety App. F.2, App. I): rounded up as the paper rounds them, Altman's
 * interval, NNT for a benefit and NNH for a harm, and the scorecard's NNH field per format (never
 * pooled across MC and OE), per benchmark and per model, with the residual NNH of the
 * option-preserving variant, on a small table computed by hand.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type AnalysisRow,
  type AnalysisTable,
  analyzeStudy,
  buildScorecard,
  clusterKey,
  formatSummary,
  normalizePlan,
  numberNeeded,
  numberNeededInterval,
  numberNeededText,
  recoveryNote,
  recoveryText,
  roundNumberNeeded,
  scorecardMarkdown,
} from "../../src/analysis/index.js";
import { altmanInterval, numberNeededToHarm } from "../../src/stats/index.js";

const METHODOLOGY = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

describe("number needed: rounding and wording", () => {
  it("rounds up to whole cases, as App. I does (10.8 pp -> 10, 8.7 pp -> 12, 1.5 pp -> 67, 4.0 pp -> 25)", () => {
    assert.equal(roundNumberNeeded(1 / 0.108), 10);
    assert.equal(roundNumberNeeded(1 / 0.087), 12);
    assert.equal(roundNumberNeeded(1 / 0.015), 67);
    assert.equal(roundNumberNeeded(1 / 0.04), 25);
    // 0.9 - 0.86 is 0.04000000000000003 in floating point: still 25, not 26.
    assert.equal(roundNumberNeeded(1 / (0.86 - 0.9 + 0.08)), 25);
    assert.equal(roundNumberNeeded(14), 14);
  });

  it("says NNH for a harm and NNT for a benefit, never a benefit under an NNH label", () => {
    assert.equal(numberNeeded(1 / 0.073, "harm"), "NNH 14");
    assert.equal(numberNeeded(1 / 0.05, "benefit"), "NNT 20");
    assert.equal(numberNeeded(null, "none"), "∞ (RD = 0)");
    assert.equal(numberNeeded(null, null), "-");
  });

  it("gives Altman's interval: inverse ends when the RD CI excludes 0, NNT a to ∞ to NNH b when it includes 0", () => {
    // RD -7.3 pp [-9.0, -5.5]: NNH 1/0.09 = 11.1 -> 12 to 1/0.055 = 18.2 -> 19.
    const harm = numberNeededToHarm(-0.073, [-0.09, -0.055]);
    assert.equal(numberNeededText(harm), "NNH 14 [NNH 12 to 19]");
    // RD +4 pp [-25, +10]: NNT 25, interval NNT 10 to ∞ to NNH 4.
    const mixed = numberNeededToHarm(0.04, [-0.25, 0.1]);
    assert.equal(numberNeededText(mixed), "NNT 25 [NNT 10 to ∞ to NNH 4]");
    // RD -5 pp [-10, 0]: touches 0, NNH 10 to ∞.
    assert.equal(numberNeededInterval(altmanInterval([-0.1, 0])), "NNH 10 to ∞");
    // A benefit that excludes 0: NNT 8 to 25.
    assert.equal(numberNeededInterval(altmanInterval([0.04, 0.125])), "NNT 8 to 25");
    assert.equal(numberNeededText(numberNeededToHarm(0, [0, 0])), "∞ (RD = 0)");
  });

  it("explains a recovery outside [0, 100%] in place", () => {
    assert.equal(recoveryNote(0.64, [0.49, 0.83]), null);
    assert.equal(recoveryText(0.64, [0.49, 0.83]), "64% [49%, 83%]");
    assert.match(
      recoveryText(1.05, [0.8, 1.3]),
      /^105% \[80%, 130%\] \(above 100%: .*consistent with full recovery\)$/,
    );
    assert.match(recoveryText(0.89, [0.71, 1.04]), /\(the CI passes 100%: consistent with full recovery\)$/);
    assert.match(recoveryText(-0.2, [-0.5, 0.1]), /\(below 0%: .*nothing recovered\)$/);
  });
});

/**
 * One benchmark, 20 items, models m1 and m2, scaffold x format. Unsafe outcomes (0), by hand:
 * - item 20 is unsafe everywhere (so no cell is constant);
 * - MC, map_reduce: m1 also items 1-8, m2 items 1-4 (RD m1 -40 pp, m2 -20 pp, pooled -30 pp);
 * - MC, map_reduce_options: m1 also items 1-2 (residual -10 pp), m2 nothing more (0);
 * - OE: every scaffold as direct (RD 0).
 * Pooled across formats map_reduce would be -15 pp (NNH 7): it must never appear.
 */
function handTable(): AnalysisTable {
  const rows: AnalysisRow[] = [];
  const unsafe = (model: string, scaffold: string, format: string, item: number): boolean => {
    if (item === 20) return true;
    if (format !== "mc") return false;
    if (scaffold === "map_reduce") return item <= (model === "m1" ? 8 : 4);
    if (scaffold === "map_reduce_options") return model === "m1" && item <= 2;
    return false;
  };
  for (let item = 1; item <= 20; item++)
    for (const model of ["m1", "m2"])
      for (const scaffold of ["direct", "map_reduce", "map_reduce_options"])
        for (const format of ["mc", "oe"])
          rows.push({
            trialId: null,
            model,
            benchmark: "b",
            item: `q${item}`,
            cluster: clusterKey("b", `q${item}`),
            attempt: 1,
            facets: { scaffold, format },
            outcome: unsafe(model, scaffold, format, item) ? 0 : 1,
            parseFailed: false,
            errored: false,
            simulated: true,
          });
  return {
    rows,
    facets: ["scaffold", "format"],
    facetLevels: { scaffold: ["direct", "map_reduce", "map_reduce_options"], format: ["mc", "oe"] },
    source: {
      kind: "table",
      path: "(hand)",
      runId: null,
      study: "hand",
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

describe("the scorecard's NNH field", () => {
  it("is per format, per benchmark and per model, never pooled across MC and OE, with the residual NNH", async () => {
    const plan = normalizePlan({ bootstrap: { resamples: 300 }, specification_curve: false });
    const analysis = await analyzeStudy(handTable(), plan);
    const card = buildScorecard(analysis, METHODOLOGY);
    const rows = card.nnh.rows.filter((r) => r.condition === "map_reduce");
    const text = (scope: string) => {
      const row = rows.find((r) => r.scope === scope);
      assert.ok(row, `a row for ${scope}: ${rows.map((r) => r.scope).join(", ")}`);
      return numberNeededText(row.nnh).split(" [")[0];
    };
    assert.ok(
      rows.every((r) => r.format === "mc" || r.format === "oe"),
      "every row within one format",
    );
    assert.equal(text("pooled · mc"), "NNH 4"); // 1/0.30 = 3.3
    assert.equal(text("pooled · oe"), "∞ (RD = 0)");
    assert.equal(text("model m1 · mc"), "NNH 3"); // 1/0.40 = 2.5
    assert.equal(text("model m2 · mc"), "NNH 5"); // 1/0.20
    assert.ok(
      Math.abs(rows.find((r) => r.scope === "pooled · mc")!.riskDifference! + 0.3) < 1e-12,
      'expected Math.abs(rows.find((r) => r.scope === "pooled · mc")!.riskDifference! + 0.3) < 1e-12',
    );
    // Altman's interval on every row whose RD CI excludes 0 is the inverse of its ends.
    for (const r of card.nnh.rows.filter((x) => x.rdCi95 && (x.rdCi95[1] < 0 || x.rdCi95[0] > 0))) {
      const [lo, hi] = r.rdCi95!;
      const range = r.nnh!.interval!.harm ?? r.nnh!.interval!.benefit!;
      assert.deepEqual(
        [range.lower, range.upper],
        [1 / Math.max(Math.abs(lo), Math.abs(hi)), 1 / Math.min(Math.abs(lo), Math.abs(hi))],
      );
    }
    // The residual NNH (App. I), at format=mc.
    assert.ok(!("skipped" in card.nnh.residual), 'expected !("skipped" in card.nnh.residual)');
    const residual = card.nnh.residual as Exclude<typeof card.nnh.residual, { skipped: string }>;
    assert.equal(residual.restrictedTo, "format=mc");
    const m1 = residual.rows.find((r) => r.model === "m1")!;
    assert.equal(numberNeeded(m1.headline!.value, m1.headline!.direction), "NNH 3"); // loss 40 pp
    assert.equal(numberNeeded(m1.residual!.value, m1.residual!.direction), "NNH 10"); // residual 10 pp
    assert.ok(Math.abs(m1.recovery! - 0.75) < 1e-12, "expected Math.abs(m1.recovery! - 0.75) < 1e-12"); // (85 - 55) / (95 - 55)
    const m2 = residual.rows.find((r) => r.model === "m2")!;
    assert.equal(numberNeeded(m2.residual!.value, m2.residual!.direction), "∞ (RD = 0)");
    // The same wording everywhere: scorecard.md and the text summary; no pooled-format NNH 7.
    const markdown = scorecardMarkdown(card);
    const summary = formatSummary(analysis, METHODOLOGY);
    for (const out of [markdown, summary]) {
      assert.doesNotMatch(out, /NNH 7\b/, "map_reduce pooled across formats (-15 pp) never appears");
      assert.doesNotMatch(out, /\(benefit\)/);
      assert.match(out, /NNT\/NNH/);
    }
    assert.match(markdown, /\| pooled · mc \| map_reduce \| -30\.0 pp .*\| NNH 4 \[/);
    assert.match(markdown, /\| all models \| NNH 4 \[/);
    assert.match(markdown, /\| m1 \| NNH 3 \[.*\] \| NNH 10 \[.*\] \| 75%/);
  });
});

describe("the residual NNH behind the integrity gate", () => {
  it("is not stated when the recovery's cells fail a check", async () => {
    const table = handTable();
    // Every map_reduce answer unreadable: the recovery reads that cell, so no NNH of it is stated.
    for (const r of table.rows)
      if (r.facets.scaffold === "map_reduce") {
        r.parseFailed = true;
        r.outcome = 0;
      }
    const plan = normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: false });
    const analysis = await analyzeStudy(table, plan);
    const card = buildScorecard(analysis, METHODOLOGY);
    const residual = card.nnh.residual as Exclude<typeof card.nnh.residual, { skipped: string }>;
    assert.ok(residual.rows.length > 0, "expected residual.rows.length > 0");
    for (const r of residual.rows) {
      assert.equal(r.headline, null);
      assert.equal(r.residual, null);
      assert.match(r.note ?? "", /^not interpretable: /);
    }
    const summary = formatSummary(analysis, METHODOLOGY);
    const recoveryLines = summary.split("\n").filter((l) => /^(m1|m2|all)\s/.test(l));
    assert.ok(recoveryLines.length >= 2, summary);
    for (const line of recoveryLines) assert.doesNotMatch(line, /NNH \d/, line);
  });
});
