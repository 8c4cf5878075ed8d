/**
 * `npm run test:mutation`: a small mutation check of the statistics, analysis and scoring code.
 *
 * Each mutation below is a deliberate bug: a file, an exact source snippet, its replacement, and
 * the test files that should catch it. The runner
 *
 *  1. checks that every snippet occurs exactly once in its file, and stops with an error naming
 *     the mutation if not (so the list cannot silently go stale after a refactor: update the
 *     snippet when the code moves);
 *  2. copies the working tree (every file git knows, as it is on disk now, plus untracked files
 *     that are not ignored) to a temporary directory, with node_modules symlinked and ../shared
 *     reachable as in the checkout, so the checkout itself is never edited and a Ctrl-C or crash
 *     leaves it untouched;
 *  3. runs the union of the mutations' test files once on the unmutated copy (they must pass,
 *     or "caught" would mean nothing);
 *  4. per mutation: writes the mutated file into the copy, runs that mutation's tests, restores the
 *     file, and records caught (a test failed) or missed (all passed; or timed out, reported apart);
 *  5. prints a table and exits 1 if any mutation was missed.
 *
 * Usage: npm run test:mutation [-- --only id,id] [-- --list] [-- --keep]
 * The catch rate is recorded in docs/TESTING.md.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export interface Mutation {
  id: string;
  /** The bug, in words. */
  description: string;
  /** Path relative to the repository root. */
  file: string;
  /** Exact text that must occur exactly once in the file. */
  find: string;
  replace: string;
  /** Test files (paths relative to the root) that should catch it. */
  tests: string[];
}

const CLUSTER_TEST = "tests/analysis/cluster-resampling.test.ts";
const SCAFFOLD_TEST = "tests/scaffolds/defining-properties.test.ts";
const GATE_TEST = "tests/audit/gate-properties.test.ts";
const INTEGRITY_TEST = "tests/analysis/integrity-properties.test.ts";
const FORMAT_TOST_TEST = "tests/analysis/format-tost.test.ts";
const R_REFERENCE_TEST = "tests/stats/reference-r.test.ts";
const SEQUENTIAL_TEST = "tests/stats/group-sequential.test.ts";
const CLUSTERED_POWER_TEST = "tests/stats/clustered-power.test.ts";
const SEQUENTIAL_CALIBRATION_TEST = "tests/run/sequential-calibration.test.ts";
const COMPARABILITY_TEST = "tests/analysis/comparability.test.ts";

