// Simulation-based calibration: do the intervals cover and do the tests keep their size?
// Fixed seeds; each check simulates a few hundred to a few thousand studies.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  clusterBootstrap,
  clusteredCellCounts,
  type PairedTable,
  RandomStream,
  riskDifferenceStatistic,
  tostPairedProportions,
  tostTwoProportions,
} from "../../src/stats/index.js";

/** Half-width of a band of 3 binomial SEs around a nominal rate estimated from `studies` runs. */
function threeSe(rate: number, studies: number): number {
  return 3 * Math.sqrt((rate * (1 - rate)) / studies);
}

describe("calibration", () => {
  it("cluster-bootstrap 95% CI for a risk difference covers the truth ~95% under case-level correlation", () => {
    // Each study: 60 cases, 3 attempts per case under each of 2 conditions. Case difficulty
    // d ~ U(0.2, 1) is shared by all rows of a case (strong within-case correlation); p_A = d,
    // p_B = 0.8 d, so the true RD = 0.2 E[d] = 0.12.
    const studies = 300;
    const trueRd = 0.12;
    const stream = RandomStream.fromSeed(2024);
    let covered = 0;
    for (let s = 0; s < studies; s++) {
      const data = simulateClusteredStudy(stream, 60, 3);
      const r = clusterBootstrap(data, riskDifferenceStatistic(0, 1), { resamples: 1000, seed: 1000 + s });
      const [lo, hi] = r.percentileCi[0];
      if (lo <= trueRd && trueRd <= hi) covered++;
    }
    const coverage = covered / studies;
    // Band: 0.95 +/- 3 binomial SEs of a coverage estimated from 300 studies (+/- 0.038).
    const band = threeSe(0.95, studies);
    console.log(`cluster bootstrap coverage ${coverage.toFixed(3)} (band 0.95 +/- ${band.toFixed(3)})`);
    assert.ok(Math.abs(coverage - 0.95) <= band, `coverage ${coverage}`);
  });

  it("independent-proportion TOST declares false equivalence at most ~5% when the true difference is the margin", () => {
    // p1 - p2 = margin exactly: H0 is true at its boundary, where the size of TOST is at most alpha.
    const studies = 4000;
    const n = 1500;
    const margin = 0.05;
    const stream = RandomStream.fromSeed(77);
    let falseEquivalence = 0;
    for (let s = 0; s < studies; s++) {
      const counts = { x1: stream.binomial(n, 0.55), n1: n, x2: stream.binomial(n, 0.5), n2: n };
      if (tostTwoProportions(counts, margin, 0.05).equivalent) falseEquivalence++;
    }
    const rate = falseEquivalence / studies;
    // Monte Carlo slack: 3 binomial SEs at 5% with 4000 studies (0.010).
    console.log(`TOST false-equivalence rate at the margin: ${rate.toFixed(4)}`);
    assert.ok(rate <= 0.05 + threeSe(0.05, studies), `rate ${rate}`);
    // The test is not trivially conservative either: it does reject at about its nominal size.
    assert.ok(rate >= 0.05 - threeSe(0.05, studies), `rate ${rate}`);
  });

  it("paired TOST declares false equivalence at most ~5% when the true paired difference is the margin", () => {
    // Pairs: P(1,0) = 0.08, P(0,1) = 0.03, so d = 0.05 = margin; 1000 pairs per study.
    const studies = 2000;
    const margin = 0.05;
    const stream = RandomStream.fromSeed(78);
    let falseEquivalence = 0;
    for (let s = 0; s < studies; s++) {
      const table = simulatePairedTable(stream, 1000, 0.55, 0.08, 0.03);
      if (tostPairedProportions(table, margin, 0.05).equivalent) falseEquivalence++;
    }
    const rate = falseEquivalence / studies;
    console.log(`paired TOST false-equivalence rate at the margin: ${rate.toFixed(4)}`);
    assert.ok(rate <= 0.05 + threeSe(0.05, studies), `rate ${rate}`);
  });
});

function simulateClusteredStudy(stream: RandomStream, cases: number, attempts: number) {
  const cluster: string[] = [];
  const cell: string[] = [];
  const outcome: number[] = [];
  for (let g = 0; g < cases; g++) {
    const difficulty = 0.2 + 0.8 * stream.uniform();
    for (const [condition, p] of [
      ["A", difficulty],
      ["B", 0.8 * difficulty],
    ] as const) {
      for (let a = 0; a < attempts; a++) {
        cluster.push(`case-${g}`);
        cell.push(condition);
        outcome.push(stream.bernoulli(p));
      }
    }
  }
  return clusteredCellCounts({ cluster, cell, outcome }, ["A", "B"]);
}

/** Multinomial draw of a paired table with cell probabilities p11, p10, p01 (p00 the rest). */
function simulatePairedTable(stream: RandomStream, n: number, p11: number, p10: number, p01: number): PairedTable {
  const table: PairedTable = [
    [0, 0],
    [0, 0],
  ];
  for (let i = 0; i < n; i++) {
    const u = stream.uniform();
    if (u < p11) table[0][0]++;
    else if (u < p11 + p10) table[0][1]++;
    else if (u < p11 + p10 + p01) table[1][0]++;
    else table[1][1]++;
  }
  return table;
}
