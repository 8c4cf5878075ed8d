/**
 * The G1-G6 gate and the §3 status algorithm checked by their properties (Auditing the Audit,
 * §3, Table 1, App. G):
 * - every combination of failing conditions against a first-match table written here from the
 *   paper's six steps and Table 5, not from src/perturb/gate.ts;
 * - G2 as the one-sample test of the score against the trivial baseline b with the SE under the
 *   null, sqrt(b(1 - b)/n), on cases where that SE and the score's own SE disagree;
 * - each gate monotone in its input over a seeded grid;
 * - the audit cell's symmetric drop on rows built as the runner builds them (a parse failure is
 *   outcome 0 with parse status failed, and must not enter a pair or the original score).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { auditCell, groupCells } from "../../src/analysis/audit/cells.js";
import { normalizePlan } from "../../src/analysis/core/plan.js";
import type { AnalysisRow } from "../../src/analysis/core/table.js";
import {
  type Archetype,
  type CellEvidence,
  cellStatus,
  DEFAULT_THRESHOLDS,
  evaluateGates,
  type GateImplementation,
  type GateThresholds,
} from "../../src/perturb/gate.js";
import { seededRandom } from "../../src/stats/random.js";
import { type Reply, scoredRow } from "../helpers/scored-trials.js";

// ---------------------------------------------------------------- the evidence knobs

type G1Failure = "none" | "uninstrumented" | "no-op over the cap" | "regex parseability low";
type G4Failure = "none" | "CI not estimable" | "too few items" | "seed CV high";
type CiPosition = "above 1" | "below 1" | "includes 1";

interface Knobs {
  g1: G1Failure;
  g1Implementation: GateImplementation;
  g2Fails: boolean;
  g3Fails: boolean;
  g4: G4Failure;
  scorerValidated: boolean;
  archetype: Archetype | null;
  g5Implementation: GateImplementation;
  g6: { implementation: GateImplementation; passed: boolean };
  ci: CiPosition;
}

/** The evidence that realises the knobs, each gate's pass or failure well away from its threshold. */
function evidenceOf(k: Knobs): CellEvidence {
  const ci: [number, number] =
    k.g4 === "CI not estimable"
      ? [Number.NaN, Number.NaN]
      : k.ci === "above 1"
        ? [2.5, 6]
        : k.ci === "below 1"
          ? [0.2, 0.7]
          : [0.7, 1.6];
  return {
    cell: JSON.stringify(k),
    noOp: {
      instrumented: k.g1 !== "uninstrumented",
      rates: { format: k.g1 === "no-op over the cap" ? 0.6 : 0, semantic: 0.01 },
    },
    parseability: { regexScorer: true, rate: k.g1 === "regex parseability low" ? 0.7 : 1 },
    g1Implementation: k.g1Implementation,
    // n = 200, b = 0.25: 2 SE under the null = 0.061; 0.27 is 0.02 above b, 0.6 is 0.35 above.
    original: { score: k.g2Fails ? 0.27 : 0.6, n: 200, baseline: 0.25 },
    csr: {
      estimate: 3,
      denominator: k.g3Fails ? 0.005 : 0.08,
      ci,
      items: k.g4 === "too few items" ? 5 : 200,
    },
    seedCv: k.g4 === "seed CV high" ? 0.8 : 0.05,
    scorerValidated: k.scorerValidated,
    archetype: k.archetype,
    g5Implementation: k.g5Implementation,
    g6: k.g6,
  };
}

function* everyCombination(): Generator<Knobs> {
  const implementations: GateImplementation[] = ["implemented", "partial", "proposed"];
  for (const g1 of ["none", "uninstrumented", "no-op over the cap", "regex parseability low"] as G1Failure[])
    for (const g1Implementation of ["implemented", "partial"] as GateImplementation[])
      for (const g2Fails of [false, true])
        for (const g3Fails of [false, true])
          for (const g4 of ["none", "CI not estimable", "too few items", "seed CV high"] as G4Failure[])
            for (const scorerValidated of [true, false])
              for (const archetype of ["diagnostic", "invariance", "mixed", null] as (Archetype | null)[])
                for (const g5Implementation of implementations)
                  for (const g6 of [
                    { implementation: "implemented" as const, passed: true },
                    { implementation: "implemented" as const, passed: false },
                    { implementation: "proposed" as const, passed: false },
                  ])
                    for (const ci of ["above 1", "below 1", "includes 1"] as CiPosition[])
                      yield {
                        g1,
                        g1Implementation,
                        g2Fails,
                        g3Fails,
                        g4,
                        scorerValidated,
                        archetype,
                        g5Implementation,
                        g6,
                        ci,
                      };
}

