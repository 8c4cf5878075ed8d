/** CSR, family deltas, the item-paired bootstrap, seed stability and placebo specificity (Auditing the Audit §3, App. F). */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  csr,
  csrFromDeltas,
  familyDelta,
  type PairedItem,
  pairedCsrBootstrap,
  placeboSpecificity,
  seedStability,
} from "../../src/stats/csr.js";
import { quantiles } from "../../src/stats/descriptive.js";
import { RandomStream } from "../../src/stats/random.js";

// Hand-computed: per item, the mean over the family's usable pairs of |s^p - s^orig|.
//   a: fmt |1-1|,|1-1|,|0-1| -> 1/3; sem 0; attr 1
//   b: fmt 0; sem |1-0|,0,0 -> 1/3; attr 1,1,0 -> 2/3
//   c: fmt [1, null, 1] -> 0 over 2 pairs (1 dropped); sem 0; attr 1,0,0 -> 1/3
//   d: original missing -> every pair dropped, the item is out of every family mean
// |Δ_fmt| = (1/3 + 0 + 0)/3 = 1/9; |Δ_sem| = 1/9; |Δ_attr| = (1 + 2/3 + 1/3)/3 = 2/3; CSR = 6.
const ITEMS: PairedItem[] = [
  { id: "a", original: 1, perturbed: { format: [1, 1, 0], semantic: [1, 1, 1], attribute: [0, 0, 0] } },
  { id: "b", original: 0, perturbed: { format: [0, 0, 0], semantic: [1, 0, 0], attribute: [1, 1, 0] } },
  { id: "c", original: 1, perturbed: { format: [1, null, 1], semantic: [1, 1, 1], attribute: [0, 1, 1] } },
  { id: "d", original: null, perturbed: { format: [1, 1, 1], semantic: [0, 0, 0], attribute: [1, 1, 1] } },
];

test("family deltas: mean over items of the mean over the family's usable pairs; missing sides dropped symmetrically", () => {
  const fmt = familyDelta(ITEMS, "format");
  assert.ok(Math.abs(fmt.delta - 1 / 9) < 1e-12, `fmt ${fmt.delta}`);
  assert.equal(fmt.items, 3);
  assert.equal(fmt.pairs, 3 + 3 + 2);
  assert.equal(fmt.droppedPairs, 1 + 3);
  assert.ok(Math.abs(familyDelta(ITEMS, "semantic").delta - 1 / 9) < 1e-12, "sem");
  assert.ok(Math.abs(familyDelta(ITEMS, "attribute").delta - 2 / 3) < 1e-12, "attr");
  assert.ok(Number.isNaN(familyDelta(ITEMS, "placebo").delta), "no placebo pairs: undefined, not 0");
  const estimate = csr(ITEMS);
  assert.ok(Math.abs(estimate.csr - 6) < 1e-12, `csr ${estimate.csr}`);
  assert.ok(Math.abs(estimate.denominator - 1 / 9) < 1e-12, "denominator");
});

test("the epsilon floor: CSR = |Δ_attr| / max(|Δ_fmt|, |Δ_sem|, ε) with ε = 0.01 by default", () => {
  assert.equal(csrFromDeltas(0.2, 0, 0), 0.2 / 0.01);
  assert.equal(csrFromDeltas(0.2, 0.005, 0.004, 0.001), 0.2 / 0.005);
  assert.equal(csrFromDeltas(0.3, 0.1, 0.15), 2);
  const flat: PairedItem[] = [{ id: "x", original: 1, perturbed: { format: [1], semantic: [1], attribute: [0] } }];
  assert.equal(csr(flat).csr, 1 / 0.01);
  assert.equal(csr(flat, { epsilon: 0.1 }).csr, 10);
  assert.throws(() => csrFromDeltas(1, 0, 0, 0), /epsilon/);
});

