// Golden adapters for the non-model fixtures (01, 02, 07-11, 13-19). Each computes from the
// fixture's `input` (and the CSV files it names) and returns a value shaped like `expected`.
// Adapters never read `fixture.expected`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  adjustPValues,
  agreementTable,
  binomialCdf,
  chiSquareGoodnessOfFit,
  chiSquareQuantile,
  chiSquareSf,
  closedFormMde,
  clusterBootstrap,
  clusteredCellCounts,
  cohensH,
  cohensHForPower,
  cohensKappa,
  compareTwoProportions,
  fSf,
  isotonicRegression,
  jonckheereExact,
  jonckheereTerpstra,
  kendallTauB,
  mcnemarTest,
  minimumDetectableEffect,
  normalCdf,
  normalQuantile,
  normalSf,
  type PairedTable,
  type PowerDefinition,
  pairedProportionDifference,
  pairedTableFromOutcomes,
  proportionCi,
  spearman,
  type TwoProportionCounts,
  tCdf,
  tostFromEstimate,
  tostTwoProportions,
  tQuantile,
  twoProportionPower,
  waldStandardError,
} from "../../../src/stats/index.js";
import type { GoldenAdapter, GoldenFixture } from "./types.js";

// ---------------------------------------------------------------- CSV input

type Row = Record<string, string>;

const csvCache = new Map<string, Row[]>();

/** Reads a plain comma-separated file with a header row (the golden CSVs have no quoting). */
function readCsv(fixture: GoldenFixture, name: string): Row[] {
  const path = join(fixture.dir, name);
  const cached = csvCache.get(path);
  if (cached) return cached;
  const [header, ...lines] = readFileSync(path, "utf8").trim().split(/\r?\n/);
  const columns = header.split(",");
  const rows = lines.map((line) => {
    const cells = line.split(",");
    return Object.fromEntries(columns.map((column, i) => [column, cells[i]]));
  });
  csvCache.set(path, rows);
  return rows;
}

/** Rows whose columns equal every non-null value of `filter`. */
function filterRows(rows: Row[], filter: Record<string, string | null>): Row[] {
  const conditions = Object.entries(filter).filter(([, value]) => value !== null);
  return rows.filter((row) => conditions.every(([column, value]) => row[column] === value));
}

function countOutcomes(rows: Row[]): { count: number; nobs: number } {
  return { count: rows.reduce((total, row) => total + Number(row.outcome), 0), nobs: rows.length };
}

/** Inline cases with the last one (the data-derived case) recounted from the CSV. */
function withLastCaseFromData<T>(fixture: GoldenFixture, cases: T[], fromData: () => T): T[] {
  return fixture.input.from_data ? [...cases.slice(0, -1), fromData()] : cases;
}

function twoGroupCountsFromData(fixture: GoldenFixture): TwoProportionCounts {
  const spec = fixture.input.from_data;
  const rows = readCsv(fixture, spec.csv);
  const group1 = countOutcomes(filterRows(rows, spec.group_1_filter));
  const group2 = countOutcomes(filterRows(rows, spec.group_2_filter));
  return { x1: group1.count, n1: group1.nobs, x2: group2.count, n2: group2.nobs };
}

// ---------------------------------------------------------------- 01-02 proportions

const proportionCiAdapter: GoldenAdapter = (fixture) => {
  const { alphas } = fixture.input;
  const cases = withLastCaseFromData<{ count: number; nobs: number }>(fixture, fixture.input.cases, () => {
    const spec = fixture.input.from_data;
    return countOutcomes(filterRows(readCsv(fixture, spec.csv), spec.row_filter));
  });
  const results = cases.flatMap(({ count, nobs }) =>
    alphas.map((alpha: number) => ({
      count,
      nobs,
      alpha,
      p_hat: count / nobs,
      se_wald: waldStandardError(count, nobs),
      wilson: proportionCi(count, nobs, alpha, "wilson"),
      wald: proportionCi(count, nobs, alpha, "wald"),
      wald_clipped_0_1: proportionCi(count, nobs, alpha, "wald-clipped"),
      clopper_pearson: proportionCi(count, nobs, alpha, "clopper-pearson"),
      agresti_coull: proportionCi(count, nobs, alpha, "agresti-coull"),
    })),
  );
  return { results };
};