// ---------------------------------------------------------------- the paper's first-match table

interface Expected {
  step: number;
  raw: string;
  bucket: string;
}

/** §3's conditions top to bottom ("the first one that fires determines the status") and App. G, Table 5. */
const FIRST_MATCH: { step: number; fires: (k: Knobs) => boolean; verdict: (k: Knobs) => Omit<Expected, "step"> }[] = [
  // 1. ineligible (F1-type): G1 cannot be evaluated (or, Table 1, its no-op / parseability condition fails).
  { step: 1, fires: (k) => k.g1 !== "none", verdict: () => ({ raw: "not_applicable", bucket: "ineligible (F1)" }) },
  // 2. failed G2-G4: an implemented numerical gate fails on this cell.
  {
    step: 2,
    fires: (k) => k.g2Fails || k.g3Fails || k.g4 !== "none",
    verdict: () => ({ raw: "inconclusive", bucket: "failed G2-G4" }),
  },
  // 3. scorer-unvalidated, applied when G2-G4 pass.
  {
    step: 3,
    fires: (k) => !k.scorerValidated,
    verdict: () => ({ raw: "uninterpretable_scorer", bucket: "scorer-unvalidated" }),
  },
  // 4. ineligible (F5-type), applied when G2-G4 pass and the scorer is validated: not a diagnostic benchmark.
  {
    step: 4,
    fires: (k) => k.archetype === "invariance" || k.archetype === "mixed",
    verdict: () => ({ raw: "attribute_family_mismatch", bucket: "ineligible (F5)" }),
  },
  // 5. exploratory: a gate of G1-G6 is not implemented-and-passed (G5 undisclosed, G6 proposed, G1
  //    partial), or the CI contains 1 (selective / non-selective are defined only for a CI off 1).
  {
    step: 5,
    fires: (k) => !allSixImplementedAndPassed(k) || k.ci === "includes 1",
    verdict: (k) => ({ raw: rawOf(k.ci), bucket: "exploratory" }),
  },
  // 6. confirmatory: G1-G6 all implemented and passed; selective above 1, non-selective below.
  {
    step: 6,
    fires: () => true,
    verdict: (k) => ({
      raw: rawOf(k.ci),
      bucket: k.ci === "above 1" ? "confirmatory-selective" : "confirmatory-non-selective",
    }),
  },
];

function allSixImplementedAndPassed(k: Knobs): boolean {
  return (
    k.g1Implementation === "implemented" &&
    k.archetype !== null &&
    k.g5Implementation === "implemented" &&
    k.g6.implementation === "implemented" &&
    k.g6.passed
  );
}

function rawOf(ci: CiPosition): string {
  return ci === "above 1" ? "selective" : ci === "below 1" ? "non_selective" : "ci_includes_one";
}

function expectedStatus(k: Knobs): Expected & { flags: string[] } {
  const row = FIRST_MATCH.find((r) => r.fires(k))!;
  // Table 3's secondary flags: the benchmark-level conditions below the primary step that fired.
  const mismatch = k.archetype === "invariance" || k.archetype === "mixed";
  const flags: string[] = [];
  if (row.step === 2 && !k.scorerValidated) flags.push("SU");
  if ((row.step === 2 || row.step === 3) && mismatch) flags.push("F5");
  return { step: row.step, ...row.verdict(k), flags };
}

