import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { blockCellMoments, momentBlocks, wholeNumbers } from "../../src/analysis/conditions/spec-curve-moments.js";
import { type CellMoments, cellMoments, fitCellGlm, momentMatrices, RandomStream } from "../../src/stats/index.js";

/**
 * A simulated grid: clusters (items) in benchmarks, each seen under its benchmark's rests, each
 * rest with one trial per level (two rows: two scorers), a planted log-odds effect of level 1,
 * and some rows left out of the data set (n = 0, as parse failures under PP).
 */
function simulatedGrid(seed: number, rowsPerTrial = 2, dropRate = 0.05) {
  const random = RandomStream.fromSeed(seed);
  const L = 3;
  const benchmarks = 3;
  const restsPerBenchmark = 4;
  const nRest = benchmarks * restsPerBenchmark;
  const clusters = 60;
  const rest: number[] = [];
  const trial: number[] = [];
  const trialLevel: number[] = [];
  const y: number[] = [];
  const n: number[] = [];
  const clusterStart = [0];
  for (let g = 0; g < clusters; g++) {
    const b = g % benchmarks;
    const itemEffect = random.normal();
    for (let r = b * restsPerBenchmark; r < (b + 1) * restsPerBenchmark; r++) {
      for (let l = 0; l < L; l++) {
        const t = trialLevel.length;
        trialLevel.push(l);
        const eta = -0.2 + 0.9 * (l === 1 ? 1 : 0) + 0.15 * (r % restsPerBenchmark) + itemEffect;
        const outcome = random.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
        for (let copy = 0; copy < rowsPerTrial; copy++) {
          rest.push(r);
          trial.push(t);
          const dropped = random.uniform() < dropRate;
          n.push(dropped ? 0 : 1);
          y.push(dropped ? 0 : outcome);
        }
      }
    }
    clusterStart.push(rest.length);
  }
  return {
    L,
    nRest,
    rest: Int32Array.from(rest),
    trial: Int32Array.from(trial),
    trialLevel: Int32Array.from(trialLevel),
    y: Float64Array.from(y),
    n: Float64Array.from(n),
    clusterStart: Int32Array.from(clusterStart),
  };
}

type Grid = ReturnType<typeof simulatedGrid>;

/** Levels shuffled within each (cluster, rest): the spec curve's within-case permutation. */
function shuffled(grid: Grid, random: RandomStream): Int32Array {
  const out = Int32Array.from(grid.trialLevel);
  for (let t = 0; t < out.length; t += grid.L) {
    for (let a = grid.L - 1; a > 0; a--) {
      const b = random.integer(a + 1);
      [out[t + a], out[t + b]] = [out[t + b], out[t + a]];
    }
  }
  return out;
}

function plainMoments(grid: Grid, levels: Int32Array): CellMoments {
  const cell = Int32Array.from(grid.rest, (r, i) => r * grid.L + levels[grid.trial[i]]);
  return cellMoments(grid.nRest * grid.L, grid.clusterStart, cell, grid.y, grid.n);
}