const twoProportionsAdapter: GoldenAdapter = (fixture) => {
  const alpha: number = fixture.input.alpha;
  const cases = withLastCaseFromData<TwoProportionCounts>(fixture, fixture.input.cases, () =>
    twoGroupCountsFromData(fixture),
  );
  const results = cases.map((counts) => {
    const r = compareTwoProportions(counts, alpha);
    return {
      ...counts,
      alpha,
      p1: r.p1,
      p2: r.p2,
      risk_difference: r.riskDifference,
      se_rd_wald: r.seRiskDifferenceWald,
      rd_ci_wald: r.riskDifferenceCiWald,
      rd_ci_newcombe: r.riskDifferenceCiNewcombe,
      risk_ratio: r.riskRatio.estimate,
      se_log_rr: r.riskRatio.seLog,
      rr_ci_log_wald: r.riskRatio.ci,
      odds_ratio: r.oddsRatio.estimate,
      se_log_or: r.oddsRatio.seLog,
      or_ci_logit_wald: r.oddsRatio.ci,
      nnh: r.nnhFromWald.value,
      nnh_ci_from_rd_wald: r.nnhFromWald.ci,
      nnh_ci_from_rd_newcombe: r.nnhFromNewcombe.ci,
      z_pooled: r.zTest.z,
      p_pooled_two_sided: r.zTest.p,
    };
  });
  return { results };
};

// ---------------------------------------------------------------- 07 multiple testing

const multipleTestingAdapter: GoldenAdapter = (fixture) => {
  const alpha: number = fixture.input.alpha;
  const keyed: [string, Parameters<typeof adjustPValues>[1]][] = [
    ["holm", "holm"],
    ["bonferroni", "bonferroni"],
    ["bh", "bh"],
    ["by_extra", "by"],
    ["hommel_extra", "hommel"],
  ];
  const results = fixture.input.vectors.map((p: number[]) => {
    const out: Record<string, unknown> = { p };
    for (const [key, method] of keyed) {
      const adjusted = adjustPValues(p, method, alpha);
      out[key] = adjusted.adjusted;
      out[`${key}_reject`] = adjusted.reject;
    }
    return out;
  });
  return { results };
};

// ---------------------------------------------------------------- 08-10 TOST, paired, McNemar

const tostTwoProportionsAdapter: GoldenAdapter = (fixture) => {
  const { margin, alpha } = fixture.input;
  const cases = withLastCaseFromData<TwoProportionCounts>(fixture, fixture.input.cases, () =>
    twoGroupCountsFromData(fixture),
  );
  const results = cases.map((counts) => {
    const r = tostTwoProportions(counts, margin, alpha);
    return {
      ...counts,
      diff: r.difference,
      se: r.se,
      z_lower: r.zLower,
      p_lower: r.pLower,
      z_upper: r.zUpper,
      p_upper: r.pUpper,
      p_tost: r.pTost,
      equivalent_tost: r.pTost < alpha,
      ci_1_minus_2alpha: r.ciTost,
      equivalent_ci_rule: r.equivalent,
      ci_1_minus_alpha: r.ci,
    };
  });
  return { results };
};

/** Case 1 of fixtures 09/10 is the table of the paired outcome vectors given inline. */
function pairedTables(tables: PairedTable[], fromData: { outcome_a: number[]; outcome_b: number[] } | undefined) {
  if (!fromData) return tables;
  return [pairedTableFromOutcomes(fromData.outcome_a, fromData.outcome_b), ...tables.slice(1)];
}

