/**
 * `plan --power` against a brute-force simulation of the quickstart as `analyze` tests it. The
 * quickstart crosses scaffold with format on the same items, so `analyze` tests each scaffold
 * against direct within each format: at format mc, on the mc rows only (each item's pairs are its
 * models'), by the cluster-robust Wald test of the scaffold's coefficient in
 * outcome ~ scaffold + model (analyzeScope, the code `analyze` runs). Here the quickstart's
 * rows are drawn many times from the documented generative model (docs/ANALYSIS.md, "Power":
 * item rates from a Beta with the assumed baseline and icc, each condition repeating the
 * reference's outcome except with the switch probability that gives the assumed discordance,
 * the minimum effect turning successes into failures), in both formats; that test runs on each
 * draw's mc rows and the rejections are counted. The printed power must match within Monte Carlo
 * error, and must not be the power of a design that counts both formats' pairs per item.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { analyzeScope, termFacets } from "../../src/analysis/core/contrast-model.js";
import type { ScoredRow } from "../../src/analysis/core/data.js";
import { clusterKey, normalizePlan } from "../../src/analysis/index.js";
import { betaQuantile } from "../../src/stats/distributions.js";
import { simulateClusteredPower } from "../../src/stats/clustered-power.js";
import { RandomStream } from "../../src/stats/random.js";
import { runCli } from "../helpers/cli.js";

const QUICKSTART = join(import.meta.dirname, "..", "..", "examples", "quickstart.yaml");
const SIMULATIONS = 1000;

interface PrintedRow {
  level: string;
  format?: string;
  design: { clusters: number; pairsPerCluster: number; baseline: number; icc: number; discordance: number };
  power: { rate: number; monteCarloSe: number };
}

/** The quickstart's design read from its spec: items, models, attempts and the facets' levels. */
function quickstartDesign() {
  const spec = parse(readFileSync(QUICKSTART, "utf8"));
  return {
    items: spec.benchmarks.flatMap((b: { items: { id: string }[] }) => b.items.map((i) => i.id)) as string[],
    models: spec.models.map((m: { id: string }) => m.id) as string[],
    attempts: (spec.attempts ?? 1) as number,
    scaffolds: spec.conditions.facets.scaffold as string[],
    formats: spec.conditions.facets.format as string[],
  };
}

/**
 * One simulated quickstart: every item, model, scaffold and format. Conditions other than the
 * compared one have no effect; the compared one moves the rate by `effect` (< 0: a success
 * becomes a failure with probability |effect| / baseline).
 */
function drawStudy(
  stream: RandomStream,
  design: ReturnType<typeof quickstartDesign>,
  assumed: PrintedRow["design"],
  compared: string,
  effect: number,
): ScoredRow[] {
  const { baseline: p, icc, discordance } = assumed;
  const total = (1 - icc) / icc;
  const switchShare = discordance / (2 * p * (1 - p) * (1 - icc));
  const flip = -effect / p;
  const rows: ScoredRow[] = [];
  for (const item of design.items) {
    const u = betaQuantile(stream.uniform(), p * total, (1 - p) * total);
    for (const model of design.models) {
      for (const format of design.formats) {
        for (let attempt = 1; attempt <= design.attempts; attempt++) {
          const reference = stream.uniform() < u ? 1 : 0;
          for (const scaffold of design.scaffolds) {
            let y = reference;
            if (scaffold !== "direct" && stream.uniform() < switchShare) y = stream.uniform() < u ? 1 : 0;
            if (scaffold === compared && y === 1 && stream.uniform() < flip) y = 0;
            const row = {
              trialId: null,
              model,
              benchmark: "demo",
              item,
              cluster: clusterKey("demo", item),
              attempt,
              facets: { scaffold, format },
              outcome: y,
              parseFailed: false,
              errored: false,
              simulated: true,
            };
            rows.push({ row, y });
          }
        }
      }
    }
  }
  return rows;
}

test("plan --power on the quickstart is the power of analyze's within-format test, by brute-force simulation", () => {
  const result = runCli(["plan", QUICKSTART, "--power", "--json"]);
  assert.equal(result.status, 0, result.stderr);
  const { power } = JSON.parse(result.stdout) as {
    power: { contrasts: PrintedRow[]; alpha: number; plan: { minimum_effect: number; direction: string } };
  };
  const design = quickstartDesign();
  const printed = power.contrasts.find((c) => c.level === "map_reduce" && c.format === "mc");
  if (!printed) assert.fail(`no row for map_reduce at format mc: ${power.contrasts.map((c) => c.level)}`);
  assert.equal(printed.design.clusters, design.items.length, "every item is a cluster of the mc test");
  assert.equal(
    printed.design.pairsPerCluster,
    design.models.length * design.attempts,
    "pairs per item: the models' pairs within one format",
  );

  const effect = power.plan.direction === "decrease" ? -power.plan.minimum_effect : power.plan.minimum_effect;
  const plan = normalizePlan({ bootstrap: { resamples: 100 } });
  const setup = {
    comparisonFacet: "scaffold",
    reference: "direct",
    covariateFacets: termFacets(["scaffold", "format"], "scaffold"),
  };
  const stream = RandomStream.fromSeed(20260);
  let rejections = 0;
  for (let s = 0; s < SIMULATIONS; s++) {
    const mc = drawStudy(stream, design, printed.design, "map_reduce", effect).filter(
      (r) => r.row.facets.format === "mc",
    );
    const scope = analyzeScope("pooled", mc, { population: "itt", levels: design.scaffolds, setup, plan });
    const or = scope.contrasts.find((c) => c.condition === "map_reduce")?.oddsRatio;
    if (or && !("error" in or) && or.p < power.alpha) rejections++;
  }
  const brute = rejections / SIMULATIONS;
  const bruteSe = Math.sqrt((brute * (1 - brute)) / SIMULATIONS);
  const se = Math.hypot(bruteSe, printed.power.monteCarloSe);
  assert.ok(
    Math.abs(brute - printed.power.rate) < 3 * se,
    `printed power ${printed.power.rate} vs brute force ${brute} (Monte Carlo SE of the difference ${se.toFixed(4)})`,
  );
  // Counting both formats' pairs per item would print a power the analysed test does not have.
  const bothFormats = simulateClusteredPower(
    { ...printed.design, pairsPerCluster: printed.design.pairsPerCluster * design.formats.length },
    effect,
    power.alpha,
    { simulations: 2000, seed: 42 },
  );
  assert.ok(
    Math.abs(brute - bothFormats.rate) > 3 * Math.hypot(bruteSe, bothFormats.monteCarloSe),
    `the brute force ${brute} tells the within-format design from the both-formats one (${bothFormats.rate})`,
  );
});