export const MUTATIONS: Mutation[] = [
  {
    id: "contrast-row-resampling",
    description: "the analysis contrast bootstrap resamples rows instead of case clusters",
    file: "src/analysis/core/contrast-model.ts",
    find: "cluster: scored.map((s) => s.row.cluster),",
    replace: "cluster: scored.map((_s, i) => String(i)),",
    tests: [CLUSTER_TEST],
  },
  {
    id: "format-row-resampling",
    description: "the format-gap / recovery bootstrap resamples rows instead of case clusters",
    file: "src/analysis/conditions/format.ts",
    find: "cluster: kept.map((s) => s.row.cluster),",
    replace: "cluster: kept.map((_s, i) => String(i)),",
    tests: [CLUSTER_TEST],
  },
  {
    id: "holm-as-bonferroni",
    description: "Holm's adjustment replaced by Bonferroni",
    file: "src/stats/multiple-testing.ts",
    find: "  holm: holm,",
    replace: "  holm: (p) => p.map((value) => Math.min(1, p.length * value)),",
    tests: ["tests/stats/multiple-testing.test.ts"],
  },
  {
    id: "by-as-bh",
    description: "Benjamini-Yekutieli without its harmonic dependence factor (= BH)",
    file: "src/stats/multiple-testing.ts",
    find: "by: (p) => benjaminiHochberg(p, harmonicNumber(p.length)),",
    replace: "by: (p) => benjaminiHochberg(p, 1),",
    tests: ["tests/stats/multiple-testing.test.ts"],
  },
  {
    id: "hommel-skips-last-step",
    description: "Hommel's closed-testing loop stops one subset size early",
    file: "src/stats/multiple-testing.ts",
    find: "for (let k = m - 1; k >= 2; k--) {",
    replace: "for (let k = m - 1; k >= 3; k--) {",
    tests: ["tests/stats/multiple-testing.test.ts"],
  },
  {
    id: "first-answer-marker",
    description: "the MC extractor takes the first valid answer marker instead of the last",
    file: "src/scoring/mc-extract.ts",
    find: ".sort((a, b) => a.at - b.at)\n    .at(-1);",
    replace: ".sort((a, b) => a.at - b.at)\n    .at(0);",
    tests: ["tests/scoring/mc-extract.test.ts", "tests/scoring/scorers.test.ts"],
  },
  {
    id: "bootstrap-tost-95",
    description: "bootstrap TOST judges equivalence from the 95% instead of the 90% interval",
    file: "src/stats/equivalence.ts",
    find: "percentileInterval(finite, 1 - 2 * alpha)",
    replace: "percentileInterval(finite, 1 - alpha)",
    tests: ["tests/stats/equivalence.test.ts", "tests/stats/equivalence-properties.test.ts", CLUSTER_TEST],
  },
  {
    id: "wald-tost-95",
    description: "Wald TOST uses the 95% instead of the 90% interval",
    file: "src/stats/equivalence.ts",
    find: "const ciTost: Interval = [difference - zOneSided * se, difference + zOneSided * se];",
    replace: "const ciTost: Interval = [difference - zTwoSided * se, difference + zTwoSided * se];",
    tests: ["tests/stats/equivalence.test.ts", "tests/stats/equivalence-properties.test.ts"],
  },
  {
    id: "wald-wrong-df",
    description: "the joint Wald test's p-value uses df + 1",
    file: "src/stats/models/glm.ts",
    find: "p: chiSquareSf(chi2, independent.length),",
    replace: "p: chiSquareSf(chi2, independent.length + 1),",
    tests: ["tests/stats/models-glm.test.ts", CLUSTER_TEST],
  },
  {
    id: "flip-count-off-by-one",
    description: "flip rates count one gained case too many",
    file: "src/stats/paired.ts",
    find: "const n01 = table[1][0];",
    replace: "const n01 = table[1][0] + 1;",
    tests: ["tests/stats/paired.test.ts", CLUSTER_TEST],
  },
  {
    id: "flip-pairs-off-by-one",
    description: "the analysis drops the first matched pair before counting flips",
    file: "src/analysis/conditions/paired.ts",
    find: "const table = pairedTableFromOutcomes(a, b);",
    replace: "const table = pairedTableFromOutcomes(a.slice(1), b.slice(1));",
    tests: [CLUSTER_TEST],
  },
  {
    id: "mcnemar-one-sided",
    description: "McNemar's exact p without the factor 2 (one-sided)",
    file: "src/stats/paired.ts",
    find: "p: Math.min(1, 2 * binomialCdf(smaller, discordant, 0.5)) },",
    replace: "p: Math.min(1, binomialCdf(smaller, discordant, 0.5)) },",
    tests: ["tests/stats/paired.test.ts"],
  },
  {
    id: "cluster-no-small-sample-factor",
    description: "cluster-robust covariance without the (N-1)/(N-K) part of the small-sample factor",
    file: "src/stats/models/glm.ts",
    find: "clusterCorrection = (g / (g - 1)) * ((n - 1) / (n - k));",
    replace: "clusterCorrection = g / (g - 1);",
    tests: ["tests/stats/models-glm.test.ts"],
  },
  {
    id: "percentile-ci-one-tail",
    description: "the bootstrap percentile CI puts all of 1 - level in the lower tail",
    file: "src/stats/bootstrap.ts",
    find: "quantileSorted(finite, (1 - level) / 2)",
    replace: "quantileSorted(finite, 1 - level)",
    tests: ["tests/stats/bootstrap.test.ts"],
  },
  {
    id: "recovery-wrong-numerator",
    description: "recovery % measured from the reference instead of from the standard variant",
    file: "src/analysis/conditions/format.ts",
    find: "loss > 0 ? (pPres - pStd) / loss : Number.NaN",
    replace: "loss > 0 ? (pRef - pPres) / loss : Number.NaN",
    tests: [CLUSTER_TEST],
  },
  {
    id: "reference-rate-wald-ci",
    description: "the contrast's reference rate gets a Wald instead of a Wilson interval",
    file: "src/analysis/core/contrast-model.ts",
    find: 'ci95: proportionCi(successes, n, 0.05, "wilson")',
    replace: 'ci95: proportionCi(successes, n, 0.05, "wald")',
    tests: [CLUSTER_TEST],
  },
  {
    id: "itt-parse-failure-safe",
    description: "intention-to-treat scores a parse failure as safe (1) instead of unsafe (0)",
    file: "src/analysis/core/row.ts",
    find: 'if (row.parseFailed) return population === "itt" ? 0 : null;',
    replace: 'if (row.parseFailed) return population === "itt" ? 1 : null;',
    tests: ["tests/analysis/populations.test.ts"],
  },
  {
    id: "map-calls-get-options",
    description: "standard map-reduce passes the MC options to its map calls (as the option-preserving variant does)",
    file: "src/scaffolds/map-reduce.ts",
    find: "const options = preserveOptions ? renderOptions(task) : undefined;",
    replace: "const options = renderOptions(task);",
    tests: [SCAFFOLD_TEST],
  },
  {
    id: "react-drops-own-replies",
    description: "ReAct feeds back the observation but not the model's own previous turn",
    file: "src/scaffolds/react.ts",
    find: 'messages.push({ role: "assistant", content: reply }, { role: "user", content: next });',
    replace: 'messages.push({ role: "user", content: next });',
    tests: [SCAFFOLD_TEST],
  },
  {
    id: "critic-revision-without-critique",
    description: "the critic's revision call does not receive the critique",
    file: "src/scaffolds/critic.ts",
    find: "content: revisionRequest(critique) }",
    replace: 'content: revisionRequest("") }',
    tests: [SCAFFOLD_TEST],
  },
  {
    id: "audit-parse-failure-kept",
    description: "the audit cell keeps a parse failure's ITT score 0 instead of dropping its pairs symmetrically",
    file: "src/analysis/audit/cells.ts",
    find: "const score = row.errored || row.outcome === null || row.parseFailed ? null : row.outcome;",
    replace: "const score = row.errored || row.outcome === null ? null : row.outcome;",
    tests: [GATE_TEST],
  },
  {
    id: "audit-parseability-drops-miss-parse-failures",
    description: "G1's parseability half counts a parse failure (outcome 0) as a parsed side of its pair",
    file: "src/analysis/audit/cells.ts",
    find: "const unparsed = (row: AnalysisRow) => row.errored || row.outcome === null || row.parseFailed;",
    replace: "const unparsed = (row: AnalysisRow) => row.errored || row.outcome === null;",
    tests: [GATE_TEST],
  },
  {
    id: "status-archetype-before-scorer",
    description: "the status algorithm checks the archetype (step 4) before the scorer (step 3)",
    file: "src/perturb/gate.ts",
    find: `  if (!e.scorerValidated) return result(3, "uninterpretable_scorer", "the benchmark's scorer is not validated");
  // 4. ineligible (F5-type): archetype-mismatched under CSR-as-defined.
  if (archetypeMismatch)
    return result(4, "attribute_family_mismatch", \`archetype \${e.archetype}: CSR is a diagnostic ratio\`);`,
    replace: `  if (archetypeMismatch)
    return result(4, "attribute_family_mismatch", \`archetype \${e.archetype}: CSR is a diagnostic ratio\`);
  if (!e.scorerValidated) return result(3, "uninterpretable_scorer", "the benchmark's scorer is not validated");`,
    tests: [GATE_TEST],
  },
  {
    id: "g2-se-at-score",
    description: "G2's standard error taken at the score instead of under the null (at the baseline)",
    file: "src/perturb/gate.ts",
    find: "Math.sqrt((baseline * (1 - baseline)) / n)",
    replace: "Math.sqrt((score * (1 - score)) / n)",
    tests: [GATE_TEST],
  },
  {
    id: "parse-imbalance-one-sided",
    description: "the parse-failure imbalance is one-sided (own - reference, not its absolute value)",
    file: "src/analysis/integrity/parse-imbalance.ts",
    find: "const gap = Math.abs(own - base);",
    replace: "const gap = own - base;",
    tests: [INTEGRITY_TEST],
  },
  {
    id: "gate-contrast-ignores-reference",
    description: "a failing reference cell no longer downgrades the contrasts that use it",
    file: "src/analysis/conditions/contrasts-analysis.ts",
    find: "gate.cellFailure(benchmark, [contrast.condition, gate.reference])",
    replace: "gate.cellFailure(benchmark, [contrast.condition])",
    tests: [INTEGRITY_TEST],
  },
  {
    id: "gate-flips-ignore-reference",
    description: "a failing reference cell no longer downgrades the paired flips that use it",
    file: "src/analysis/conditions/paired-analysis.ts",
    find: "gate.cellFailure(benchmark, [flip.condition, gate.reference])",
    replace: "gate.cellFailure(benchmark, [flip.condition])",
    tests: [INTEGRITY_TEST],
  },
  {
    id: "gate-format-ignores-reference",
    description: "a failing reference cell no longer downgrades the within-format TOST that reads it",
    file: "src/analysis/comparison/format-analysis.ts",
    find: "gate.cellFailure(null, [w.condition, gate.reference])",
    replace: "gate.cellFailure(null, [w.condition])",
    tests: [INTEGRITY_TEST],
  },
  {
    id: "gate-recovery-ignores-reference",
    description: "a failing reference cell no longer downgrades the option-preserving recovery",
    file: "src/analysis/comparison/option-preserving-analysis.ts",
    find: "gate.cellFailure(null, [gate.reference, op.standard, op.preserving])",
    replace: "gate.cellFailure(null, [op.standard, op.preserving])",
    tests: [INTEGRITY_TEST],
  },
  {
    id: "within-format-tost-95",
    description: "the within-format TOST judges equivalence on the 95% instead of the 90% interval",
    file: "src/analysis/conditions/format.ts",
    find: "tostFromBootstrap(result.replicates[k], plan.equivalence.margin, plan.equivalence.alpha)",
    replace: "tostFromBootstrap(result.replicates[k], plan.equivalence.margin, plan.equivalence.alpha / 2)",
    tests: [FORMAT_TOST_TEST],
  },
  {
    id: "within-format-tost-80",
    description: "the within-format TOST judges equivalence on the 80% instead of the 90% interval",
    file: "src/analysis/conditions/format.ts",
    find: "tostFromBootstrap(result.replicates[k], plan.equivalence.margin, plan.equivalence.alpha)",
    replace: "tostFromBootstrap(result.replicates[k], plan.equivalence.margin, plan.equivalence.alpha * 2)",
    tests: [FORMAT_TOST_TEST],
  },
  {
    id: "mcnemar-corrected-without-minus-one",
    description: "McNemar's continuity-corrected statistic without its -1",
    file: "src/stats/paired.ts",
    find: "(Math.abs(b - c) - 1) ** 2 / discordant",
    replace: "Math.abs(b - c) ** 2 / discordant",
    tests: [R_REFERENCE_TEST],
  },
  {
    id: "wilson-one-sided-z",
    description: "the Wilson interval built with the one-sided z (z_(1 - alpha) instead of z_(1 - alpha/2))",
    file: "src/stats/proportions.ts",
    find: "      return wilsonInterval(count, nobs, z);",
    replace: "      return wilsonInterval(count, nobs, normalQuantile(1 - alpha));",
    tests: [R_REFERENCE_TEST],
  },
  {
    id: "import-drops-simulated-label",
    description: "an import ignores the SIMULATED label of the records it reads",
    file: "src/interop/study.ts",
    find: "    simulated: sample.simulated ?? false,",
    replace: "    simulated: false,",
    tests: ["tests/interop/provenance.test.ts"],
  },
  {
    id: "parquet-type-from-data",
    description: "a Parquet number column whose values are all whole (or all null) is written INT32",
    file: "src/run/export/parquet.ts",
    find: "    const parquetType = PARQUET_TYPE[type];",
    replace:
      '    const parquetType = type === "number" && rows.every((r) => Number.isInteger(r[name] ?? 0)) ? "INT32" : PARQUET_TYPE[type];',
    tests: ["tests/interop/parquet.test.ts"],
  },
  {
    id: "pocock-spending-without-e-minus-1",
    description: "Pocock-type spending alpha ln(1 + e t) instead of alpha ln(1 + (e - 1) t)",
    file: "src/stats/group-sequential.ts",
    find: "Math.log(1 + (Math.E - 1) * fraction)",
    replace: "Math.log(1 + Math.E * fraction)",
    tests: [SEQUENTIAL_TEST],
  },
  {
    id: "obrien-fleming-spending-one-sided-z",
    description: "O'Brien-Fleming-type spending with z_(1 - a) instead of z_(1 - a/2)",
    file: "src/stats/group-sequential.ts",
    find: "normalQuantile(1 - alphaPerSide / 2) / Math.sqrt(fraction)",
    replace: "normalQuantile(1 - alphaPerSide) / Math.sqrt(fraction)",
    tests: [SEQUENTIAL_TEST],
  },
  {
    id: "sequential-recursion-without-drift",
    description: "the look-to-look recursion forgets the drift of the score's increment",
    file: "src/stats/group-sequential.ts",
    find: "    const mean = points[j] + drift * step;",
    replace: "    const mean = points[j];",
    tests: [SEQUENTIAL_TEST],
  },
  {
    id: "sequential-simpson-weights-swapped",
    description: "Simpson's rule with the 4 and 2 weights swapped",
    file: "src/stats/group-sequential.ts",
    find: "i % 2 === 1 ? 4 : 2",
    replace: "i % 2 === 1 ? 2 : 4",
    tests: [SEQUENTIAL_TEST],
  },
  {
    id: "clustered-variance-without-items",
    description: "the item-difference variance drops the between-item spread of the effect",
    file: "src/stats/clustered-power.ts",
    find: "  return (discordant - meanSquare) / r + flip * flip * itemVariance;",
    replace: "  return (discordant - meanSquare) / r;",
    tests: [CLUSTERED_POWER_TEST],
  },
  {
    id: "pilot-discordance-keeps-effect",
    description: "a pilot's discordance is used with its own effect still in it",
    file: "src/stats/clustered-power.ts",
    find: "const share = (observed - side * flip) / (2 * (1 - flip) * within);",
    replace: "const share = observed / (2 * (1 - flip) * within);",
    tests: [CLUSTERED_POWER_TEST],
  },
  {
    id: "sequential-look-fixed-boundary",
    description: "every look tested at the fixed-sample 1.96 instead of its spending boundary",
    file: "src/run/sequential/monitor.ts",
    find: "  const critical = boundaries.effect.critical[look];",
    replace: "  const critical = 1.959964;",
    tests: [SEQUENTIAL_CALIBRATION_TEST],
  },
  {
    id: "contrast-pairs-union",
    description: "a contrast pairs the union of the two sides' cases instead of the cases both share",
    file: "src/analysis/core/contrast-model.ts",
    find: "const shared = intersect(design.get(setup.reference) ?? empty, design.get(condition) ?? empty);",
    replace:
      "const shared = new Set([...(design.get(setup.reference) ?? empty), ...(design.get(condition) ?? empty)]);",
    tests: [COMPARABILITY_TEST],
  },
  {
    id: "min-cases-not-read",
    description: "the minimum-information check fails a contrast only with no shared case (its min_cases unread)",
    file: "src/analysis/integrity/min-information.ts",
    find: "if (n < minCases) {",
    replace: "if (n < 1) {",
    tests: [COMPARABILITY_TEST],
  },
  {
    id: "interaction-coefficients-without-block",
    description: "few_clusters counts an interaction test's coefficients without its interaction block",
    file: "src/analysis/integrity/few-clusters.ts",
    find: "const coefficients = modelCoefficients(fitted, comparisonFacet) + (compared - 1) * (levels - 1);",
    replace: "const coefficients = modelCoefficients(fitted, comparisonFacet);",
    tests: [COMPARABILITY_TEST],
  },
  {
    id: "agreement-on-outcome",
    description:
      "raters of the compliance rubric compared on the outcome (label matched to the expected behaviour), not the behaviour",
    file: "src/scoring/judge/rubrics.ts",
    find: 'rate: (label) => (label === "full_compliance" || label === "compliance" ? "complied" : "refused"),',
    replace:
      'rate: (label, item) => ((label === "full_compliance" || label === "compliance") === (item.metadata.expected_behavior !== "refuse") ? "complied" : "refused"),',
    tests: ["tests/scoring/judge-agreement.test.ts"],
  },
  {
    id: "families-primary-not-restricted",
    description: "with study families, the main analysis reads every row instead of the primary family's",
    file: "src/analysis/core/families.ts",
    find: "const rows = familyRows(primary, table.rows);",
    replace: "const rows = table.rows;",
    tests: ["tests/analysis/families.test.ts"],
  },
  {
    id: "families-shared-counted-alone",
    description: "a trial only one family includes is counted as shared",
    file: "src/run/plan/plan.ts",
    find: "if (owners.length > 1) shared += sharedOf(index, benchmarkId, owners);",
    replace: "if (owners.length >= 1) shared += ids.length;",
    tests: ["tests/run/families.test.ts"],
  },
  {
    id: "quantization-delta-unsigned",
    description: "the per-cell quantization delta loses its sign (|b - a| instead of b - a)",
    file: "src/analysis/grid/robustness.ts",
    find: "delta: p.b - p.a }))",
    replace: "delta: Math.abs(p.b - p.a) }))",
    tests: ["tests/analysis/grid-quantization.test.ts"],
  },
];