const pairedDifferenceAdapter: GoldenAdapter = (fixture) => {
  const { alphas, tost_margin: margin } = fixture.input;
  const tables = pairedTables(fixture.input.tables, fixture.input.from_data);
  const results = tables.flatMap((table) =>
    alphas.map((alpha: number) => {
      const r = pairedProportionDifference(table, alpha);
      const tost = tostFromEstimate(r.difference, r.se, margin, alpha);
      return {
        table,
        n: r.n,
        p_a: r.pA,
        p_b: r.pB,
        diff: r.difference,
        se_paired: r.se,
        alpha,
        ci: r.ci,
        se_independent_for_comparison: r.seIndependent,
        tost_margin: margin,
        tost: {
          z_lower: tost.zLower,
          p_lower: tost.pLower,
          z_upper: tost.zUpper,
          p_upper: tost.pUpper,
          p_tost: tost.pTost,
        },
      };
    }),
  );
  return { results };
};

const mcnemarAdapter: GoldenAdapter = (fixture) => {
  const tables = pairedTables(fixture.input.tables, fixture.input.table_1_from_data);
  const results = tables.map((table) => {
    const r = mcnemarTest(table);
    const out: Record<string, unknown> = {
      table,
      b: r.b,
      c: r.c,
      exact: r.exact,
      chi2_corrected: r.chiSquareCorrected,
      chi2_uncorrected: r.chiSquareUncorrected,
    };
    if (r.b === r.c) {
      // What statsmodels 0.13.5 reports when b = c: the correction applied without R's zero rule.
      const statistic = 1 / (r.b + r.c);
      out.chi2_corrected_statsmodels_when_b_eq_c = { statistic, p: chiSquareSf(statistic, 1) };
    }
    return out;
  });
  return { results };
};

// ---------------------------------------------------------------- 11 kappa

const cohensKappaAdapter: GoldenAdapter = (fixture) => {
  const results = fixture.input.cases.map(
    (c: { labels: string[] | null; rater1: string[] | null; rater2: string[] | null; table: number[][] }) => {
      const table = c.labels && c.rater1 && c.rater2 ? agreementTable(c.labels, c.rater1, c.rater2) : c.table;
      const r = cohensKappa(table);
      return {
        table,
        n: r.n,
        p_observed: r.pObserved,
        p_expected: r.pExpected,
        kappa: r.kappa,
        se_kappa: r.se,
        se_kappa_null: r.seNull,
        ci95: r.ci,
        z: r.z,
        p_two_sided: r.pTwoSided,
        p_one_sided: r.pOneSided,
        kappa_max: r.kappaMax,
      };
    },
  );
  return { results };
};

// ---------------------------------------------------------------- 13-16 ranks, isotonic, trend, GOF

const rankCorrelationAdapter: GoldenAdapter = (fixture) => {
  const results = fixture.input.cases.map((c: { name: string; x: number[]; y: number[] }) => {
    const s = spearman(c.x, c.y);
    const k = kendallTauB(c.x, c.y);
    return {
      name: c.name,
      n: s.n,
      has_ties: k.hasTies,
      spearman_rho: s.rho,
      spearman_p: s.p,
      kendall_tau_b: k.tauB,
      kendall_p_asymptotic: k.pAsymptotic,
      kendall_p_auto: k.pAuto,
      kendall_p_auto_method: k.pAutoMethod,
    };
  });
  return { results };
};

const isotonicAdapter: GoldenAdapter = (fixture) => {
  const results = fixture.input.vectors.map((v: { x: number[]; y: number[]; w: number[] }) => ({
    x: v.x,
    y: v.y,
    w: v.w,
    increasing_unweighted: isotonicRegression(v.y),
    increasing_weighted: isotonicRegression(v.y, { weights: v.w }),
    decreasing_unweighted: isotonicRegression(v.y, { increasing: false }),
    decreasing_weighted: isotonicRegression(v.y, { increasing: false, weights: v.w }),
  }));
  return { results };
};

/** Exact enumeration is attempted for designs with at most this many distinct assignments. */
const JT_EXACT_LIMIT = 100_000;

