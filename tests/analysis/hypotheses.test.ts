/**
 * The declared hypothesis plan (H4 scores, families), the all-pairwise family, the
 * Jonckheere-Terpstra sensitivity check, the independence-based Wald intervals (App. P) and the
 * cell-level baseline dependence: each recovers a planted effect and matches a computation done
 * here from the rows by hand (independent code paths: brute-force pair counts, the closed-form
 * Wald interval, Holm by hand, ranks by hand).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type AnalysisRow,
  type AnalysisTable,
  analyzeStudy,
  clusterKey,
  normalizePlan,
  resolvePlan,
} from "../../src/analysis/index.js";
import { PAPER_PRIMARY_FAMILY, PAPER_TREND_SCORES } from "../../src/contracts/analysis/comparison.js";
import { kendallTauB, normalQuantile, seededRandom } from "../../src/stats/index.js";
import { plantedTable } from "./helpers.js";

const fast = (extra: Record<string, unknown> = {}) =>
  normalizePlan({ bootstrap: { resamples: 200, seed: 3 }, specification_curve: false, ...extra });

function close(actual: number, expected: number, what: string, tol = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

/** Holm's step-down adjustment, written out. */
function holm(p: number[]): number[] {
  const order = p.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(p.length);
  let running = 0;
  order.forEach(([v, i], rank) => {
    running = Math.max(running, Math.min(1, (p.length - rank) * v));
    out[i] = running;
  });
  return out;
}

