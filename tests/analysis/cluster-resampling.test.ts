/**
 * The bootstrap behind every interval `analyzeStudy` reports resamples the declared cluster (the
 * case), not rows. The simulated table below has strong within-case correlation: the models'
 * rows of one case and cell share the case's latent value (so within a cell they move together),
 * and a case's cells share it only a third of the time. The case-cluster SE of a contrast and the
 * row-bootstrap SE then differ by a factor of about 2, and the test computes both INDEPENDENTLY of
 * the analysis, from the generated rows:
 *
 *  - the case-cluster SE in closed form: with the same number of rows of every cell in every case,
 *    a cell's rate in a resample is the mean of the drawn cases' cell means, so a linear statistic
 *    sum_c w_c p_c has the ideal (B -> infinity) bootstrap variance sum_g (sum_c w_c (m_gc - p_c))^2 / G^2;
 *    a ratio (recovery %) uses the same formula with w = its gradient (delta method);
 *  - the row-bootstrap SE in closed form: sum_c w_c^2 p_c (1 - p_c) / N_c.
 *
 * The analysis's SE (or, where only a CI is reported, its 95% half-width / z_0.975) must lie within
 * Monte Carlo error of the first and clearly away from the second. Alongside: the other numbers the
 * same result reports from these rows (Wilson CI of the reference rate, paired flip counts, the
 * Wald p-values of even df, whose chi-square tail has a closed form) are recomputed here.
 *
 * Sizes, levels and dfs are read from the generated table, never from literals.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type AnalysisRow,
  type AnalysisTable,
  analyzeStudy,
  clusterKey,
  normalizePlan,
} from "../../src/analysis/index.js";

/** mulberry32: a tiny seeded generator, independent of the project's streams. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCAFFOLDS = ["direct", "map_reduce", "map_reduce_options"] as const;
const FORMATS = ["mc", "oe"] as const;
/** Threshold on the case's latent value per scaffold x format: P(safe) where rows share it. */
const THRESHOLD: Record<string, number> = {
  "direct|mc": 0.7,
  "direct|oe": 0.82,
  "map_reduce|mc": 0.38,
  "map_reduce|oe": 0.66,
  "map_reduce_options|mc": 0.6,
  "map_reduce_options|oe": 0.78,
};
const MODELS: Record<string, number> = { "m-a": -0.02, "m-b": 0, "m-c": 0.01, "m-d": 0.03 };
const CASES = 300;
const BENCHMARK = "bbq";