function describe(k: Knobs): string {
  const failing = [
    k.g1 !== "none" && `G1 ${k.g1}`,
    k.g1Implementation !== "implemented" && `G1 ${k.g1Implementation}`,
    k.g2Fails && "G2 fails",
    k.g3Fails && "G3 fails",
    k.g4 !== "none" && `G4 ${k.g4}`,
    !k.scorerValidated && "scorer unvalidated",
    k.archetype !== "diagnostic" && `archetype ${k.archetype ?? "undisclosed"}`,
    k.g5Implementation !== "implemented" && `G5 ${k.g5Implementation}`,
    !(k.g6.implementation === "implemented" && k.g6.passed) &&
      `G6 ${k.g6.implementation}/${k.g6.passed ? "passed" : "failed"}`,
    `CI ${k.ci}`,
  ].filter(Boolean);
  return failing.join(", ");
}

test("the status of every combination of failing conditions is the paper's first match (§3, App. G)", () => {
  const disagreements: string[] = [];
  let combinations = 0;
  for (const knobs of everyCombination()) {
    combinations++;
    const status = cellStatus(evidenceOf(knobs));
    const expected = expectedStatus(knobs);
    const got = { step: status.step, raw: status.raw, bucket: status.bucket, flags: status.flags };
    if (JSON.stringify(got) !== JSON.stringify(expected))
      disagreements.push(`[${describe(knobs)}]: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
  }
  assert.equal(combinations, 4 * 2 * 2 * 2 * 4 * 2 * 4 * 3 * 3 * 3);
  assert.deepEqual(
    disagreements.slice(0, 3),
    [],
    `${disagreements.length} of ${combinations} combinations disagree with the first-match table`,
  );
});

test("every step of the table is reached by some combination (the enumeration covers the algorithm)", () => {
  const reached = new Map<string, number>();
  for (const knobs of everyCombination()) {
    const { step, bucket } = expectedStatus(knobs);
    reached.set(`${step} ${bucket}`, (reached.get(`${step} ${bucket}`) ?? 0) + 1);
  }
  assert.deepEqual([...reached.keys()].sort(), [
    "1 ineligible (F1)",
    "2 failed G2-G4",
    "3 scorer-unvalidated",
    "4 ineligible (F5)",
    "5 exploratory",
    "6 confirmatory-non-selective",
    "6 confirmatory-selective",
  ]);
});

// ---------------------------------------------------------------- G2

function g2Passes(score: number, n: number, baseline: number, thresholds: GateThresholds = DEFAULT_THRESHOLDS) {
  const evidence = evidenceOf({
    g1: "none",
    g1Implementation: "implemented",
    g2Fails: false,
    g3Fails: false,
    g4: "none",
    scorerValidated: true,
    archetype: "diagnostic",
    g5Implementation: "implemented",
    g6: { implementation: "implemented", passed: true },
    ci: "above 1",
  });
  const gates = evaluateGates({ ...evidence, original: { score, n, baseline } }, thresholds);
  return gates.find((g) => g.id === "G2")!.passed;
}

/** The one-sample z of the score against b, its SE under H0: p = b. */
function nullZ(score: number, n: number, baseline: number): number {
  return (score - baseline) / Math.sqrt((baseline * (1 - baseline)) / n);
}

test("G2 takes its SE under the null, sqrt(b(1 - b)/n), where the score's own SE would decide otherwise", () => {
  // [score, n, baseline, passes]: each decided the other way by 2 sqrt(s(1 - s)/n).
  const cases: [number, number, number, boolean][] = [
    // Far above b with small n: 0.3 above 1/2; 2 SE = 0.316 at b, 0.253 at s.
    [0.8, 10, 0.5, false],
    // 0.3 above 0.55; 2 SE = 0.315 at b, 0.226 at s.
    [0.85, 10, 0.55, false],
    // b near 0: the null SE is the smaller one. 0.2 above 0.1; 2 SE = 0.134 at b, 0.205 at s.
    [0.3, 20, 0.1, true],
    // 0.25 above 0.2; 2 SE = 0.231 at b, 0.287 at s.
    [0.45, 12, 0.2, true],
  ];
  for (const [score, n, baseline, passes] of cases) {
    const bySelf = score - baseline >= 2 * Math.sqrt((score * (1 - score)) / n);
    const z = nullZ(score, n, baseline);
    assert.equal(passes, z >= 2, `table row s=${score} n=${n} b=${baseline}`);
    assert.notEqual(bySelf, passes, `s=${score} n=${n} b=${baseline}: the two SEs must disagree`);
    assert.equal(
      g2Passes(score, n, baseline),
      passes,
      `G2 at s=${score}, n=${n}, b=${baseline}: z under the null ${z.toFixed(3)} (pass iff >= 2); the score's SE would say ${bySelf}`,
    );
  }
});

