/**
 * The cell moments of the specification curve (src/stats/models/cell-glm.ts) for whole-number
 * outcomes, accumulated per block of clusters that share their cells.
 *
 * A cluster (an item) is seen under a fixed set of rest codes (model, benchmark, other facets)
 * whatever the labelling, so its cells lie in those rests x the comparison levels: a few hundred
 * of the grid's cells. Clusters with the same rests form a block whose cross-moments are summed in
 * a small dense matrix (cache-resident, no index arithmetic per pair) and added to the grid's
 * moments once per block. Only the entries of cells that share a block can be non-zero, so the
 * moments are kept at those entries alone (cell-glm.ts `supportMoments`), not as cells x cells
 * matrices. With whole-number y and n every product and sum is an exact integer, so the result
 * equals `cellMoments`'s to the last bit in any order; other outcomes use `cellMoments`.
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

/** Whether every y and n is a whole number, 0 to 1e6: the sums of products below are then exact. */
export function wholeNumbers(y: Float64Array, n: Float64Array): boolean {
  for (let i = 0; i < y.length; i++) {
    if (!Number.isInteger(y[i]) || !Number.isInteger(n[i]) || y[i] < 0 || n[i] < 0 || y[i] > 1e6 || n[i] > 1e6)
      return false;
  }
  return true;
}

/**
 * Four cells' whole-number sums share one double, 13 bits apart (52 bits, below the 53 of exact
 * integers): one multiply-add then serves four entries. A lane holds at most LANE - 1; the packed
 * sums are unpacked into the block's plain sums before any lane could carry over, and a cluster
 * whose products alone could fill a lane is added to the plain sums directly.
 */
const LANE = 2 ** 13;
const LANES = 4;

/** A block's sums, sized once per layout and reused by every call (zeroed as they are read out). */
interface BlockScratch {
  plain: Sums;
  packed: Sums;
  ys: Float64Array;
  ns: Float64Array;
  packedY: Float64Array;
  packedN: Float64Array;
}

const scratchOf = new WeakMap<MomentBlocks, BlockScratch[]>();

function blockScratch(layout: MomentBlocks): BlockScratch[] {
  let scratch = scratchOf.get(layout);
  if (!scratch) {
    scratch = layout.blocks.map(({ rests }) => {
      const s = rests.length * layout.levelCount;
      const q = Math.ceil(s / LANES);
      const sums = (size: number): Sums => ({
        yy: new Float64Array(size),
        yn: new Float64Array(size),
        nn: new Float64Array(size),
      });
      return {
        plain: sums(s * s),
        packed: sums(s * q),
        ys: new Float64Array(q * LANES),
        ns: new Float64Array(q * LANES),
        packedY: new Float64Array(q),
        packedN: new Float64Array(q),
      };
    });
    scratchOf.set(layout, scratch);
  }
  return scratch;
}

/**
 * Per block, where each of its s x s entries (cell a, cell b in row-major local order) is in the
 * support moments: `ab` the support entry (a, b), `ba` the entry (b, a), whose YN[b,a] slot holds
 * the block's YN[a,b]. The block support is symmetric, so both exist.
 */
interface BlockPlaces {
  ab: Int32Array;
  ba: Int32Array;
}

const placesOf = new WeakMap<MomentBlocks, BlockPlaces[]>();

function blockPlaces(layout: MomentBlocks): BlockPlaces[] {
  let places = placesOf.get(layout);
  if (!places) {
    const L = layout.levelCount;
    const { support } = layout;
    places = layout.blocks.map(({ rests }) => {
      const cells = Int32Array.from(
        { length: rests.length * L },
        (_, local) => rests[(local / L) | 0] * L + (local % L),
      );
      const ab = new Int32Array(cells.length * cells.length);
      const ba = new Int32Array(cells.length * cells.length);
      let local = 0;
      for (const a of cells) {
        for (const b of cells) {
          ab[local] = supportEntry(support, a, b);
          ba[local++] = supportEntry(support, b, a);
        }
      }
      return { ab, ba };
    });
    placesOf.set(layout, places);
  }
  return places;
}

/** The position of cell b among cell a's support cells (ascending), found by bisection. */
function supportEntry(support: CellSupport, a: number, b: number): number {
  let lo = support.start[a];
  let hi = support.start[a + 1];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (support.cells[mid] < b) lo = mid + 1;
    else hi = mid;
  }
  if (lo === support.start[a + 1] || support.cells[lo] !== b) throw new Error(`cells ${a} and ${b} share no block`);
  return lo;
}