const jonckheereAdapter: GoldenAdapter = (fixture) => {
  const results = fixture.input.cases.map((c: { groups: number[][] }) => {
    const r = jonckheereTerpstra(c.groups);
    const out: Record<string, unknown> = {
      J: r.statistic,
      mean_J: r.mean,
      var_J: r.variance,
      var_J_no_tie_correction: r.varianceWithoutTieCorrection,
      z: r.z,
      p_increasing: r.pIncreasing,
      p_decreasing: r.pDecreasing,
      p_two_sided: r.pTwoSided,
      n_groups: c.groups.length,
      group_sizes: r.groupSizes,
      has_ties: r.hasTies,
    };
    try {
      const exact = jonckheereExact(c.groups, JT_EXACT_LIMIT);
      out.exact_n_assignments = exact.assignments;
      out.exact_p_increasing = exact.pIncreasing;
      out.exact_p_decreasing = exact.pDecreasing;
      out.exact_p_two_sided = exact.pTwoSided;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error; // too many assignments: no exact p
    }
    return out;
  });
  return { results };
};

const chiSquareGofAdapter: GoldenAdapter = (fixture) => {
  const results = fixture.input.cases.map(
    (c: { observed: number[]; expected_probs: number[] | null; ddof: number }) => {
      const r = chiSquareGoodnessOfFit(c.observed, c.expected_probs, c.ddof);
      return {
        observed: c.observed,
        expected_counts: r.expectedCounts,
        ddof: r.ddof,
        df: r.df,
        statistic: r.statistic,
        p: r.p,
      };
    },
  );
  return { results };
};

// ---------------------------------------------------------------- 17 distributions

const distributionsAdapter: GoldenAdapter = (fixture) => {
  const input = fixture.input;
  const chiDfs = Array.from({ length: input.chi2_df_max }, (_, i) => i + 1);
  return {
    norm_cdf: input.norm_cdf_x.map((x: number) => ({ x, value: normalCdf(x) })),
    norm_sf: input.norm_sf_x.map((x: number) => ({ x, value: normalSf(x) })),
    norm_ppf: input.norm_ppf_p.map((p: number) => ({ p, value: normalQuantile(p) })),
    t_cdf: input.t_df.flatMap((df: number) => input.t_cdf_x.map((x: number) => ({ df, x, value: tCdf(x, df) }))),
    t_ppf: input.t_df.flatMap((df: number) => input.t_ppf_p.map((p: number) => ({ df, p, value: tQuantile(p, df) }))),
    chi2_sf: chiDfs.flatMap((df) =>
      input.chi2_sf_x_mult.map((mult: number) => ({ df, x: mult * df, value: chiSquareSf(mult * df, df) })),
    ),
    chi2_ppf: chiDfs.flatMap((df) => input.chi2_ppf_p.map((p: number) => ({ df, p, value: chiSquareQuantile(p, df) }))),
    f_sf: input.f_sf.map(([df1, df2, x]: number[]) => ({ df1, df2, x, value: fSf(x, df1, df2) })),
    binom_cdf: input.binom_cdf.map(([k, n, p]: number[]) => ({ k, n, p, value: binomialCdf(k, n, p) })),
  };
};

// ---------------------------------------------------------------- 18 power and MDE

const POWER_KEYS: [string, PowerDefinition][] = [
  ["pooled_null_unpooled_alt_one_tail", "pooled-null-unpooled-alt-one-tail"],
  ["pooled_null_unpooled_alt_two_tail", "pooled-null-unpooled-alt-two-tail"],
  ["cohens_h", "cohens-h"],
];