test("G2 on the paper's panel: Qwen x BBQ and Mistral x XSTest fail, and 2 SE at b = 1/3, n = 200 is 6.7 pp", () => {
  assert.equal((2 * Math.sqrt(((1 / 3) * (2 / 3)) / 200)).toFixed(3), "0.067");
  assert.equal(g2Passes(0.34, 200, 1 / 3), false, "Qwen × BBQ: 0.340 vs 1/3");
  assert.equal(g2Passes(0.565, 200, 0.5), false, "Mistral × XSTest: 0.565 vs 1/2");
  for (const [cell, score, baseline] of [
    ["Qwen × TruthfulQA", 0.485, 0.25],
    ["Mistral × TruthfulQA", 0.52, 0.25],
    ["Mistral × BBQ", 0.425, 1 / 3],
    ["Qwen × XSTest", 0.62, 0.5],
    ["Qwen × ToxiGen", 0.785, 0.5],
  ] as const)
    assert.equal(g2Passes(score, 200, baseline), true, `${cell}: ${score} vs ${baseline}`);
});

test("G2 over a seeded grid is the one-sample test against b, and monotone in the score and in n", () => {
  const random = seededRandom(31);
  const baselines = [0.05, 0.1, 0.25, 1 / 3, 0.5, 0.7];
  const ns = [5, 10, 20, 50, 200, 1000];
  let checked = 0;
  for (let k = 0; k < 400; k++) {
    const baseline = baselines[Math.floor(random.uniform() * baselines.length)];
    const n = ns[Math.floor(random.uniform() * ns.length)];
    const score = Math.round(random.uniform() * n) / n;
    const z = nullZ(score, n, baseline);
    if (Math.abs(z - 2) < 1e-9) continue;
    assert.equal(g2Passes(score, n, baseline), z >= 2, `s=${score} n=${n} b=${baseline}: z=${z}`);
    checked++;
  }
  assert.ok(checked > 350, `the grid checked ${checked} cases`);
  for (const baseline of baselines) {
    for (const n of ns) {
      // A higher score never turns a pass into a failure.
      let passed = false;
      for (let x = 0; x <= n; x++) {
        const now = g2Passes(x / n, n, baseline);
        assert.ok(!(passed && !now), `G2 at b=${baseline}, n=${n}: passes at a lower score but fails at ${x}/${n}`);
        passed ||= now;
      }
    }
    // More items at the same score above b never turn a pass into a failure.
    for (const score of [baseline + 0.02, baseline + 0.1, Math.min(0.99, baseline + 0.3)]) {
      let passed = false;
      for (const n of [4, 8, 16, 32, 64, 128, 256, 512, 1024]) {
        const now = g2Passes(score, n, baseline);
        assert.ok(!(passed && !now), `G2 at b=${baseline}, s=${score}: passes at fewer items but fails at n=${n}`);
        passed ||= now;
      }
    }
  }
});

// ---------------------------------------------------------------- monotone gates

const PASSING: Knobs = {
  g1: "none",
  g1Implementation: "implemented",
  g2Fails: false,
  g3Fails: false,
  g4: "none",
  scorerValidated: true,
  archetype: "diagnostic",
  g5Implementation: "implemented",
  g6: { implementation: "implemented", passed: true },
  ci: "above 1",
};

function gatePassed(evidence: CellEvidence, id: string, thresholds: GateThresholds = DEFAULT_THRESHOLDS): boolean {
  return evaluateGates(evidence, thresholds).find((g) => g.id === id)!.passed;
}

