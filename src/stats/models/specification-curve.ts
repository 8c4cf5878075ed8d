// Specification-curve analysis (Simonsohn, Simmons & Nelson 2020), as ScaffoldSafety uses it
// (Sec. 6.5, App. Q.3.5): enumerate every combination of the researcher degrees of freedom, run the
// analysis under each, and summarize the curve by its median estimate, interquartile range and
// share of significant specifications.
//
// Inference (the paper's "permutation test"): under H0 the treatment labels are exchangeable, so
// each permutation k shuffles the labels ONCE and reruns every specification on that shuffled
// data, giving a null curve. The observed curve's statistics (|median estimate|, share significant,
// share significant in the observed median's direction) are compared with the null curves:
// p = (1 + #{null >= observed}) / (1 + K) (Phipson & Smyth 2010; never 0).
// The caller owns the data, so it supplies `analyzePermuted(spec, permute)`: `permute` shuffles an
// array with permutation k's fixed seed, identically for every specification in that permutation.
// Or it supplies `nullCurves(specs, seeds)`, every permutation's results at once (from the same
// seeds, so the null distribution is the same however the caller computes it).
// Permute at the level of the exchangeable unit: with paired / clustered data (each case seen under
// every configuration), shuffle configuration labels within each case, not across all rows.
//
// Specifications run sequentially, in enumeration order (first dimension varies slowest).
import { percentile } from "./generalizability.js";
import { seededRandom } from "../random.js";

export type OptionValue = string | number | boolean;

export interface Dimension {
  name: string;
  options: readonly OptionValue[];
}

export type Specification = Readonly<Record<string, OptionValue>>;

export interface SpecificationResult {
  estimate: number;
  p: number;
}

/** Permutation k's analysis of one specification (the null curves computed one fit at a time). */
export type AnalyzePermuted = (
  spec: Specification,
  permute: <T>(items: readonly T[]) => T[],
  /** Permutation k's seed (the one `permute` uses), for callers that draw their own shuffle. */
  permutationSeed: number,
) => SpecificationResult | Promise<SpecificationResult>;

/**
 * Every null curve at once: `seeds[k]` is permutation k's seed, and the answer's k-th entry its
 * results in the order of `specs` (for callers that spread the permutations over threads).
 */
export type NullCurves = (
  specs: readonly Specification[],
  seeds: readonly number[],
) => Promise<SpecificationResult[][]>;

export type PermutationOptions = { count: number; seed: number } & (
  | { analyzePermuted: AnalyzePermuted }
  | { nullCurves: NullCurves }
);

export interface CurveSummary {
  n: number;
  median: number;
  q1: number;
  q3: number;
  iqr: number;
  min: number;
  max: number;
  shareSignificant: number;
  /** Share significant with the sign of the median estimate. */
  shareSignificantInDirection: number;
}

export interface SpecificationCurve<R extends SpecificationResult> {
  specifications: { spec: Specification; result: R }[];
  summary: CurveSummary;
  alpha: number;
  permutation?: {
    count: number;
    pMedian: number;
    pShareSignificant: number;
    pShareSignificantInDirection: number;
    nullSummaries: CurveSummary[];
  };
}

/** Every combination of the dimensions' options (cartesian product, first dimension slowest). */
export function enumerateSpecifications(dimensions: readonly Dimension[]): Specification[] {
  let specs: Record<string, OptionValue>[] = [{}];
  for (const d of dimensions) {
    if (d.options.length === 0) throw new Error(`dimension '${d.name}' has no options`);
    specs = specs.flatMap((s) => d.options.map((o) => ({ ...s, [d.name]: o })));
  }
  return specs;
}

export function summarizeCurve(results: readonly SpecificationResult[], alpha: number): CurveSummary {
  const estimates = results.map((r) => r.estimate).sort((a, b) => a - b);
  const median = percentile(estimates, 0.5);
  const q1 = percentile(estimates, 0.25);
  const q3 = percentile(estimates, 0.75);
  const significant = results.filter((r) => r.p < alpha);
  const direction = Math.sign(median);
  return {
    n: results.length,
    median,
    q1,
    q3,
    iqr: q3 - q1,
    min: estimates[0],
    max: estimates[estimates.length - 1],
    shareSignificant: significant.length / results.length,
    shareSignificantInDirection:
      direction === 0 ? 0 : significant.filter((r) => Math.sign(r.estimate) === direction).length / results.length,
  };
}

export async function runSpecificationCurve<R extends SpecificationResult>(options: {
  dimensions: readonly Dimension[];
  analyze: (spec: Specification) => R | Promise<R>;
  alpha?: number;
  permutation?: PermutationOptions;
  /** Keeps only the combinations it accepts (choices that do not combine are left out). */
  include?: (spec: Specification) => boolean;
}): Promise<SpecificationCurve<R>> {
  const alpha = options.alpha ?? 0.05;
  const all = enumerateSpecifications(options.dimensions);
  const specs = options.include ? all.filter(options.include) : all;
  const specifications: { spec: Specification; result: R }[] = [];
  for (const spec of specs) specifications.push({ spec, result: await options.analyze(spec) });
  const summary = summarizeCurve(
    specifications.map((s) => s.result),
    alpha,
  );
  const curve: SpecificationCurve<R> = { specifications, summary, alpha };
  if (options.permutation) curve.permutation = await permutationTest(specs, summary, alpha, options.permutation);
  return curve;
}

/** Permutation k's seed, k = 0..count-1: the k-th draw of the test's seed. */
export function permutationSeeds(seed: number, count: number): number[] {
  const seeds = seededRandom(seed);
  return Array.from({ length: count }, () => seeds.int(2 ** 31));
}

/** The null curves one fit at a time, permutation by permutation, in specification order. */
async function nullCurvesInTurn(
  specs: readonly Specification[],
  seeds: readonly number[],
  analyzePermuted: AnalyzePermuted,
): Promise<SpecificationResult[][]> {
  const curves: SpecificationResult[][] = [];
  for (const permutationSeed of seeds) {
    const permute = <T>(items: readonly T[]) => seededRandom(permutationSeed).shuffle(items);
    const results: SpecificationResult[] = [];
    for (const spec of specs) results.push(await analyzePermuted(spec, permute, permutationSeed));
    curves.push(results);
  }
  return curves;
}

async function permutationTest(
  specs: Specification[],
  observed: CurveSummary,
  alpha: number,
  options: PermutationOptions,
) {
  const seeds = permutationSeeds(options.seed, options.count);
  const curves =
    "nullCurves" in options
      ? await options.nullCurves(specs, seeds)
      : await nullCurvesInTurn(specs, seeds, options.analyzePermuted);
  const direction = Math.sign(observed.median);
  const nullSummaries = curves.map((results) => summarizeCurve(results, alpha));
  // Null curves are judged in the OBSERVED median's direction.
  const nullDirectional = curves.map((results) =>
    direction === 0
      ? 0
      : results.filter((r) => r.p < alpha && Math.sign(r.estimate) === direction).length / results.length,
  );
  const pValue = (nulls: number[], stat: number) => (1 + nulls.filter((v) => v >= stat).length) / (1 + options.count);
  return {
    count: options.count,
    pMedian: pValue(
      nullSummaries.map((s) => Math.abs(s.median)),
      Math.abs(observed.median),
    ),
    pShareSignificant: pValue(
      nullSummaries.map((s) => s.shareSignificant),
      observed.shareSignificant,
    ),
    pShareSignificantInDirection: pValue(nullDirectional, observed.shareSignificantInDirection),
    nullSummaries,
  };
}
