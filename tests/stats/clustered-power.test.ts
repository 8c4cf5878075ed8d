import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  type ClusteredPairedDesign,
  clusterDifferenceVariance,
  closedFormClusteredMde,
  closedFormClusteredPower,
  closedFormEquivalencePower,
  anovaIcc,
  drawClusterDifferences,
  maximumDiscordance,
  nullDiscordance,
  simulateClusteredEquivalence,
  simulateClusteredPower,
} from "../../src/stats/clustered-power.js";
import { contrastPower } from "../../src/stats/contrast-power.js";
import { normalCdf, normalQuantile } from "../../src/stats/distributions.js";
import { RandomStream } from "../../src/stats/random.js";
import { needsSharedData } from "../helpers/prerequisites.js";

// Beta(3, 1) has mean 0.75 and variance 3 / (16 x 5) = 0.0375 = 0.2 x 0.75 x 0.25: icc 0.2.
const DESIGN: ClusteredPairedDesign = { clusters: 120, pairsPerCluster: 4, baseline: 0.75, icc: 0.2, discordance: 0.2 };

/**
 * The design simulated trial by trial, written independently of the module: u = U^(1/3) draws
 * Beta(3, 1); each pair's condition outcome repeats the reference's except with probability s,
 * when it is drawn afresh; a harmful effect then turns a success into a failure with probability |d| / p.
 */
function bruteForceRejections(design: ClusteredPairedDesign, effect: number, simulations: number, seed: number) {
  const stream = RandomStream.fromSeed(seed);
  const p = design.baseline;
  const s = design.discordance / (2 * p * (1 - p) * (1 - design.icc));
  const flipDown = effect < 0 ? -effect / p : 0;
  const z = normalQuantile(0.975);
  let rejected = 0;
  for (let sim = 0; sim < simulations; sim++) {
    const means: number[] = [];
    for (let i = 0; i < design.clusters; i++) {
      const u = stream.uniform() ** (1 / 3);
      let total = 0;
      for (let j = 0; j < design.pairsPerCluster; j++) {
        const reference = stream.uniform() < u ? 1 : 0;
        let condition = stream.uniform() < s ? (stream.uniform() < u ? 1 : 0) : reference;
        if (condition === 1 && stream.uniform() < flipDown) condition = 0;
        total += condition - reference;
      }
      means.push(total / design.pairsPerCluster);
    }
    const mean = means.reduce((a, b) => a + b, 0) / means.length;
    const variance = means.reduce((a, b) => a + (b - mean) ** 2, 0) / (means.length - 1);
    const se = Math.sqrt(variance / means.length);
    if (se > 0 && Math.abs(mean / se) >= z) rejected++;
  }
  return rejected / simulations;
}

function withinMonteCarlo(a: number, b: number, simulations: number, what: string): void {
  const p = (a + b) / 2;
  const se = Math.sqrt((2 * p * (1 - p)) / simulations);
  assert.ok(Math.abs(a - b) < 4 * se + 1e-12, `${what}: ${a} vs ${b} (4 x Monte Carlo se ${4 * se})`);
}