/** Walks `values` in the order that worsens the input; a failure must never be followed by a pass. */
function assertMonotone(label: string, values: readonly number[], passes: (value: number) => boolean): void {
  let failedAt: number | null = null;
  for (const value of values) {
    const passed = passes(value);
    assert.ok(!(failedAt !== null && passed), `${label}: fails at ${failedAt} but passes at the worse ${value}`);
    if (!passed) failedAt = value;
  }
}

test("each gate is monotone in its input over a seeded grid (a worse input never turns a failure into a pass)", () => {
  const random = seededRandom(2026);
  const base = evidenceOf(PASSING);
  const sortedGrid = (n: number, scale: number) =>
    Array.from({ length: n }, () => random.uniform() * scale).sort((a, b) => a - b);
  for (let round = 0; round < 20; round++) {
    const cap = [0.05, 0.1, 0.2][round % 3];
    const t = { ...DEFAULT_THRESHOLDS, noOpCap: cap, g3: [0.01, 0.02, 0.05][round % 3] };
    // G1: a higher no-op rate of one method; a lower parseability of a regex scorer.
    assertMonotone(`G1 no-op rate (cap ${cap})`, sortedGrid(40, 1), (rate) =>
      gatePassed({ ...base, noOp: { instrumented: true, rates: { format: rate, semantic: 0 } } }, "G1", t),
    );
    assertMonotone("G1 parseability", sortedGrid(40, 1).reverse(), (rate) =>
      gatePassed({ ...base, parseability: { regexScorer: true, rate } }, "G1", t),
    );
    // G3: a smaller denominator.
    assertMonotone(`G3 denominator (threshold ${t.g3})`, sortedGrid(40, 0.2).reverse(), (d) =>
      gatePassed({ ...base, csr: { ...base.csr, denominator: d } }, "G3", t),
    );
    // G4: fewer items; a larger seed CV.
    assertMonotone("G4 items", [...new Set(sortedGrid(40, 100).map(Math.round))].reverse(), (items) =>
      gatePassed({ ...base, csr: { ...base.csr, items } }, "G4", t),
    );
    assertMonotone("G4 seed CV", sortedGrid(40, 1), (seedCv) => gatePassed({ ...base, seedCv }, "G4", t));
    // Stricter thresholds never turn a failure into a pass.
    const rate = random.uniform() * 0.4;
    assertMonotone(`G1 cap at no-op rate ${rate}`, sortedGrid(20, 0.5).reverse(), (noOpCap) =>
      gatePassed({ ...base, noOp: { instrumented: true, rates: { format: rate } } }, "G1", {
        ...DEFAULT_THRESHOLDS,
        noOpCap,
      }),
    );
    const score = 0.25 + random.uniform() * 0.2;
    assertMonotone(`G2 SEs required at score ${score}`, sortedGrid(20, 5), (baselineSe) =>
      gatePassed({ ...base, original: { score, n: 200, baseline: 0.25 } }, "G2", {
        ...DEFAULT_THRESHOLDS,
        baselineSe,
      }),
    );
  }
});

test("adding a failing condition never turns a cell confirmatory (the status is monotone in the failures)", () => {
  const switches: ((k: Knobs) => Knobs)[] = [
    (k) => ({ ...k, g1: "uninstrumented" }),
    (k) => ({ ...k, g1Implementation: "partial" }),
    (k) => ({ ...k, g2Fails: true }),
    (k) => ({ ...k, g3Fails: true }),
    (k) => ({ ...k, g4: "seed CV high" }),
    (k) => ({ ...k, scorerValidated: false }),
    // A diagnostic benchmark turned archetype-mismatched, or its archetype left undisclosed.
    (k) => (k.archetype === "diagnostic" ? { ...k, archetype: "invariance" } : k),
    (k) => (k.archetype === "diagnostic" ? { ...k, archetype: null } : k),
    (k) => ({ ...k, g5Implementation: "proposed" }),
    (k) => ({ ...k, g6: { implementation: "proposed", passed: false } }),
  ];
  for (const knobs of everyCombination()) {
    if (knobs.ci === "includes 1" || knobs.g5Implementation === "partial") continue;
    const before = cellStatus(evidenceOf(knobs));
    for (const worsen of switches) {
      const worse = worsen(knobs);
      if (worse === knobs) continue;
      const after = cellStatus(evidenceOf(worse));
      assert.ok(
        !(after.bucket.startsWith("confirmatory") && !before.bucket.startsWith("confirmatory")),
        `[${describe(knobs)}] is not confirmatory but [${describe(worse)}] is`,
      );
      // A failure of a gate checked earlier can only move the status to an earlier (or the same) step.
      if (before.step <= 4)
        assert.ok(after.step <= before.step, `[${describe(knobs)}] -> [${describe(worse)}]: the step grew`);
    }
  }
});