function sameBits(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

/** Cell totals and the moments as matrices (blocked moments hold only their support's entries). */
function momentArrays(moments: CellMoments): Record<"successes" | "trials" | "yy" | "yn" | "nn", Float64Array> {
  return { successes: moments.successes, trials: moments.trials, ...momentMatrices(moments) };
}

/** The contrast of level 1 vs level 0 with rest dummies, on every cell with rows. */
function fit(grid: Grid, moments: CellMoments) {
  const { L, nRest } = grid;
  const cells = [...Array(nRest * L).keys()].filter((c) => moments.trials[c] > 0);
  const k = 1 + (L - 1) + (nRest - 1);
  const x = new Float64Array(cells.length * k);
  cells.forEach((c, r) => {
    x[r * k] = 1;
    const level = c % L;
    const rest = Math.floor(c / L);
    if (level > 0) x[r * k + level] = 1;
    if (rest > 0) x[r * k + L - 1 + rest] = 1;
  });
  let nObs = 0;
  for (const v of grid.n) nObs += v;
  return fitCellGlm({
    x,
    k,
    cells: Int32Array.from(cells),
    moments,
    nObs,
    nClusters: grid.clusterStart.length - 1,
    coefficient: 1,
  });
}

describe("specification curve: cell moments per block of clusters", () => {
  const grid = simulatedGrid(7);
  const layout = momentBlocks(grid.rest, grid.clusterStart, grid.nRest, grid.L);

  it("groups clusters by the rests they are seen under", () => {
    assert.equal(layout.blocks.length, 3, "one block per benchmark");
    assert.ok(wholeNumbers(grid.y, grid.n), "0/1 outcomes are whole numbers");
    assert.ok(!wholeNumbers(Float64Array.of(0.5), Float64Array.of(1)), "a fractional outcome is not");
  });

  it("equals cellMoments bit for bit, observed and under permutations", () => {
    const random = RandomStream.fromSeed(11);
    let reuse: CellMoments | undefined;
    for (let p = 0; p < 5; p++) {
      const levels = p === 0 ? grid.trialLevel : shuffled(grid, random);
      const plain = plainMoments(grid, levels);
      reuse = blockCellMoments(layout, grid.clusterStart, grid.trial, levels, grid.y, grid.n, reuse);
      for (const key of ["successes", "trials", "yy", "yn", "nn"] as const) {
        assert.ok(sameBits(momentArrays(reuse)[key], momentArrays(plain)[key]), `${key} differs in labelling ${p}`);
      }
    }
  });

  it("stays exact when every cluster keeps its counts (their NN summed once) and when some lose them", () => {
    for (const dropRate of [0, 0.01]) {
      const steady = simulatedGrid(5, 2, dropRate);
      const blocks = momentBlocks(steady.rest, steady.clusterStart, steady.nRest, steady.L);
      const random = RandomStream.fromSeed(dropRate === 0 ? 2 : 4);
      let reuse: CellMoments | undefined;
      for (let p = 0; p < 4; p++) {
        const levels = p === 0 ? steady.trialLevel : shuffled(steady, random);
        const plain = plainMoments(steady, levels);
        reuse = blockCellMoments(blocks, steady.clusterStart, steady.trial, levels, steady.y, steady.n, reuse);
        for (const key of ["successes", "trials", "yy", "yn", "nn"] as const) {
          assert.ok(
            sameBits(momentArrays(reuse)[key], momentArrays(plain)[key]),
            `${key} differs in labelling ${p} (drop rate ${dropRate})`,
          );
        }
      }
    }
  });

  for (const [rowsPerTrial, what] of [
    [40, "to unpack the packed sums within a block"],
    [150, "for one cluster's products to fill a lane (summed unpacked)"],
  ] as const) {
    it(`stays exact with counts large enough ${what}`, () => {
      const large = simulatedGrid(3, rowsPerTrial);
      const blocks = momentBlocks(large.rest, large.clusterStart, large.nRest, large.L);
      const random = RandomStream.fromSeed(5);
      const levels = shuffled(large, random);
      const plain = plainMoments(large, levels);
      const blocked = blockCellMoments(blocks, large.clusterStart, large.trial, levels, large.y, large.n);
      for (const key of ["successes", "trials", "yy", "yn", "nn"] as const) {
        assert.ok(sameBits(momentArrays(blocked)[key], momentArrays(plain)[key]), `${key} differs`);
      }
    });
  }

  it("gives the same fit and cluster-robust SE, to the last bit, with the sparse meat as with every pair", () => {
    const plain = plainMoments(grid, grid.trialLevel);
    const blocked = blockCellMoments(layout, grid.clusterStart, grid.trial, grid.trialLevel, grid.y, grid.n);
    // Every pair listed: the sparse loop visits what the dense loop does, in its order.
    const nCells = plain.nCells;
    const every = {
      start: Int32Array.from({ length: nCells + 1 }, (_, a) => a * nCells),
      cells: Int32Array.from({ length: nCells * nCells }, (_, i) => i % nCells),
    };
    const dense: CellMoments = { ...plain, support: every, supportMoments: undefined };
    const a = fit(grid, dense);
    const b = fit(grid, plain);
    const c = fit(grid, blocked);
    for (const other of [b, c]) {
      assert.ok(Object.is(other.se, a.se), `SE ${other.se} is not ${a.se}`);
      assert.ok(Object.is(other.estimate, a.estimate), `estimate ${other.estimate} is not ${a.estimate}`);
    }
    assert.ok(blocked.support!.cells.length < nCells * nCells, "the block support skips pairs");
    assert.equal(blocked.yy ?? blocked.yn ?? blocked.nn, undefined, "blocked moments keep no cells x cells matrices");
    assert.equal(blocked.supportMoments?.length, 4 * blocked.support!.cells.length, "four moments per support entry");
    assert.ok(Math.abs(a.estimate - 0.9) < 0.45 && a.p < 0.05, `the planted effect 0.9 is found (${a.estimate})`);
  });
});