describe("power of a clustered paired contrast", () => {
  it("the simulator's power matches a brute-force trial-by-trial simulation of the same design", () => {
    const simulations = 3000;
    for (const effect of [0, -0.05]) {
      const module = simulateClusteredPower(DESIGN, effect, 0.05, { simulations, seed: 3 }).rate;
      const brute = bruteForceRejections(DESIGN, effect, simulations, 99);
      withinMonteCarlo(module, brute, simulations, `effect ${effect}`);
    }
  });

  it("the closed form agrees with the simulation within Monte Carlo error plus the normal approximation", () => {
    const simulations = 4000;
    for (const effect of [-0.06, -0.03, 0.04]) {
      const simulated = simulateClusteredPower(DESIGN, effect, 0.05, { simulations, seed: 5 });
      const closed = closedFormClusteredPower(DESIGN, effect, 0.05);
      assert.ok(
        Math.abs(simulated.rate - closed) < 4 * simulated.monteCarloSe + 0.015,
        `effect ${effect}: simulated ${simulated.rate} vs closed form ${closed}`,
      );
    }
    const eq = simulateClusteredEquivalence(DESIGN, 0.04, 0.05, { simulations, seed: 6 });
    const eqClosed = closedFormEquivalencePower(DESIGN, 0.04, 0.05);
    assert.ok(Math.abs(eq.rate - eqClosed) < 4 * eq.monteCarloSe + 0.015, `equivalence ${eq.rate} vs ${eqClosed}`);
  });

  it("the item-difference variance matches the empirical variance of simulated items", () => {
    for (const effect of [0, 0.05, -0.08]) {
      const big = { ...DESIGN, clusters: 40_000 };
      const power = clusterDifferenceVariance(big, effect);
      // Empirical variance of 40,000 simulated item differences.
      const differences: number[] = [];
      const stream = RandomStream.fromSeed(8);
      const p = DESIGN.baseline;
      const s = DESIGN.discordance / (2 * p * (1 - p) * (1 - DESIGN.icc));
      for (let i = 0; i < big.clusters; i++) {
        const u = stream.uniform() ** (1 / 3);
        let total = 0;
        for (let j = 0; j < DESIGN.pairsPerCluster; j++) {
          const reference = stream.uniform() < u ? 1 : 0;
          let condition = stream.uniform() < s ? (stream.uniform() < u ? 1 : 0) : reference;
          if (effect > 0 && condition === 0 && stream.uniform() < effect / (1 - p)) condition = 1;
          if (effect < 0 && condition === 1 && stream.uniform() < -effect / p) condition = 0;
          total += condition - reference;
        }
        differences.push(total / DESIGN.pairsPerCluster);
      }
      const mean = differences.reduce((a, b) => a + b, 0) / differences.length;
      const variance = differences.reduce((a, b) => a + (b - mean) ** 2, 0) / (differences.length - 1);
      assert.ok(Math.abs(mean - effect) < 0.006, `mean difference ${mean} vs effect ${effect}`);
      assert.ok(Math.abs(variance / power - 1) < 0.04, `effect ${effect}: variance ${variance} vs formula ${power}`);
    }
  });

  it("one independent pair per item reduces to R's power.prop.test (golden fixture 18)", {
    skip: needsSharedData(),
  }, () => {
    const golden = JSON.parse(
      readFileSync(new URL("../../../shared/golden/18_power_mde_two_proportions.json", import.meta.url), "utf8"),
    );
    const { p0, n_per_group: n, alpha } = golden.input;
    // icc 0, one pair per item, the largest discordance: the two arms are independent draws.
    const independent = {
      clusters: n,
      pairsPerCluster: 1,
      baseline: p0,
      icc: 0,
      discordance: maximumDiscordance(p0, 0),
    };
    for (const p1 of golden.input.p1_for_power as number[]) {
      const expected = golden.expected.power[String(p1)].pooled_null_unpooled_alt_two_tail;
      const got = closedFormClusteredPower(independent, p1 - p0, alpha, { pooledNull: true });
      assert.ok(Math.abs(got - expected) < 1e-9, `p1 ${p1}: ${got} vs power.prop.test(strict = TRUE) ${expected}`);
      // The estimated-variance Wald test: Phi(|d| sqrt n / s1 - z) + far tail, s1^2 = p0 q0 + p1 q1.
      const s1 = Math.sqrt(p0 * (1 - p0) + p1 * (1 - p1));
      const z = normalQuantile(1 - alpha / 2);
      const shift = (Math.abs(p1 - p0) * Math.sqrt(n)) / s1;
      const wald = normalCdf(shift - z) + normalCdf(-shift - z);
      assert.ok(Math.abs(closedFormClusteredPower(independent, p1 - p0, alpha) - wald) < 1e-12, `Wald at ${p1}`);
    }
  });

  it("the MDE reaches the target power, and clustering (icc) costs power under an effect", () => {
    const mde = closedFormClusteredMde(DESIGN, 0.8, 0.05, "decrease");
    assert.ok(mde !== null, "an MDE exists");
    assert.ok(Math.abs(closedFormClusteredPower(DESIGN, -mde, 0.05) - 0.8) < 1e-6, `power at the MDE ${mde}`);
    const loose = { ...DESIGN, icc: 0.02, discordance: 0.2 };
    assert.ok(
      closedFormClusteredPower(loose, 0.06, 0.05) > closedFormClusteredPower(DESIGN, 0.06, 0.05),
      "a lower icc gives more power",
    );
  });

  it("contrastPower reports per contrast the clusters that reach the target, checked by simulation", () => {
    const [result] = contrastPower([{ contrast: "cot vs direct", family: "primary", design: DESIGN }], {
      minimumEffect: 0.05,
      direction: "decrease",
      margin: 0.05,
      alpha: 0.05,
      equivalenceAlpha: 0.05,
      power: 0.8,
      simulations: 2000,
      seed: 1,
    });
    assert.equal(result.family, "primary");
    const needed = result.clustersForPower;
    assert.ok(needed !== null && needed.simulated !== null, "clusters for power found and simulated");
    const atNeeded = closedFormClusteredPower({ ...DESIGN, clusters: needed.clusters }, -0.05, 0.05);
    const below = closedFormClusteredPower({ ...DESIGN, clusters: needed.clusters - 1 }, -0.05, 0.05);
    assert.ok(atNeeded >= 0.8 && below < 0.8, `smallest n: ${needed.clusters} (${below} < 0.8 <= ${atNeeded})`);
    assert.ok(Math.abs(needed.simulated.rate - 0.8) < 4 * needed.simulated.monteCarloSe + 0.015, "simulated ~80%");
  });

  it("nullDiscordance recovers the no-effect discordance from one observed under an effect", () => {
    for (const effect of [-0.08, 0.06]) {
      // Simulated pairs: the share that differ and the mean difference, as a pilot measures them.
      const design = { ...DESIGN, clusters: 60_000, pairsPerCluster: 1 };
      const d = drawClusterDifferences(design, effect, RandomStream.fromSeed(21));
      let differ = 0;
      let sum = 0;
      for (const x of d) {
        differ += x !== 0 ? 1 : 0;
        sum += x;
      }
      const recovered = nullDiscordance(differ / d.length, DESIGN.baseline, DESIGN.icc, sum / d.length);
      assert.ok(
        Math.abs(recovered - DESIGN.discordance) < 0.01,
        `effect ${effect}: ${recovered} vs ${DESIGN.discordance}`,
      );
    }
    assert.equal(nullDiscordance(0.3, 0.5, 0, 0), 0.3);
  });

  it("anovaIcc is the one-way ANOVA estimator (equal groups: (MSB - MSW) / (MSB + (k - 1) MSW))", () => {
    const groups = [
      [1, 1, 1],
      [0, 0, 1],
      [0, 0, 0],
      [1, 1, 0],
    ];
    // Grand mean 0.5; group means 1, 1/3, 0, 2/3: MSB = 3 x sum (m - 0.5)^2 / 3, MSW = sum of squares within / 8.
    const means = groups.map((g) => g.reduce((a, b) => a + b, 0) / g.length);
    const msb = (3 * means.reduce((a, m) => a + (m - 0.5) ** 2, 0)) / 3;
    const msw = groups.reduce((a, g, i) => a + g.reduce((b, y) => b + (y - means[i]) ** 2, 0), 0) / 8;
    const expected = (msb - msw) / (msb + 2 * msw);
    assert.ok(Math.abs(anovaIcc(groups)! - expected) < 1e-12, `${anovaIcc(groups)} vs ${expected}`);
    assert.equal(anovaIcc([[1, 0]]), null, "one cluster: no estimate");
    assert.equal(
      anovaIcc([
        [1, 0],
        [0, 1],
      ]),
      0,
      "no between-cluster variation: clamped at 0",
    );
  });

  it("refuses a discordance the model cannot produce, naming the bound", () => {
    assert.throws(
      () => simulateClusteredPower({ ...DESIGN, discordance: 0.5 }, 0, 0.05, { simulations: 10, seed: 1 }),
      /discordance 0.5 is not in \[0, 0.3000\]/,
    );
  });
});