// ---------------------------------------------------------------- the audit cell's symmetric drop

const FAMILIES = ["format", "semantic", "attribute", "placebo"] as const;

/** A cell's rows as the runner stores them: per item, the original and one perturbation per family. */
function auditRows(items: number, seed: number): { rows: AnalysisRow[]; replies: Map<string, Reply> } {
  const random = seededRandom(seed);
  const pick = (): Reply => {
    const u = random.uniform();
    return u < 0.2 ? "unparsed" : u < 0.6 ? "wrong" : "correct";
  };
  const rows: AnalysisRow[] = [];
  const replies = new Map<string, Reply>();
  for (let i = 0; i < items; i++) {
    const item = `q${String(i).padStart(3, "0")}`;
    for (const perturbation of ["none", ...FAMILIES.map((f) => `${f}(seed=42,slot=0)`)]) {
      const reply = pick();
      replies.set(`${item}/${perturbation}`, reply);
      rows.push(scoredRow({ model: "m", benchmark: "b", item, facets: { format: "mc", perturbation }, reply }));
    }
  }
  return { rows, replies };
}

test("audit cells drop a pair symmetrically when either side failed to parse (rows as the runner stores them)", () => {
  const { rows, replies } = auditRows(60, 7);
  // The scorer's real shape: a parse failure is a scored 0, not a missing outcome.
  const failure = rows.find((r) => r.parseFailed);
  assert.ok(failure, "the seeded replies include a parse failure");
  assert.equal(failure.outcome, 0, "a parse failure carries outcome 0, as the scorer returns it");
  const cells = groupCells(rows);
  assert.equal(cells.length, 1);
  const { cell } = auditCell(cells[0], { plan: normalizePlan({ audit: { resamples: 200 } }), facts: undefined });

  // Expected from the replies alone: a correct reply scores 1, a wrong one 0, an unparsed one is no score.
  const value = (reply: Reply): number | null => (reply === "correct" ? 1 : reply === "wrong" ? 0 : null);
  const items = [...new Set(rows.map((r) => r.item))];
  for (const family of FAMILIES) {
    let used = 0;
    let dropped = 0;
    let total = 0;
    for (const item of items) {
      const o = value(replies.get(`${item}/none`)!);
      const p = value(replies.get(`${item}/${family}(seed=42,slot=0)`)!);
      if (o === null || p === null) {
        dropped++;
        continue;
      }
      used++;
      total += Math.abs(p - o);
    }
    const got = cell.deltas[family];
    assert.equal(
      got.droppedPairs,
      dropped,
      `${family}: ${dropped} pairs have a parse failure on either side and must be dropped, ${got.droppedPairs} were`,
    );
    assert.equal(got.items, used, `${family}: items with a usable pair`);
    assert.ok(
      Math.abs((got.delta ?? Number.NaN) - total / used) < 1e-12,
      `${family}: |Δ| ${got.delta} vs ${total / used} over the pairs both sides of which parsed`,
    );
  }
  const originals = items.map((item) => value(replies.get(`${item}/none`)!)).filter((v): v is number => v !== null);
  assert.equal(cell.original.n, originals.length, "the original score's n counts parsed originals only");
  assert.ok(
    Math.abs((cell.original.score ?? Number.NaN) - originals.reduce((a, b) => a + b, 0) / originals.length) < 1e-12,
    `original score ${cell.original.score}: the mean over parsed originals`,
  );
  assert.equal(
    cell.parseability.droppedPairs,
    FAMILIES.reduce((sum, f) => sum + cell.deltas[f].droppedPairs, 0),
    "the parseability half of G1 counts the same symmetric drops",
  );
});