function simulatedTable(seed: number): AnalysisTable {
  const random = mulberry32(seed);
  const rows: AnalysisRow[] = [];
  for (let g = 1; g <= CASES; g++) {
    const item = `${BENCHMARK}-${String(g).padStart(4, "0")}`;
    const caseLatent = random();
    for (const scaffold of SCAFFOLDS) {
      for (const format of FORMATS) {
        // A third of the case's cells share its latent value; the others draw their own.
        const latent = random() < 1 / 3 ? caseLatent : random();
        for (const [model, shift] of Object.entries(MODELS)) {
          const noise = 0.06 * (random() - 0.5);
          const outcome = latent + noise < THRESHOLD[`${scaffold}|${format}`] + shift ? 1 : 0;
          rows.push({
            trialId: null,
            model,
            benchmark: BENCHMARK,
            item,
            cluster: clusterKey(BENCHMARK, item),
            attempt: 1,
            facets: { scaffold, format },
            outcome,
            parseFailed: false,
            errored: false,
            simulated: true,
          });
        }
      }
    }
  }
  return {
    rows,
    facets: ["scaffold", "format"],
    facetLevels: { scaffold: [...SCAFFOLDS], format: [...FORMATS] },
    source: {
      kind: "table",
      path: "(simulated)",
      runId: null,
      study: "cluster-resampling",
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

/** Per-cluster cell means of a subset of rows; asserts the balanced layout the closed form needs. */
class CellMeans {
  readonly clusters: string[];
  readonly rates = new Map<string, number>();
  readonly counts = new Map<string, number>();
  private readonly means = new Map<string, Map<string, number>>();

  constructor(rows: readonly AnalysisRow[], cellOf: (r: AnalysisRow) => string | null) {
    const sums = new Map<string, Map<string, [number, number]>>();
    for (const r of rows) {
      const cell = cellOf(r);
      if (cell === null) continue;
      const byCluster = sums.get(cell) ?? new Map<string, [number, number]>();
      sums.set(cell, byCluster);
      const slot = byCluster.get(r.cluster) ?? [0, 0];
      slot[0] += r.outcome!;
      slot[1] += 1;
      byCluster.set(r.cluster, slot);
    }
    this.clusters = [...new Set(rows.map((r) => r.cluster))].sort();
    for (const [cell, byCluster] of sums) {
      const perCluster = new Set([...byCluster.values()].map(([, n]) => n));
      assert.equal(perCluster.size, 1, `cell ${cell} has the same number of rows in every case`);
      assert.equal(byCluster.size, this.clusters.length, `cell ${cell} is present in every case`);
      const means = new Map([...byCluster].map(([g, [s, n]]) => [g, s / n]));
      this.means.set(cell, means);
      let total = 0;
      let n = 0;
      for (const [s, k] of byCluster.values()) {
        total += s;
        n += k;
      }
      this.rates.set(cell, total / n);
      this.counts.set(cell, n);
    }
  }

  rate(cell: string): number {
    const p = this.rates.get(cell);
    assert.ok(p !== undefined, `cell ${cell} exists`);
    return p;
  }

  /** Ideal case-cluster bootstrap SE of sum_c w_c p_c (closed form, see the file comment). */
  clusterSe(weights: Record<string, number>): number {
    let sum = 0;
    for (const g of this.clusters) {
      let d = 0;
      for (const [cell, w] of Object.entries(weights)) d += w * (this.means.get(cell)!.get(g)! - this.rate(cell));
      sum += d * d;
    }
    return Math.sqrt(sum) / this.clusters.length;
  }

  /** Row-bootstrap SE of the same statistic: rows resampled as if independent. */
  rowSe(weights: Record<string, number>): number {
    let v = 0;
    for (const [cell, w] of Object.entries(weights)) {
      const p = this.rate(cell);
      v += (w * w * p * (1 - p)) / this.counts.get(cell)!;
    }
    return Math.sqrt(v);
  }
}

const Z975 = 1.959963984540054;
const Z95 = 1.6448536269514722;
/**
 * Relative tolerances. The SE of B = 2000 replicates has a relative Monte Carlo SD of about
 * 1/sqrt(2B) = 1.6%: 7% is over 4 SDs. A percentile half-width carries more Monte Carlo error
 * (about 2.7/sqrt(B) of an SE per end) and the delta method's error for the ratio: 12%.
 */
const SE_TOL = 0.07;
const CI_TOL = 0.12;

function assertClusterNotRow(actual: number, cluster: number, row: number, tol: number, what: string): void {
  // The design must separate the two, or the check would prove nothing.
  assert.ok(
    Math.abs(row - cluster) > 2 * tol * Math.max(row, cluster),
    `${what}: cluster SE ${cluster} and row SE ${row} too close`,
  );
  assert.ok(
    Math.abs(actual - cluster) <= tol * cluster,
    `${what}: analysis SE ${actual} is not within ${tol * 100}% of the case-cluster SE ${cluster} (row SE ${row})`,
  );
  assert.ok(Math.abs(actual - row) > tol * row, `${what}: analysis SE ${actual} matches the row bootstrap ${row}`);
}

const halfWidth = (ci: readonly [number, number] | null | undefined): number => {
  assert.ok(ci, "interval present");
  return (ci[1] - ci[0]) / 2;
};

/** Upper tail of chi-square with an even df: e^(-x/2) sum_{j < df/2} (x/2)^j / j! (closed form). */
function chiSquareSfEven(x: number, df: number): number {
  assert.equal(df % 2, 0, "closed form needs an even df");
  let term = 1;
  let sum = 1;
  for (let j = 1; j < df / 2; j++) {
    term *= x / 2 / j;
    sum += term;
  }
  return Math.exp(-x / 2) * sum;
}

describe("analysis intervals resample the declared case cluster", async () => {
  const table = simulatedTable(20261126);
  const plan = normalizePlan({
    hypotheses: { interactions: ["model"], trend: false },
    bootstrap: { resamples: 2000, seed: 7 },
    specification_curve: false,
  });
  const result = await analyzeStudy(table, plan, { now: () => new Date("2026-01-01T00:00:00Z") });
  const reference = result.meta.reference;
  const conditions = result.meta.levels.filter((l) => l !== reference);
  const facet = result.meta.comparisonFacet;
  const formatFacet = plan.format.facet;

  it("reads the design the table declares", () => {
    assert.equal(facet, "scaffold");
    assert.deepEqual(result.meta.levels, table.facetLevels.scaffold);
    assert.equal(result.counts.clusters, new Set(table.rows.map((r) => r.cluster)).size);
    assert.equal(result.counts.analysed, table.rows.length);
  });

  it("contrasts: RD standard errors and 95%/90% intervals are case-cluster bootstraps", () => {
    const pooled = result.contrasts.itt.pooled;
    const byScaffold = new CellMeans(table.rows, (r) => r.facets[facet]);
    assert.equal(pooled.contrasts.length, conditions.length);
    assert.ok(pooled.contrasts.length > 0, "contrasts present");
    for (const contrast of pooled.contrasts) {
      const weights = { [contrast.condition]: 1, [reference]: -1 };
      const rd = contrast.riskDifference;
      assert.ok(rd, `RD of ${contrast.condition}`);
      const expected = byScaffold.rate(contrast.condition) - byScaffold.rate(reference);
      assert.ok(Math.abs(rd.estimate - expected) < 1e-12, `RD ${contrast.condition}`);
      const cluster = byScaffold.clusterSe(weights);
      const row = byScaffold.rowSe(weights);
      assertClusterNotRow(rd.se, cluster, row, SE_TOL, `RD SE ${contrast.condition}`);
      assertClusterNotRow(halfWidth(rd.ci95) / Z975, cluster, row, CI_TOL, `RD 95% CI ${contrast.condition}`);
      // The TOST interval is the 90% one (1 - 2 alpha), not the 95%.
      assert.equal(plan.equivalence.alpha, 0.05);
      assertClusterNotRow(halfWidth(rd.ci90) / Z95, cluster, row, CI_TOL, `RD 90% CI ${contrast.condition}`);
      const ratio = halfWidth(rd.ci90) / halfWidth(rd.ci95);
      assert.ok(Math.abs(ratio - Z95 / Z975) < 0.05, `90%/95% half-width ratio ${ratio}`);
    }
  });

  it("format gaps (OE - MC at the reference) and the scaffold x format contrasts are case-cluster bootstraps", () => {
    assert.ok(!("skipped" in result.format), "format analysis ran");
    const format = result.format as Exclude<typeof result.format, { skipped: string }>;
    const atReference = table.rows.filter((r) => r.facets[facet] === reference);
    const models = [...new Set(atReference.map((r) => r.model))];
    // One gap per model plus the pooled "all" (one benchmark: no pooling over benchmarks).
    assert.equal(format.gaps.length, models.length + 1);
    for (const gap of format.gaps) {
      const rows = atReference.filter((r) => gap.model === "all" || r.model === gap.model);
      const cells = new CellMeans(rows, (r) => r.facets[formatFacet]);
      const weights = { [plan.format.oe]: 1, [plan.format.mc]: -1 };
      const expected = cells.rate(plan.format.oe) - cells.rate(plan.format.mc);
      assert.ok(Math.abs(gap.gap.estimate! - expected) < 1e-12, `gap ${gap.model}`);
      if (gap.model !== "all") continue; // per-model cells hold one row per case: no within-cell clustering
      assertClusterNotRow(
        halfWidth(gap.gap.ci95) / Z975,
        cells.clusterSe(weights),
        cells.rowSe(weights),
        CI_TOL,
        "pooled format gap",
      );
    }
    assert.equal(format.withinFormat.length, conditions.length);
    const cells = new CellMeans(table.rows, (r) => `${r.facets[facet]}|${r.facets[formatFacet]}`);
    const { mc, oe } = plan.format;
    for (const w of format.withinFormat) {
      const c = w.condition;
      const rdMc = { [`${c}|${mc}`]: 1, [`${reference}|${mc}`]: -1 };
      const did = { [`${c}|${mc}`]: 1, [`${reference}|${mc}`]: -1, [`${c}|${oe}`]: -1, [`${reference}|${oe}`]: 1 };
      assertClusterNotRow(
        halfWidth(w.rdMc.ci95) / Z975,
        cells.clusterSe(rdMc),
        cells.rowSe(rdMc),
        CI_TOL,
        `RD within MC ${c}`,
      );
      assertClusterNotRow(
        halfWidth(w.interaction.ci95) / Z975,
        cells.clusterSe(did),
        cells.rowSe(did),
        CI_TOL,
        `scaffold x format ${c}`,
      );
    }
  });

  it("option-preserving recovery and its loss are case-cluster bootstraps", () => {
    assert.ok(!("skipped" in result.optionPreserving), "recovery analysis ran");
    const op = result.optionPreserving as Exclude<typeof result.optionPreserving, { skipped: string }>;
    const mcRows = table.rows.filter((r) => r.facets[formatFacet] === plan.format.mc);
    const cells = new CellMeans(mcRows, (r) => r.facets[facet]);
    const [ref, std, pres] = [reference, op.standard, op.preserving];
    const pooled = op.rows.find((r) => r.model === "all");
    assert.ok(pooled, "a pooled recovery row");
    const loss = cells.rate(ref) - cells.rate(std);
    const recovery = (cells.rate(pres) - cells.rate(std)) / loss;
    assert.ok(Math.abs(pooled.loss.estimate! - loss) < 1e-12, "loss estimate");
    assert.ok(Math.abs(pooled.recovery.estimate! - recovery) < 1e-12, `recovery ${pooled.recovery.estimate}`);
    const lossWeights = { [ref]: 1, [std]: -1 };
    assertClusterNotRow(
      halfWidth(pooled.loss.ci95) / Z975,
      cells.clusterSe(lossWeights),
      cells.rowSe(lossWeights),
      CI_TOL,
      "loss",
    );
    // Gradient of (p_pres - p_std) / (p_ref - p_std).
    const gradient = { [pres]: 1 / loss, [std]: (recovery - 1) / loss, [ref]: -recovery / loss };
    assertClusterNotRow(
      halfWidth(pooled.recovery.ci95) / Z975,
      cells.clusterSe(gradient),
      cells.rowSe(gradient),
      CI_TOL,
      "recovery",
    );
  });

  it("paired flips count the same case under the reference and the condition", () => {
    const flips = result.paired.flips;
    assert.equal(flips.length, conditions.length);
    const key = (r: AnalysisRow) => [r.model, r.cluster, r.attempt, r.facets[formatFacet]].join("|");
    const referenceOutcome = new Map(
      table.rows.filter((r) => r.facets[facet] === reference).map((r) => [key(r), r.outcome]),
    );
    for (const f of flips) {
      let lost = 0;
      let gained = 0;
      let pairs = 0;
      for (const r of table.rows.filter((x) => x.facets[facet] === f.condition)) {
        const before = referenceOutcome.get(key(r));
        assert.ok(before !== undefined, "a reference pair exists");
        pairs++;
        if (before === 1 && r.outcome === 0) lost++;
        if (before === 0 && r.outcome === 1) gained++;
      }
      assert.equal(f.pairs, pairs);
      assert.ok(f.flips && f.mcnemar && !("error" in f.mcnemar), "flips and McNemar computed");
      assert.equal(f.flips.n, pairs);
      assert.equal(f.mcnemar.b, lost, `lost ${f.condition}`);
      assert.equal(f.mcnemar.c, gained, `gained ${f.condition}`);
      assert.ok(Math.abs(f.flips.lostRate - lost / pairs) < 1e-15, "lost rate");
      assert.ok(Math.abs(f.flips.gainedRate - gained / pairs) < 1e-15, "gained rate");
      assert.ok(Math.abs(f.flips.churn - (lost + gained) / pairs) < 1e-15, "churn");
      assert.ok(Math.abs(f.flips.net - (gained - lost) / pairs) < 1e-15, "net");
    }
  });

  it("reports Wilson intervals for the reference rate", () => {
    const rate = result.contrasts.itt.pooled.contrasts[0].referenceRate;
    const n = table.rows.filter((r) => r.facets[facet] === reference).length;
    const x = table.rows.filter((r) => r.facets[facet] === reference && r.outcome === 1).length;
    assert.equal(rate.n, n);
    assert.equal(rate.successes, x);
    // Wilson (1927) score interval, written out.
    const p = x / n;
    const centre = (p + (Z975 * Z975) / (2 * n)) / (1 + (Z975 * Z975) / n);
    const half = (Z975 / (1 + (Z975 * Z975) / n)) * Math.sqrt((p * (1 - p)) / n + (Z975 * Z975) / (4 * n * n));
    assert.ok(Math.abs(rate.ci95[0] - (centre - half)) < 1e-12, `${rate.ci95} vs ${centre - half}`);
    assert.ok(Math.abs(rate.ci95[1] - (centre + half)) < 1e-12, "Wilson upper");
  });

  it("Wald tests use df = the number of tested coefficients (even here: closed-form tail)", () => {
    const omnibus = result.hypotheses.omnibus;
    assert.ok(omnibus && "chi2" in omnibus, JSON.stringify(omnibus));
    assert.equal(omnibus.df, conditions.length);
    assert.ok(
      Math.abs(omnibus.p - chiSquareSfEven(omnibus.chi2, omnibus.df)) <= 1e-9 * omnibus.p + 1e-300,
      `omnibus p ${omnibus.p} vs closed form`,
    );
    const models = new Set(table.rows.map((r) => r.model)).size;
    const byModel = result.hypotheses.interactions.find((i) => i.with === "model");
    assert.ok(byModel?.test, "condition x model test ran");
    assert.equal(byModel.test.df, conditions.length * (models - 1));
    assert.equal(byModel.coefficients.length, byModel.test.df);
    const p = chiSquareSfEven(byModel.test.chi2, byModel.test.df);
    assert.ok(Math.abs(byModel.test.p - p) <= 1e-9 * p, `interaction p ${byModel.test.p} vs ${p}`);
  });
});
