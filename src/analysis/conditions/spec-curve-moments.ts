/**
 * The cell moments of the specification curve (src/stats/models/cell-glm.ts) for whole-number
 * outcomes, accumulated per block of clusters that share their cells.
 *
 * A cluster (an item) is seen under a fixed set of rest codes (model, benchmark, other facets)
 * whatever the labelling, so its cells lie in those rests x the comparison levels: a few hundred
 * of the grid's cells. Clusters with the same rests form a block whose cross-moments are summed in
 * a small dense matrix (cache-resident, no index arithmetic per pair) and added to the grid's
 * matrices once per block. With whole-number y and n every product and sum is an exact integer, so
 * the result equals `cellMoments`'s to the last bit in any order; other outcomes use `cellMoments`.
 */
import type { CellMoments, CellSupport } from "../../stats/index.js";

/** Clusters grouped by their rest codes, computed once per curve (labels do not move rests). */
export interface MomentBlocks {
  nRest: number;
  levelCount: number;
  /** Per block: its rest codes (ascending) and its clusters. */
  blocks: { rests: Int32Array; clusters: Int32Array }[];
  /** Per row: the position of its rest among its block's rests. */
  restLocal: Int32Array;
  /** Per cell, the cells of every block it is in: where its moments can be non-zero, whatever the labels. */
  support: CellSupport;
}

export function momentBlocks(rest: Int32Array, clusterStart: Int32Array, nRest: number, levelCount: number) {
  const restLocal = new Int32Array(rest.length);
  const byKey = new Map<string, { rests: Int32Array; clusters: number[] }>();
  const position = new Int32Array(nRest).fill(-1);
  for (let g = 0; g + 1 < clusterStart.length; g++) {
    const seen = new Set<number>();
    for (let i = clusterStart[g]; i < clusterStart[g + 1]; i++) seen.add(rest[i]);
    const rests = Int32Array.from([...seen].sort((a, b) => a - b));
    const key = rests.join(",");
    let block = byKey.get(key);
    if (!block) {
      block = { rests, clusters: [] };
      byKey.set(key, block);
    }
    block.clusters.push(g);
    rests.forEach((r, j) => {
      position[r] = j;
    });
    for (let i = clusterStart[g]; i < clusterStart[g + 1]; i++) restLocal[i] = position[rest[i]];
  }
  const blocks = [...byKey.values()].map((b) => ({ rests: b.rests, clusters: Int32Array.from(b.clusters) }));
  return {
    nRest,
    levelCount,
    blocks,
    restLocal,
    support: blockSupport(blocks, nRest, levelCount),
  } satisfies MomentBlocks;
}

function blockSupport(blocks: MomentBlocks["blocks"], nRest: number, levelCount: number): CellSupport {
  const partners: Set<number>[] = Array.from({ length: nRest }, () => new Set());
  for (const { rests } of blocks) for (const r of rests) for (const other of rests) partners[r].add(other);
  const sorted = partners.map((p) => [...p].sort((a, b) => a - b));
  const start = new Int32Array(nRest * levelCount + 1);
  const cells: number[] = [];
  for (let r = 0; r < nRest; r++) {
    for (let l = 0; l < levelCount; l++) {
      for (const other of sorted[r]) for (let k = 0; k < levelCount; k++) cells.push(other * levelCount + k);
      start[r * levelCount + l + 1] = cells.length;
    }
  }
  return { start, cells: Int32Array.from(cells) };
}

/** Whether every y and n is a whole number small enough for exact sums of products. */
export function wholeNumbers(y: Float64Array, n: Float64Array): boolean {
  for (let i = 0; i < y.length; i++) {
    if (!Number.isInteger(y[i]) || !Number.isInteger(n[i]) || Math.abs(y[i]) > 1e6 || Math.abs(n[i]) > 1e6)
      return false;
  }
  return y.length < 1e6;
}

/**
 * `cellMoments` for whole-number y and n (check with `wholeNumbers`): a row's cell is
 * rest * levelCount + levels[trial[row]]. `reuse` refills an earlier result's buffers.
 */
export function blockCellMoments(
  layout: MomentBlocks,
  clusterStart: Int32Array,
  trial: Int32Array,
  levels: Int32Array,
  y: Float64Array,
  n: Float64Array,
  reuse?: CellMoments,
): CellMoments {
  const L = layout.levelCount;
  const nCells = layout.nRest * L;
  const size = nCells * nCells;
  const out: CellMoments =
    reuse && reuse.nCells === nCells
      ? reuse
      : {
          nCells,
          successes: new Float64Array(nCells),
          trials: new Float64Array(nCells),
          yy: new Float64Array(size),
          yn: new Float64Array(size),
          nn: new Float64Array(size),
        };
  const { successes, trials, yy, yn, nn } = out;
  out.support = layout.support;
  out.supportMoments = undefined;
  successes.fill(0);
  trials.fill(0);
  yy.fill(0);
  yn.fill(0);
  nn.fill(0);
  const { restLocal } = layout;
  for (const { rests, clusters } of layout.blocks) {
    const s = rests.length * L;
    const localYy = new Float64Array(s * s);
    const localYn = new Float64Array(s * s);
    const localNn = new Float64Array(s * s);
    const ys = new Float64Array(s);
    const ns = new Float64Array(s);
    for (const g of clusters) {
      ys.fill(0);
      ns.fill(0);
      for (let i = clusterStart[g]; i < clusterStart[g + 1]; i++) {
        const ni = n[i];
        if (ni === 0) continue;
        const c = restLocal[i] * L + levels[trial[i]];
        ys[c] += y[i];
        ns[c] += ni;
      }
      for (let a = 0; a < s; a++) {
        const na = ns[a];
        const ya = ys[a];
        const base = a * s;
        if (na !== 0) for (let b = a; b < s; b++) localNn[base + b] += na * ns[b];
        if (ya === 0) continue;
        for (let b = a; b < s; b++) localYy[base + b] += ya * ys[b];
        for (let b = 0; b < s; b++) localYn[base + b] += ya * ns[b];
      }
      for (let a = 0; a < s; a++) {
        const cell = rests[Math.floor(a / L)] * L + (a % L);
        successes[cell] += ys[a];
        trials[cell] += ns[a];
      }
    }
    // Local a < b maps to grid cells in the same order (rests ascending), so the upper triangle stays upper.
    for (let a = 0; a < s; a++) {
      const ca = rests[Math.floor(a / L)] * L + (a % L);
      for (let b = 0; b < s; b++) {
        const cb = rests[Math.floor(b / L)] * L + (b % L);
        const at = ca * nCells + cb;
        if (b >= a) {
          nn[at] += localNn[a * s + b];
          yy[at] += localYy[a * s + b];
        }
        yn[at] += localYn[a * s + b];
      }
    }
  }
  for (let a = 0; a < nCells; a++) {
    for (let b = a + 1; b < nCells; b++) {
      yy[b * nCells + a] = yy[a * nCells + b];
      nn[b * nCells + a] = nn[a * nCells + b];
    }
  }
  return out;
}