const powerMdeAdapter: GoldenAdapter = (fixture) => {
  const { p0, n_per_group: nPerGroup, alpha, power: target } = fixture.input;
  const design = { p0, nPerGroup, alpha };
  const mde: Record<string, Record<string, number | null>> = {
    closed_form_baseline_variance: { delta: closedFormMde(design, target) },
  };
  for (const [key, definition] of POWER_KEYS) {
    const up = minimumDetectableEffect(design, target, definition, "increase");
    const down = minimumDetectableEffect(design, target, definition, "decrease");
    mde[key] = { p1_increase: up.p1, delta_increase: up.delta, p1_decrease: down.p1, delta_decrease: down.delta };
  }
  mde.cohens_h.h = cohensHForPower(design, target);
  mde.cohens_h.h_closed_form_one_tail =
    (normalQuantile(1 - alpha / 2) + normalQuantile(target)) * Math.sqrt(2 / nPerGroup);
  const power: Record<string, Record<string, number>> = {};
  for (const p1 of fixture.input.p1_for_power as number[]) {
    const entry: Record<string, number> = { p1, h: cohensH(p0, p1) };
    for (const [key, definition] of POWER_KEYS) entry[key] = twoProportionPower(design, p1, definition);
    entry.closed_form_baseline_variance = twoProportionPower(design, p1, "closed-form-baseline-variance");
    power[String(p1)] = entry;
  }
  return {
    z_alpha_half: normalQuantile(1 - alpha / 2),
    z_power: normalQuantile(target),
    mde,
    power,
  };
};

// ---------------------------------------------------------------- 19 cluster bootstrap plumbing

const clusterBootstrapAdapter: GoldenAdapter = (fixture) => {
  const input = fixture.input;
  const filter = input.row_filter;
  const rows = filterRows(readCsv(fixture, input.csv), { benchmark: filter.benchmark, model: filter.model }).filter(
    (row) => filter.config_in.includes(row.config),
  );
  const data = clusteredCellCounts(
    {
      cluster: rows.map((row) => row[input.cluster]),
      cell: rows.map((row) => row.config),
      outcome: rows.map((row) => Number(row.outcome)),
    },
    [input.config_a, input.config_b],
  );
  if (JSON.stringify(data.clusters) !== JSON.stringify(input.clusters)) {
    throw new Error("clusters found in the data differ from input.clusters; resample indices would not line up");
  }
  // Components: rd, then the counts behind it, so every replicate can be checked.
  const result = clusterBootstrap(
    data,
    ({ successes, trials }) => [
      successes[0] / trials[0] - successes[1] / trials[1],
      successes[0],
      trials[0],
      successes[1],
      trials[1],
    ],
    { resampleIndices: input.resample_indices, level: input.ci_level },
  );
  const [rd, countA, nA, countB, nB] = result.replicates;
  return {
    point_estimate: result.estimate[0],
    point_counts: {
      count_a: result.estimate[1],
      n_a: result.estimate[2],
      count_b: result.estimate[3],
      n_b: result.estimate[4],
    },
    replicates: Array.from(rd, (value, b) => ({
      rd: value,
      count_a: countA[b],
      n_a: nA[b],
      count_b: countB[b],
      n_b: nB[b],
    })),
    rd_replicates: rd,
    ci_percentile: result.percentileCi[0],
    bootstrap_se_sd_ddof1: result.standardError[0],
  };
};

/** Adapters keyed by fixture `procedure`. */
export const basicProcedures: Record<string, GoldenAdapter> = {
  proportion_ci: proportionCiAdapter,
  two_proportions: twoProportionsAdapter,
  multiple_testing: multipleTestingAdapter,
  tost_two_proportions: tostTwoProportionsAdapter,
  paired_proportion_difference: pairedDifferenceAdapter,
  mcnemar: mcnemarAdapter,
  cohens_kappa: cohensKappaAdapter,
  rank_correlation: rankCorrelationAdapter,
  isotonic_regression: isotonicAdapter,
  jonckheere_terpstra: jonckheereAdapter,
  chisquare_gof: chiSquareGofAdapter,
  distributions: distributionsAdapter,
  power_mde_two_proportions: powerMdeAdapter,
  cluster_bootstrap_deterministic: clusterBootstrapAdapter,
};