const root = resolve(import.meta.dirname, "..");

function parseArgs(argv: string[]): { only: Set<string> | null; list: boolean; keep: boolean; timeout: number } {
  let only: Set<string> | null = null;
  let timeout = 600;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--only") only = new Set(argv[++i].split(","));
    else if (argv[i] === "--timeout") timeout = Number(argv[++i]);
  }
  return { only, list: argv.includes("--list"), keep: argv.includes("--keep"), timeout };
}

/** Every snippet must occur exactly once; returns the problems (empty when the list is honest). */
export function checkSnippets(mutations: readonly Mutation[], base = root): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const m of mutations) {
    if (ids.has(m.id)) problems.push(`${m.id}: duplicate id`);
    ids.add(m.id);
    const path = join(base, m.file);
    if (!existsSync(path)) {
      problems.push(`${m.id}: ${m.file} does not exist`);
      continue;
    }
    const text = readFileSync(path, "utf8");
    const count = text.split(m.find).length - 1;
    if (count !== 1) problems.push(`${m.id}: snippet found ${count} times in ${m.file} (expected once): ${m.find}`);
    if (m.find === m.replace) problems.push(`${m.id}: the replacement equals the snippet`);
    for (const t of m.tests) if (!existsSync(join(base, t))) problems.push(`${m.id}: test file ${t} does not exist`);
    if (m.tests.length === 0) problems.push(`${m.id}: no test files`);
  }
  return problems;
}