/**
 * NN depends on the labels only through each cluster's row counts per cell, and a cluster whose
 * trials of one case all count the same rows keeps its counts under any shuffle within cases
 * (every coding's ITT clusters, most of all). So per data set (`n`) each block keeps its clusters'
 * counts from the first call and the NN sum of the clusters whose counts have not changed since:
 * a call adds only the others' NN. A cluster seen with other counts leaves that sum for good
 * (its first counts' products subtracted). Every term is a whole number, so the sums are exact.
 */
interface FixedCounts {
  /** Per block: each cluster's counts (clusters x s) from the first call. */
  first: Float64Array[];
  /** Per block and cluster: 1 while its counts have equalled the first ones. */
  steady: Uint8Array[];
  /** Per block: the steady clusters' NN (upper triangle, s x s). */
  steadyNN: Float64Array[];
}

const fixedCountsOf = new WeakMap<MomentBlocks, WeakMap<Float64Array, FixedCounts>>();

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
  const out = blockedMomentBuffers(layout, reuse);
  const { successes, trials, supportMoments: values } = out;
  successes.fill(0);
  trials.fill(0);
  values.fill(0);
  const places = blockPlaces(layout);
  const { restLocal } = layout;
  const scratch = blockScratch(layout);
  let byCounts = fixedCountsOf.get(layout);
  if (!byCounts) {
    byCounts = new WeakMap();
    fixedCountsOf.set(layout, byCounts);
  }
  // Absent: the first call for this data set, which records every cluster's counts and NN.
  const fixed = byCounts.get(n);
  const record: FixedCounts | undefined = fixed
    ? undefined
    : {
        first: layout.blocks.map(({ rests, clusters }) => new Float64Array(clusters.length * rests.length * L)),
        steady: layout.blocks.map(({ clusters }) => new Uint8Array(clusters.length).fill(1)),
        steadyNN: [],
      };
  for (let k = 0; k < layout.blocks.length; k++) {
    const { rests, clusters } = layout.blocks[k];
    const { plain, packed, ys, ns, packedY, packedN } = scratch[k];
    const s = rests.length * L;
    const q = Math.ceil(s / LANES);
    let bound = 0;
    const first = (fixed ?? record!).first[k];
    const steady = (fixed ?? record!).steady[k];
    for (let c = 0; c < clusters.length; c++) {
      const g = clusters[c];
      ys.fill(0);
      ns.fill(0);
      const last = clusterStart[g + 1];
      for (let i = clusterStart[g]; i < last; i++) {
        const ni = n[i];
        if (ni === 0) continue;
        const cell = restLocal[i] * L + levels[trial[i]];
        ys[cell] += y[i];
        ns[cell] += ni;
      }
      let largest = 0;
      for (let a = 0; a < s; a++) {
        if (ns[a] > largest) largest = ns[a];
        if (ys[a] > largest) largest = ys[a];
      }
      // Whether this cluster's NN is already in the steady sum (never on the recording call).
      let countsKnown = false;
      if (record) first.set(ns.subarray(0, s), c * s);
      else if (steady[c]) {
        countsKnown = true;
        for (let a = 0; a < s; a++) {
          if (ns[a] !== first[c * s + a]) {
            countsKnown = false;
            break;
          }
        }
        if (!countsKnown) {
          steady[c] = 0;
          leaveSteady(fixed!.steadyNN[k], first, c * s, s);
        }
      }
      for (let r = 0; r < rests.length; r++) {
        const cell = rests[r] * L;
        for (let l = 0; l < L; l++) {
          successes[cell + l] += ys[r * L + l];
          trials[cell + l] += ns[r * L + l];
        }
      }
      // The most this cluster adds to one lane: too much for a lane, or for what the lanes hold.
      const adds = largest * largest;
      if (adds >= LANE) {
        addPlain(plain, ys, ns, s, !countsKnown);
        continue;
      }
      if (bound + adds >= LANE) {
        unpack(packed, plain, s, q);
        bound = 0;
      }
      bound += adds;
      for (let p = 0; p < q; p++) {
        const c = p * LANES;
        packedY[p] = ys[c] + LANE * (ys[c + 1] + LANE * (ys[c + 2] + LANE * ys[c + 3]));
        packedN[p] = ns[c] + LANE * (ns[c + 1] + LANE * (ns[c + 2] + LANE * ns[c + 3]));
      }
      addPacked(packed, ys, ns, packedY, packedN, s, q, !countsKnown);
    }
    unpack(packed, plain, s, q);
    const plainYY = plain.yy;
    const plainYN = plain.yn;
    const plainNN = plain.nn;
    if (record) record.steadyNN.push(Float64Array.from(plainNN));
    else {
      // The steady clusters' NN joins the others' (upper triangles; the lower is mirrored below).
      const steadyNN = fixed!.steadyNN[k];
      for (let e = 0; e < plainNN.length; e++) plainNN[e] += steadyNN[e];
    }
    // YY and NN were summed over b >= a only: mirrored here, in the block's small matrices.
    for (let a = 0; a < s; a++) {
      for (let b = a + 1; b < s; b++) {
        plainYY[b * s + a] = plainYY[a * s + b];
        plainNN[b * s + a] = plainNN[a * s + b];
      }
    }
    const { ab, ba } = places[k];
    for (let e = 0; e < ab.length; e++) {
      values[4 * ab[e]] += plainYY[e];
      values[4 * ab[e] + 1] += plainYN[e];
      values[4 * ba[e] + 2] += plainYN[e];
      values[4 * ab[e] + 3] += plainNN[e];
      plainYY[e] = 0;
      plainYN[e] = 0;
      plainNN[e] = 0;
    }
  }
  if (record) byCounts.set(n, record);
  return out;
}