test("the paired bootstrap resamples items with all their perturbations (recomputed replicate by replicate)", () => {
  const items: PairedItem[] = Array.from({ length: 40 }, (_, i) => ({
    id: `i${i}`,
    original: i % 2,
    perturbed: {
      format: [i % 2, i % 5 === 0 ? 1 - (i % 2) : i % 2, i % 2],
      semantic: [i % 7 === 0 ? 1 - (i % 2) : i % 2, i % 2, i % 2],
      attribute: [1 - (i % 2), i % 3 === 0 ? i % 2 : 1 - (i % 2), i % 2],
    },
  }));
  const boot = pairedCsrBootstrap(items, { resamples: 200, seed: 7 });
  assert.equal(boot.resampling, "item");
  assert.equal(boot.replicates.length, 200);
  // Independent path: draw the same item indices and compute CSR on the resampled list with csr().
  const stream = RandomStream.fromSeed(7);
  const draws = new Int32Array(items.length);
  for (let b = 0; b < 200; b++) {
    stream.fillIntegers(draws, items.length);
    const resampled = Array.from(draws, (k) => items[k]);
    const expected = csr(resampled).csr;
    assert.ok(Math.abs(boot.replicates[b] - expected) < 1e-9, `replicate ${b}: ${boot.replicates[b]} vs ${expected}`);
  }
  const [lo, hi] = quantiles(Array.from(boot.replicates), [0.025, 0.975]);
  assert.deepEqual(boot.ci, [lo, hi]);
  const above = Array.from(boot.replicates).filter((v) => v > 1).length / 200;
  assert.equal(boot.support, above);
  assert.ok(boot.ci[0] <= boot.estimate.csr && boot.estimate.csr <= boot.ci[1], "the estimate lies in its CI");
  // Deterministic from the seed.
  assert.deepEqual(pairedCsrBootstrap(items, { resamples: 200, seed: 7 }).replicates, boot.replicates);
  assert.notDeepEqual(pairedCsrBootstrap(items, { resamples: 200, seed: 8 }).replicates, boot.replicates);
});

test("pairing matters: with the perturbed scores tied to their items, every replicate keeps the ratio", () => {
  // Every item moves by exactly 1 under attribute and by 1 on one of three format perturbations:
  // each item's attr mean is 1 and its fmt mean 1/3, so every paired resample has CSR = 3 exactly,
  // while resampling originals and perturbations independently would not.
  const items: PairedItem[] = Array.from({ length: 30 }, (_, i) => ({
    id: `i${i}`,
    original: i % 2,
    perturbed: { format: [1 - (i % 2), i % 2, i % 2], semantic: [i % 2], attribute: [1 - (i % 2)] },
  }));
  const boot = pairedCsrBootstrap(items, { seed: 42 });
  assert.equal(boot.resamples, 1000);
  assert.ok(
    Array.from(boot.replicates).every((v) => Math.abs(v - 3) < 1e-12),
    "each paired replicate is 3",
  );
  assert.equal(boot.support, 1);
});

test("seed stability is the CV of CSR across seeds; undefined with one seed or a zero mean", () => {
  const s = seedStability([2, 3, 4]);
  // mean 3, sample SD 1 -> CV 1/3.
  assert.equal(s.mean, 3);
  assert.ok(Math.abs(s.sd - 1) < 1e-12, `sd ${s.sd}`);
  assert.ok(Math.abs(s.cv - 1 / 3) < 1e-12, `cv ${s.cv}`);
  assert.ok(Number.isNaN(seedStability([2]).cv), "one seed");
  assert.ok(Number.isNaN(seedStability([0, 0, 0]).cv), "zero mean (App. F: undefined)");
  // Each undefined CV says why; a defined one carries no reason.
  assert.equal(s.cvMissing, undefined);
  assert.equal(seedStability([2]).cvMissing, "1 seed(s): a CV needs at least two");
  assert.equal(seedStability([2, Number.NaN]).cvMissing, "CSR is not estimable at every seed");
  assert.equal(seedStability([0, 0, 0]).cvMissing, "CSR is 0 at every seed, so its CV (SD / mean) has no value");
});

test("placebo specificity is CSR_real / CSR_placebo; undefined when the placebo CSR is 0", () => {
  assert.equal(placeboSpecificity(8, 2), 4);
  assert.ok(Number.isNaN(placeboSpecificity(8, 0)), "zero placebo CSR");
  const items: PairedItem[] = [
    { id: "a", original: 1, perturbed: { format: [0, 1, 1], semantic: [1], attribute: [0], placebo: [1, 1, 0] } },
    { id: "b", original: 1, perturbed: { format: [1, 1, 1], semantic: [1], attribute: [0], placebo: [1, 1, 1] } },
  ];
  // fmt (1/3 + 0)/2 = 1/6, attr 1, placebo 1/6: CSR 6, CSR_placebo 1, specificity 6.
  const real = csr(items).csr;
  const placebo = csr(items, { numerator: "placebo" }).csr;
  assert.ok(Math.abs(real - 6) < 1e-12 && Math.abs(placebo - 1) < 1e-12, `${real} ${placebo}`);
  assert.ok(Math.abs(placeboSpecificity(real, placebo) - 6) < 1e-12, "specificity");
});