/** Copies the working tree (tracked and untracked-but-not-ignored files) into dir/repo. */
function copyTree(dir: string): string {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const copy = join(dir, "repo");
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    const from = join(root, file);
    if (!existsSync(from) || file === "node_modules" || file.startsWith("node_modules/")) continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(from, join(copy, file), { dereference: false });
  }
  symlinkSync(realpathSync(join(root, "node_modules")), join(copy, "node_modules"));
  const shared = resolve(root, "..", "shared");
  if (existsSync(shared)) symlinkSync(realpathSync(shared), join(dir, "shared"));
  return copy;
}

function runTests(copy: string, tests: readonly string[], timeoutSeconds: number) {
  const started = Date.now();
  const result = spawnSync(process.execPath, ["scripts/test.mjs", ...tests], {
    cwd: copy,
    encoding: "utf8",
    timeout: timeoutSeconds * 1000,
    killSignal: "SIGKILL",
    maxBuffer: 256 * 1024 * 1024,
    env: {
      ...process.env,
      PARALLAX_GOLDEN_DIR: process.env.PARALLAX_GOLDEN_DIR ?? join(copy, "..", "shared", "golden"),
    },
  });
  const seconds = (Date.now() - started) / 1000;
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  const failed = [...output.matchAll(/^\s*✖ (.+?) \(\d/gm)].map((m) => m[1]).filter((t) => !t.startsWith("failing"));
  return { status: result.status, timedOut: result.error !== undefined || result.signal !== null, seconds, failed };
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const selected = MUTATIONS.filter((m) => !args.only || args.only.has(m.id));
  if (args.only) {
    const unknown = [...args.only].filter((id) => !MUTATIONS.some((m) => m.id === id));
    if (unknown.length) throw new Error(`unknown mutation id(s): ${unknown.join(", ")}`);
  }
  const problems = checkSnippets(MUTATIONS);
  if (problems.length) {
    console.error("mutation list is stale (update scripts/mutation.ts):");
    for (const p of problems) console.error(`  ${p}`);
    process.exit(2);
  }
  if (args.list) {
    for (const m of selected) console.log(`${m.id.padEnd(32)} ${m.file.padEnd(32)} ${m.description}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "parallax-mutation-"));
  const cleanup = () => {
    if (!args.keep) rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", cleanup);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping; the checkout was never modified`);
      process.exit(130);
    });
  }
  const copy = copyTree(dir);
  console.log(`working copy: ${copy}`);

  const allTests = [...new Set(selected.flatMap((m) => m.tests))].sort();
  console.log(`baseline: ${allTests.length} test file(s) on the unmutated copy ...`);
  const baseline = runTests(copy, allTests, args.timeout * 2);
  if (baseline.status !== 0) {
    console.error(`baseline failed (${baseline.failed.join("; ") || "see the test output"}): fix the tests first`);
    process.exit(2);
  }
  console.log(`baseline passed in ${baseline.seconds.toFixed(0)} s`);

  const rows: { m: Mutation; verdict: "caught" | "MISSED" | "timeout"; seconds: number; by: string }[] = [];
  for (const m of selected) {
    const path = join(copy, m.file);
    const original = readFileSync(path, "utf8");
    writeFileSync(path, original.replace(m.find, m.replace));
    let run: ReturnType<typeof runTests>;
    try {
      run = runTests(copy, m.tests, args.timeout);
    } finally {
      writeFileSync(path, original);
    }
    const verdict = run.timedOut ? "timeout" : run.status !== 0 ? "caught" : "MISSED";
    rows.push({ m, verdict, seconds: run.seconds, by: run.failed.slice(0, 2).join("; ") });
    console.log(
      `${verdict.padEnd(7)} ${m.id} (${run.seconds.toFixed(0)} s)${run.failed.length ? `: ${run.failed[0]}` : ""}`,
    );
  }
  const caught = rows.filter((r) => r.verdict === "caught").length;
  console.log(`\n| mutation | file | result | first failing test |\n| --- | --- | --- | --- |`);
  for (const r of rows) console.log(`| ${r.m.id} | ${r.m.file} | ${r.verdict} | ${r.by.replaceAll("|", "/")} |`);
  console.log(`\ncaught ${caught} of ${rows.length} mutations`);
  process.exitCode = caught === rows.length ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