/** One cluster's products added to the packed sums (YY and NN: upper triangle; NN unless steady). */
function addPacked(
  packed: Sums,
  ys: Float64Array,
  ns: Float64Array,
  packedY: Float64Array,
  packedN: Float64Array,
  s: number,
  q: number,
  withNN: boolean,
): void {
  const packedYY = packed.yy;
  const packedYN = packed.yn;
  const packedNN = packed.nn;
  for (let a = 0; a < s; a++) {
    const na = ns[a];
    const ya = ys[a];
    const base = a * q;
    // Upper triangle: from the packed column holding cell a (its lower neighbours are ignored).
    const from = (a / LANES) | 0;
    if (na !== 0 && withNN) for (let p = from; p < q; p++) packedNN[base + p] += na * packedN[p];
    if (ya === 0) continue;
    for (let p = from; p < q; p++) packedYY[base + p] += ya * packedY[p];
    for (let p = 0; p < q; p++) packedYN[base + p] += ya * packedN[p];
  }
}

/** Takes a cluster's first counts' products out of the steady NN (upper triangle). */
function leaveSteady(steadyNN: Float64Array, first: Float64Array, at: number, s: number): void {
  for (let a = 0; a < s; a++) {
    const na = first[at + a];
    if (na === 0) continue;
    for (let b = a; b < s; b++) steadyNN[a * s + b] -= na * first[at + b];
  }
}

/** Blocked moments' buffers: `reuse`'s when it holds this layout's support moments, else new. */
function blockedMomentBuffers(
  layout: MomentBlocks,
  reuse: CellMoments | undefined,
): CellMoments & { supportMoments: Float64Array } {
  const nCells = layout.nRest * layout.levelCount;
  const size = 4 * layout.support.cells.length;
  if (reuse?.support === layout.support && reuse.supportMoments?.length === size && !reuse.yy) {
    return reuse as CellMoments & { supportMoments: Float64Array };
  }
  return {
    nCells,
    successes: new Float64Array(nCells),
    trials: new Float64Array(nCells),
    support: layout.support,
    supportMoments: new Float64Array(size),
  };
}

/** One cluster's products added to the plain sums (upper triangle of YY and NN, as the packed ones; NN unless steady). */
function addPlain(plain: Sums, ys: Float64Array, ns: Float64Array, s: number, withNN: boolean): void {
  for (let a = 0; a < s; a++) {
    const ya = ys[a];
    const na = ns[a];
    for (let b = a; b < s; b++) {
      plain.yy[a * s + b] += ya * ys[b];
      if (withNN) plain.nn[a * s + b] += na * ns[b];
    }
    for (let b = 0; b < s; b++) plain.yn[a * s + b] += ya * ns[b];
  }
}

type Sums = { yy: Float64Array; yn: Float64Array; nn: Float64Array };

/** Adds the packed sums' lanes to the plain sums and clears them. */
function unpack(packed: Sums, plain: Sums, s: number, q: number): void {
  for (const key of ["yy", "yn", "nn"] as const) {
    const from = packed[key];
    const to = plain[key];
    for (let a = 0; a < s; a++) {
      for (let p = 0; p < q; p++) {
        let v = from[a * q + p];
        if (v === 0) continue;
        from[a * q + p] = 0;
        for (let lane = 0; lane < LANES; lane++) {
          const b = p * LANES + lane;
          const low = v % LANE;
          if (b < s) to[a * s + b] += low;
          v = (v - low) / LANE;
        }
      }
    }
  }
}