/** Rows of a small hand-made table: per condition and benchmark, a list of 0/1 outcomes (one case each). */
function smallTable(cells: Record<string, Record<string, number[]>>, model = "m"): AnalysisTable {
  const rows: AnalysisRow[] = [];
  for (const [condition, byBenchmark] of Object.entries(cells)) {
    for (const [benchmark, outcomes] of Object.entries(byBenchmark)) {
      outcomes.forEach((y, i) => {
        const item = `i${i}`;
        rows.push({
          trialId: null,
          model,
          benchmark,
          item,
          cluster: clusterKey(benchmark, item),
          attempt: 1,
          facets: { scaffold: condition },
          outcome: y,
          parseFailed: false,
          errored: false,
          simulated: true,
        });
      });
    }
  }
  return {
    rows,
    facets: ["scaffold"],
    facetLevels: { scaffold: Object.keys(cells) },
    source: {
      kind: "table",
      path: "(hand)",
      runId: null,
      study: null,
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

describe("the analysis plan declares the H4 scores and the families (defaults: the paper's)", () => {
  it("defaults to Direct 0, ReAct 1, Multi-Agent (critic) 2, Map-Reduce 3 and the paper's primary family", () => {
    const plan = normalizePlan({});
    assert.deepEqual(plan.hypotheses.trend, { scores: PAPER_TREND_SCORES, alternative: "less" });
    assert.deepEqual(plan.hypotheses.trend?.scores, {
      direct: 0,
      react: 1,
      critic: 2,
      map_reduce: 3,
    });
    assert.deepEqual(plan.hypotheses.primary_family, ["direct", "react", "critic", "map_reduce"]);
    assert.deepEqual(plan.multiplicity, {
      primary: "holm",
      pairwise: "holm",
      secondary: "bh",
      subhypotheses: "holm",
      alpha: 0.05,
    });
    const names = plan.hypotheses.subhypotheses === false ? [] : plan.hypotheses.subhypotheses.map((h) => h.name);
    assert.deepEqual(names, ["H3-syc", "H3-bias", "H3-refusal", "H3-truth"]);
  });

  it("orders the trend by the declared scores, not by the facet's level order", () => {
    // Facet order deliberately scrambled.
    const table = plantedTable({
      seed: 1,
      models: { m: 0 },
      benchmarks: ["b"],
      itemsPerBenchmark: 4,
      effects: { map_reduce: 0, critic: 0, direct: 0, cot: 0, react: 0 },
    });
    const resolved = resolvePlan(normalizePlan({}), table);
    const expected = Object.keys(PAPER_TREND_SCORES).sort((a, b) => PAPER_TREND_SCORES[a] - PAPER_TREND_SCORES[b]);
    assert.deepEqual(resolved.trend?.order, expected);
    assert.deepEqual(resolved.trend?.unscored, ["cot"]);
    // Declared scores win; the order follows them.
    const custom = resolvePlan(
      normalizePlan({ hypotheses: { trend: { scores: { direct: 0, cot: 1, map_reduce: 5 } } } }),
      table,
    );
    assert.deepEqual(custom.trend?.order, ["direct", "cot", "map_reduce"]);
    assert.deepEqual(custom.trend?.scores, { direct: 0, cot: 1, map_reduce: 5 });
  });

  it("adjusts each declared family within: primary configurations, declared families, the undeclared rest", async () => {
    const table = plantedTable({
      seed: 2,
      models: { m1: 0, m2: 0.05 },
      benchmarks: ["b1", "b2"],
      itemsPerBenchmark: 60,
      effects: { direct: 0, react: 0, map_reduce: -0.1, cot: 0.02, map_reduce_options: -0.02 },
    });
    const plan = fast({ hypotheses: { families: { cot: ["cot"] } } });
    const resolved = resolvePlan(plan, table);
    assert.deepEqual(
      resolved.families.map((f) => [f.name, f.conditions]),
      [
        ["primary", ["react", "map_reduce"]],
        ["cot", ["cot"]],
        ["undeclared", ["map_reduce_options"]],
      ],
    );
    assert.deepEqual(
      resolved.families[0].absent,
      PAPER_PRIMARY_FAMILY.filter((l) => l === "critic"),
    );
    const analysis = await analyzeStudy(table, plan);
    const contrasts = analysis.contrasts.itt.pooled.contrasts;
    const or = (c: string) => {
      const found = contrasts.find((x) => x.condition === c)!.oddsRatio;
      assert.ok(!("error" in found), c);
      return found;
    };
    const primary = ["react", "map_reduce"];
    const adjusted = holm(primary.map((c) => or(c).p));
    primary.forEach((c, i) => {
      close(or(c).pAdjusted!, adjusted[i], `Holm within the primary family, ${c}`);
      assert.match(or(c).adjustment!, /holm over 2 test\(s\) \(family primary\)/);
    });
    close(or("cot").pAdjusted!, or("cot").p, "a one-member family is its raw p");
    assert.match(or("map_reduce_options").adjustment!, /family undeclared/);
  });
});

describe("all-pairwise family", async () => {
  const table = plantedTable({
    seed: 21,
    models: { "m-a": -0.05, "m-b": 0.05 },
    benchmarks: ["bbq", "tqa"],
    itemsPerBenchmark: 250,
    effects: { direct: 0, react: 0, critic: 0, map_reduce: -0.2 },
  });
  const analysis = await analyzeStudy(table, fast());
  const family = analysis.pairwise;

  it("has every pair of the primary configurations present, Holm-adjusted within", () => {
    assert.ok(!("skipped" in family), JSON.stringify(family));
    const k = family.configurations.length;
    assert.equal(k, Object.keys({ direct: 0, react: 0, critic: 0, map_reduce: 0 }).length);
    assert.equal(family.contrasts.length, (k * (k - 1)) / 2);
    const adjusted = holm(family.contrasts.map((c) => c.p));
    family.contrasts.forEach((c, i) => {
      close(c.pAdjusted, adjusted[i], `Holm ${c.second} vs ${c.first}`);
    });
    assert.match(family.adjustment, /^holm over 6 pair/);
  });

  it("recovers the planted effect: map_reduce differs from every other, the null pairs do not", () => {
    assert.ok(!("skipped" in family), 'expected !("skipped" in family)');
    for (const c of family.contrasts) {
      const involvesMr = c.first === "map_reduce" || c.second === "map_reduce";
      if (involvesMr) assert.ok(c.pAdjusted < 1e-6, `${c.second} vs ${c.first}: ${c.pAdjusted}`);
      else assert.ok(c.pAdjusted > 0.05, `${c.second} vs ${c.first}: ${c.pAdjusted}`);
    }
  });

  it("a pair with the reference is the primary contrast; any pair equals the contrast with its first as reference", async () => {
    assert.ok(!("skipped" in family), 'expected !("skipped" in family)');
    const primary = analysis.contrasts.itt.pooled.contrasts;
    for (const c of family.contrasts.filter((x) => x.first === "direct")) {
      const or = primary.find((x) => x.condition === c.second)!.oddsRatio;
      assert.ok(!("error" in or), 'expected !("error" in or)');
      close(c.oddsRatio, or.estimate, `OR ${c.second}`, 1e-9);
      close(c.ci95[0], or.ci95[0], `lower ${c.second}`, 1e-9);
      close(c.p, or.p, `p ${c.second}`, 1e-9);
    }
    // Reparametrised with react as the reference, the same model gives critic vs react directly:
    // the covariance term of b_critic - b_react is checked through the refit.
    const refit = await analyzeStudy(table, fast({ reference: { scaffold: "react" } }));
    const pair = family.contrasts.find((c) => c.first === "react" && c.second === "critic")!;
    const direct = refit.contrasts.itt.pooled.contrasts.find((c) => c.condition === "critic")!.oddsRatio;
    assert.ok(!("error" in direct), 'expected !("error" in direct)');
    close(pair.oddsRatio, direct.estimate, "OR critic vs react", 1e-6);
    close(pair.ci95[1], direct.ci95[1], "upper critic vs react", 1e-6);
    close(pair.p, direct.p, "p critic vs react", 1e-6);
  });

  it("on one model and one benchmark the OR is the ratio of the marginal odds (hand computation)", async () => {
    const small = smallTable({
      direct: { b: [1, 1, 1, 0, 1, 0, 1, 1, 0, 1] },
      react: { b: [1, 0, 1, 0, 1, 0, 1, 1, 0, 1] },
      map_reduce: { b: [0, 0, 1, 0, 1, 0, 0, 1, 0, 0] },
    });
    const result = await analyzeStudy(small, fast());
    assert.ok(!("skipped" in result.pairwise), JSON.stringify(result.pairwise));
    const odds = (ys: number[]) => {
      const p = ys.reduce((a, b) => a + b, 0) / ys.length;
      return p / (1 - p);
    };
    const cells = {
      direct: [1, 1, 1, 0, 1, 0, 1, 1, 0, 1],
      react: [1, 0, 1, 0, 1, 0, 1, 1, 0, 1],
      map_reduce: [0, 0, 1, 0, 1, 0, 0, 1, 0, 0],
    };
    assert.equal(result.pairwise.contrasts.length, 3);
    for (const c of result.pairwise.contrasts) {
      const a = cells[c.first as keyof typeof cells];
      const b = cells[c.second as keyof typeof cells];
      close(c.oddsRatio, odds(b) / odds(a), `OR ${c.second} vs ${c.first}`, 1e-7);
      close(c.riskDifference, b.reduce((x, y) => x + y, 0) / 10 - a.reduce((x, y) => x + y, 0) / 10, "RD");
    }
  });
});

describe("Jonckheere-Terpstra as H4's sensitivity check", () => {
  it("matches a brute-force count and the Kendall-tau test on a small table (hand computation)", async () => {
    const cells = {
      direct: [1, 1, 1, 0, 1, 1],
      react: [1, 0, 1, 1, 0, 1],
      critic: [0, 1, 0, 1, 0, 1],
      map_reduce: [0, 0, 1, 0, 0, 0],
    };
    const small = smallTable(Object.fromEntries(Object.entries(cells).map(([k, v]) => [k, { b: v }])));
    const result = await analyzeStudy(small, fast());
    const trend = result.hypotheses.trend;
    assert.ok(trend && !("error" in trend) && !("error" in trend.jonckheere), JSON.stringify(trend));
    const groups = trend.order.map((l) => cells[l as keyof typeof cells]);
    assert.equal(groups.length, 4);
    let j = 0;
    for (let a = 0; a < groups.length; a++)
      for (let b = a + 1; b < groups.length; b++)
        for (const x of groups[a]) for (const y of groups[b]) j += y > x ? 1 : y === x ? 0.5 : 0;
    close(trend.jonckheere.statistic, j, "J");
    // JT is Kendall's S between group order and y: the two-sided normal p-values agree.
    const kendall = kendallTauB(
      groups.flatMap((g, i) => g.map(() => i)),
      groups.flat(),
    );
    close(trend.jonckheere.pTwoSided, kendall.pAsymptotic, "two-sided p vs Kendall", 1e-9);
    // The alternative 'less' (safety falls along the order) is the lower tail.
    assert.ok(trend.jonckheere.z < 0 && trend.jonckheere.p < 0.5, JSON.stringify(trend.jonckheere));
  });

  it("recovers a planted monotone decline and not a flat one", async () => {
    const falling = plantedTable({
      seed: 8,
      models: { a: 0, b: 0 },
      benchmarks: ["x"],
      itemsPerBenchmark: 300,
      effects: { direct: 0, react: -0.04, critic: -0.08, map_reduce: -0.12 },
    });
    const flat = plantedTable({
      ...{ seed: 9, models: { a: 0, b: 0 }, benchmarks: ["x"], itemsPerBenchmark: 300 },
      effects: { direct: 0, react: 0, critic: 0, map_reduce: 0 },
    });
    const t1 = (await analyzeStudy(falling, fast())).hypotheses.trend;
    const t2 = (await analyzeStudy(flat, fast())).hypotheses.trend;
    assert.ok(t1 && !("error" in t1) && !("error" in t1.jonckheere) && t1.jonckheere.p < 1e-4, JSON.stringify(t1));
    assert.ok(t2 && !("error" in t2) && !("error" in t2.jonckheere) && t2.jonckheere.p > 0.01, JSON.stringify(t2));
    assert.equal(t1.jonckheere.groups.length, 4);
  });
});

describe("independence-based Wald RD intervals (App. P)", () => {
  it("match the closed form on a small table and sit beside the bootstrap interval", async () => {
    const small = smallTable({
      direct: { b: [1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1] },
      map_reduce: { b: [0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0] },
    });
    const result = await analyzeStudy(small, fast());
    const rows = result.independenceCi.rows;
    assert.equal(rows.length, 1);
    const [r] = rows;
    const p1 = 4 / 12;
    const p2 = 9 / 12;
    const se = Math.sqrt((p1 * (1 - p1)) / 12 + (p2 * (1 - p2)) / 12);
    for (const [ci, alpha] of [
      [r.wald95, 0.05],
      [r.wald90, 0.1],
    ] as const) {
      const z = normalQuantile(1 - alpha / 2);
      close(ci[0], p1 - p2 - z * se, `lower ${alpha}`);
      close(ci[1], p1 - p2 + z * se, `upper ${alpha}`);
    }
    assert.deepEqual([r.x1, r.n1, r.x2, r.n2], [4, 12, 9, 12]);
    assert.deepEqual(r.bootstrap95, result.contrasts.itt.pooled.contrasts[0].riskDifference?.ci95);
  });

  it("is wider than the case-cluster bootstrap when cases are strongly correlated (planted)", async () => {
    // A wide spread of case baselines: the pairing removes part of the variance (ratio about 1.2 here).
    const table = plantedTable({
      seed: 4,
      models: { a: 0, b: 0, c: 0 },
      benchmarks: ["x"],
      itemsPerBenchmark: 300,
      effects: { direct: 0, map_reduce: -0.1 },
      baseline: [0.05, 0.95],
    });
    const result = await analyzeStudy(table, fast({ bootstrap: { resamples: 600, seed: 3 } }));
    const pooled = result.independenceCi.rows.find((r) => r.scope === "pooled")!;
    assert.ok(pooled.widthRatio !== null && pooled.widthRatio > 1.1, JSON.stringify(pooled));
    assert.ok(pooled.wald95[0] < -0.1 && -0.1 < pooled.wald95[1], "covers the planted RD");
  });
});

describe("cell-level baseline dependence (Spearman of baseline vs delta)", () => {
  /** Cells whose map_reduce loss grows with the direct baseline: delta = -0.5 (p0 - 0.3). */
  function dependentTable(seed: number, slope: number): AnalysisTable {
    const random = seededRandom(seed);
    const rows: AnalysisRow[] = [];
    const models = ["m1", "m2", "m3", "m4"];
    const benchmarks = ["b1", "b2", "b3"];
    models.forEach((model, mi) => {
      benchmarks.forEach((benchmark, bi) => {
        const p0 = 0.35 + 0.05 * (mi * benchmarks.length + bi);
        for (const [scaffold, p] of [
          ["direct", p0],
          ["map_reduce", p0 + slope * (p0 - 0.3)],
        ] as const) {
          for (let i = 0; i < 400; i++) {
            const item = `${benchmark}-${i}`;
            rows.push({
              trialId: null,
              model,
              benchmark,
              item,
              cluster: clusterKey(benchmark, item),
              attempt: 1,
              facets: { scaffold },
              outcome: random.uniform() < p ? 1 : 0,
              parseFailed: false,
              errored: false,
              simulated: true,
            });
          }
        }
      });
    });
    const t = smallTable({});
    return { ...t, rows, facetLevels: { scaffold: ["direct", "map_reduce"] } };
  }

  it("recovers a planted negative dependence and ranks by hand", async () => {
    const table = dependentTable(31, -0.5);
    const result = await analyzeStudy(table, fast());
    const b = result.baselineDependence;
    assert.ok(!("skipped" in b), JSON.stringify(b));
    assert.equal(b.cells.length, 12);
    assert.ok(b.rho < -0.8 && b.p < 0.01, `rho ${b.rho} p ${b.p}`);
    // By hand: cell rates from the rows, average ranks, Pearson of the ranks.
    const cells = new Map<string, { ref: number[]; mr: number[] }>();
    for (const r of table.rows) {
      const key = `${r.model}|${r.benchmark}`;
      const c = cells.get(key) ?? { ref: [], mr: [] };
      (r.facets.scaffold === "direct" ? c.ref : c.mr).push(r.outcome!);
      cells.set(key, c);
    }
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const x = [...cells.values()].map((c) => mean(c.ref));
    const y = [...cells.values()].map((c) => mean(c.mr) - mean(c.ref));
    const ranks = (v: number[]) =>
      v.map((a) => {
        const below = v.filter((b) => b < a).length;
        const equal = v.filter((b) => b === a).length;
        return below + (equal + 1) / 2;
      });
    const [rx, ry] = [ranks(x), ranks(y)];
    const [mx, my] = [mean(rx), mean(ry)];
    const cov = rx.reduce((s, a, i) => s + (a - mx) * (ry[i] - my), 0);
    const rho = cov / Math.sqrt(rx.reduce((s, a) => s + (a - mx) ** 2, 0) * ry.reduce((s, a) => s + (a - my) ** 2, 0));
    close(b.rho, rho, "rho by hand", 1e-12);
  });

  it("finds no dependence when the loss is the same in every cell, and skips without the condition", async () => {
    const result = await analyzeStudy(dependentTable(32, 0), fast());
    const b = result.baselineDependence;
    assert.ok(!("skipped" in b) && b.p > 0.01, JSON.stringify(b));
    const none = await analyzeStudy(dependentTable(33, 0), fast({ baseline_dependence: { condition: "critic" } }));
    assert.ok("skipped" in none.baselineDependence, 'expected "skipped" in none.baselineDependence');
  });
});

describe("per-model scaffold sensitivity profiles (App. O.2)", () => {
  it("match a hand computation on a small table", async () => {
    const small = smallTable({
      direct: { b1: [1, 1, 1, 0], b2: [1, 1, 0, 0] },
      map_reduce: { b1: [1, 0, 0, 0], b2: [1, 1, 1, 0] },
    });
    const s = (await analyzeStudy(small, fast())).sensitivityProfiles;
    assert.ok(!("skipped" in s), JSON.stringify(s));
    assert.equal(s.profiles.length, 1);
    const [p] = s.profiles;
    // Ranges: b1 0.75 - 0.25 = 0.5, b2 0.75 - 0.5 = 0.25; overall 9/16;
    // eta^2 = 8 (5/8 - 9/16)^2 + 8 (4/8 - 9/16)^2 over 16 (9/16)(7/16) = (1/16) / (63/16) = 1/63.
    close(p.averageRange, 0.375, "average range");
    close(p.maxRange, 0.5, "max range");
    assert.equal(p.maxRangeBenchmark, "b1");
    close(p.overallSafe, 9 / 16, "overall safe");
    close(p.etaSq, 1 / 63, "eta^2");
  });

  it("ranks a planted scaffold-sensitive model above a robust one", async () => {
    const random = seededRandom(41);
    const sensitivity: Record<string, number> = { robust: 0, middle: 0.12, fragile: 0.3 };
    const rows: AnalysisRow[] = [];
    for (const benchmark of ["b1", "b2"]) {
      for (let i = 0; i < 500; i++) {
        const item = `${benchmark}-${i}`;
        const base = 0.45 + 0.3 * random.uniform();
        for (const [model, k] of Object.entries(sensitivity)) {
          for (const [scaffold, effect] of [
            ["direct", 0],
            ["react", 0],
            ["map_reduce", benchmark === "b1" ? -k : k / 2],
          ] as const) {
            rows.push({
              trialId: null,
              model,
              benchmark,
              item,
              cluster: clusterKey(benchmark, item),
              attempt: 1,
              facets: { scaffold },
              outcome: random.uniform() < base + effect ? 1 : 0,
              parseFailed: false,
              errored: false,
              simulated: true,
            });
          }
        }
      }
    }
    const table: AnalysisTable = {
      ...smallTable({}),
      rows,
      facetLevels: { scaffold: ["direct", "react", "map_reduce"] },
    };
    const s = (await analyzeStudy(table, fast())).sensitivityProfiles;
    assert.ok(!("skipped" in s), JSON.stringify(s));
    assert.deepEqual(
      s.profiles.map((p) => p.model),
      ["fragile", "middle", "robust"],
    );
    const fragile = s.profiles[0];
    close(fragile.averageRange, (0.3 + 0.15) / 2, "fragile average range", 0.06);
    assert.equal(fragile.maxRangeBenchmark, "b1");
    assert.ok(fragile.etaSq > s.profiles[2].etaSq, "eta^2 follows the planted sensitivity");
  });
});

describe("G-study with declared facet types and the D-study projection", () => {
  /** Models x benchmarks x scaffolds; rate = 0.5 + model effect (+ model x benchmark effect). */
  function gTable(seed: number, modelSpread: number, reorderSpread: number): AnalysisTable {
    const random = seededRandom(seed);
    const models = ["m1", "m2", "m3", "m4", "m5", "m6"];
    const benchmarks = ["b1", "b2", "b3", "b4"];
    const rows: AnalysisRow[] = [];
    const ability = models.map((_, i) => modelSpread * (i / (models.length - 1) - 0.5));
    for (const [mi, model] of models.entries()) {
      for (const benchmark of benchmarks) {
        const interaction = reorderSpread * (random.uniform() - 0.5);
        for (const scaffold of ["direct", "react", "map_reduce"]) {
          for (let i = 0; i < 150; i++) {
            const item = `${benchmark}-${i}`;
            rows.push({
              trialId: null,
              model,
              benchmark,
              item,
              cluster: clusterKey(benchmark, item),
              attempt: 1,
              facets: { scaffold },
              outcome: random.uniform() < 0.5 + ability[mi] + interaction ? 1 : 0,
              parseFailed: false,
              errored: false,
              simulated: true,
            });
          }
        }
      }
    }
    return { ...smallTable({}), rows, facetLevels: { scaffold: ["direct", "react", "map_reduce"] } };
  }

  it("declares the paper's defaults (both fixed, 8 x 12) and reports both designs", async () => {
    const plan = fast();
    assert.deepEqual(plan.generalizability.d_study, [8, 12]);
    assert.equal(plan.generalizability.fixed, undefined);
    const g = (await analyzeStudy(gTable(1, 0.4, 0), plan)).variance.generalizability;
    assert.ok(!("error" in g), JSON.stringify(g));
    assert.deepEqual(g.facetTypes, { scaffold: "fixed", benchmark: "fixed" });
    assert.equal(g.coefficient, 1, "no sampled facet: no relative error");
    assert.deepEqual(g.dStudy.sizes, [8, 12]);
    assert.equal(g.notes.length, 1);
  });

  it("matches the EMS components and coefficients computed by hand from the cell means", async () => {
    const table = gTable(2, 0.3, 0.3);
    const g = (await analyzeStudy(table, fast({ generalizability: { fixed: [] } }))).variance.generalizability;
    assert.ok(!("error" in g), JSON.stringify(g));
    assert.deepEqual(g.facetTypes, { scaffold: "random", benchmark: "random" });
    // Cell means y[p][i][j] (model, scaffold, benchmark), then Brennan's p x i x j EMS equations.
    const models = [...new Set(table.rows.map((r) => r.model))].sort();
    const scaffolds = [...new Set(table.rows.map((r) => r.facets.scaffold))].sort();
    const benchmarks = [...new Set(table.rows.map((r) => r.benchmark))].sort();
    const [np, ni, nj] = [models.length, scaffolds.length, benchmarks.length];
    const y = models.map((m) =>
      scaffolds.map((s) =>
        benchmarks.map((b) => {
          const cell = table.rows.filter((r) => r.model === m && r.facets.scaffold === s && r.benchmark === b);
          return cell.reduce((a, r) => a + r.outcome!, 0) / cell.length;
        }),
      ),
    );
    const avg = (f: (p: number, i: number, j: number) => boolean) => {
      let sum = 0;
      let n = 0;
      for (let p = 0; p < np; p++)
        for (let i = 0; i < ni; i++)
          for (let j = 0; j < nj; j++)
            if (f(p, i, j)) {
              sum += y[p][i][j];
              n++;
            }
      return sum / n;
    };
    const grand = avg(() => true);
    const mP = models.map((_, p) => avg((a) => a === p));
    const mI = scaffolds.map((_, i) => avg((_a, b) => b === i));
    const mJ = benchmarks.map((_, j) => avg((_a, _b, c) => c === j));
    let ssP = 0;
    let ssPI = 0;
    let ssPJ = 0;
    let ssPIJ = 0;
    for (let p = 0; p < np; p++) ssP += ni * nj * (mP[p] - grand) ** 2;
    for (let p = 0; p < np; p++)
      for (let i = 0; i < ni; i++) {
        const mPI = avg((a, b) => a === p && b === i);
        ssPI += nj * (mPI - mP[p] - mI[i] + grand) ** 2;
      }
    for (let p = 0; p < np; p++)
      for (let j = 0; j < nj; j++) {
        const mPJ = avg((a, _b, c) => a === p && c === j);
        ssPJ += ni * (mPJ - mP[p] - mJ[j] + grand) ** 2;
      }
    for (let p = 0; p < np; p++)
      for (let i = 0; i < ni; i++)
        for (let j = 0; j < nj; j++) {
          const r =
            y[p][i][j] -
            avg((a, b) => a === p && b === i) -
            avg((a, _b, c) => a === p && c === j) -
            avg((_a, b, c) => b === i && c === j) +
            mP[p] +
            mI[i] +
            mJ[j] -
            grand;
          ssPIJ += r * r;
        }
    const msP = ssP / (np - 1);
    const msPI = ssPI / ((np - 1) * (ni - 1));
    const msPJ = ssPJ / ((np - 1) * (nj - 1));
    const msPIJ = ssPIJ / ((np - 1) * (ni - 1) * (nj - 1));
    const s2p = Math.max(0, (msP - msPI - msPJ + msPIJ) / (ni * nj));
    const s2pi = Math.max(0, (msPI - msPIJ) / nj);
    const s2pj = Math.max(0, (msPJ - msPIJ) / ni);
    const rho = (a: number, b: number) => s2p / (s2p + s2pi / a + s2pj / b + msPIJ / (a * b));
    close(g.allRandom.coefficient, rho(ni, nj), "E rho^2, all random", 1e-9);
    close(g.coefficient, rho(ni, nj), "declared all random = all random", 1e-9);
    close(g.dStudy.allRandom.generalizability, rho(8, 12), "D-study 8 x 12", 1e-9);
    // Scaffold fixed: p x scaffold joins the universe score.
    const mixed = (await analyzeStudy(table, fast({ generalizability: { fixed: ["scaffold"] } }))).variance
      .generalizability;
    assert.ok(!("error" in mixed), 'expected !("error" in mixed)');
    const tau = s2p + s2pi / ni;
    close(mixed.coefficient, tau / (tau + s2pj / nj + msPIJ / (ni * nj)), "E rho^2, scaffold fixed", 1e-9);
  });

  it("recovers a planted stable model ranking (high E rho^2) and a reordering one (low)", async () => {
    const random = { generalizability: { fixed: [] } };
    const stable = (await analyzeStudy(gTable(3, 0.5, 0), fast(random))).variance.generalizability;
    const reordered = (await analyzeStudy(gTable(4, 0, 0.6), fast(random))).variance.generalizability;
    assert.ok(
      !("error" in stable) && !("error" in reordered),
      'expected !("error" in stable) && !("error" in reordered)',
    );
    assert.ok(stable.coefficient > 0.9, `stable ${stable.coefficient}`);
    assert.ok(reordered.coefficient < 0.5, `reordered ${reordered.coefficient}`);
    // More benchmarks and scaffolds average the interaction away.
    assert.ok(
      reordered.dStudy.allRandom.generalizability >= reordered.allRandom.coefficient,
      "expected reordered.dStudy.allRandom.generalizability >= reordered.allRandom.coefficient",
    );
  });
});
