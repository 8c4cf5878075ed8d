/**
 * The measurement-integrity gate checked by its properties, on rows built as the runner builds
 * them (tests/helpers/scored-trials.ts: a parse failure is outcome 0 with parse status failed):
 * - the parse-failure imbalance is two-sided: failures in the reference cell count as much as in
 *   the condition's, and swapping the sides never changes the verdict;
 * - a failing reference cell alone downgrades every verdict that reads it (contrasts, flips, the
 *   within-format TOST, the option-preserving recovery), over every subset of failing cells
 *   against a rule written here: a verdict is downgraded iff one of the cells it reads fails;
 * - every check is monotone in its input over a seeded grid (more parse failures, errors, lost
 *   options, no-ops, a lower kappa, a more skewed gold position never turn a failure into a pass;
 *   a stricter threshold never does either).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuditFacts } from "../../src/analysis/core/audit-facts.js";
import {
  gateVerdicts,
  type IntegrityCheckResult,
  type IntegrityResult,
  runIntegrityChecks,
} from "../../src/analysis/integrity/gate.js";
import type { IntegrityFacts, JudgeFacts } from "../../src/analysis/integrity/registry.js";
import { normalizePlan } from "../../src/analysis/core/plan.js";
import { analyzeStudy, type StudyAnalysis } from "../../src/analysis/core/study.js";
import type { AnalysisRow } from "../../src/analysis/core/table.js";
import type { AnalysisPlanInput } from "../../src/contracts/analysis.js";
import type { TrialPerturbationFact } from "../../src/run/score/no-op-audit.js";
import { seededRandom } from "../../src/stats/random.js";
import { type Reply, scoredRow } from "../helpers/scored-trials.js";
import { plantedTable } from "./helpers.js";

const REFERENCE = "direct";

/** One cell's rows: `n` trials of the condition in the benchmark, the first ones given `replies`, the rest correct. */
function cellRows(
  condition: string,
  benchmark: string,
  n: number,
  replies: Reply[] = [],
  extra: { facets?: Record<string, string>; audit?: (i: number) => Record<string, number> } = {},
): AnalysisRow[] {
  return Array.from({ length: n }, (_, i) =>
    scoredRow({
      model: "m",
      benchmark,
      item: `${benchmark}-${i}`,
      facets: { scaffold: condition, ...extra.facets },
      reply: replies[i] ?? (i % 3 === 0 ? "wrong" : "correct"),
      ...(extra.audit ? { audit: extra.audit(i) } : {}),
    }),
  );
}

const times = (k: number, reply: Reply): Reply[] => Array.from({ length: k }, () => reply);

function checkOf(
  rows: AnalysisRow[],
  name: string,
  plan: AnalysisPlanInput = {},
  judges?: JudgeFacts,
  facts?: IntegrityFacts,
) {
  const result = runIntegrityChecks({
    rows,
    plan: normalizePlan(plan),
    comparisonFacet: "scaffold",
    reference: REFERENCE,
    judges,
    facts,
  });
  const check = result.checks.find((c) => c.check === name);
  assert.ok(check, `check ${name} is registered`);
  return check;
}

/** The cells a check flags (fail, or warn when `warn`), as "condition/benchmark". */
function flagged(check: IntegrityCheckResult, warn = false): string[] {
  return check.cells
    .filter((c) => c.status === "fail" || (warn && c.status === "warn"))
    .map((c) => `${c.condition}/${c.benchmark}`)
    .sort();
}

/** Along a sequence of inputs each no better than the last, a flagged cell stays flagged. */
function assertMonotone(label: string, steps: { input: string; flagged: string[] }[]): void {
  for (let i = 1; i < steps.length; i++) {
    const lost = steps[i - 1].flagged.filter((c) => !steps[i].flagged.includes(c));
    assert.deepEqual(
      lost,
      [],
      `${label}: ${lost.join(", ")} flagged at ${steps[i - 1].input} but not at the worse ${steps[i].input}`,
    );
  }
}

describe("parse-failure imbalance", () => {
  it("is two-sided: parse failures in the reference cell alone flag the condition's cell", () => {
    // 6 of 40 (15%): under the 20% parse-failure cap, above the 10-point imbalance.
    const inCondition = [...cellRows(REFERENCE, "b1", 40), ...cellRows("cot", "b1", 40, times(6, "unparsed"))];
    const inReference = [...cellRows(REFERENCE, "b1", 40, times(6, "unparsed")), ...cellRows("cot", "b1", 40)];
    assert.ok(
      inReference.some((r) => r.parseFailed && r.outcome === 0),
      "parse failures carry outcome 0, as the scorer returns them",
    );
    for (const [where, rows] of [
      ["the condition", inCondition],
      ["the reference", inReference],
    ] as const) {
      const check = checkOf(rows, "parse_imbalance");
      assert.equal(check.status, "fail", `failures in ${where}: ${check.detail}`);
      assert.deepEqual(flagged(check), ["cot/b1"], `failures in ${where} flag the condition's cell`);
      assert.equal(checkOf(rows, "parse_failures").status, "pass", "15% is under the parse-failure cap");
    }
  });

  it("over a seeded grid: flagged iff |own - reference| exceeds the threshold, whichever side has more", () => {
    const random = seededRandom(17);
    for (let round = 0; round < 40; round++) {
      const n = 20 + Math.floor(random.uniform() * 30);
      const own = Math.floor(random.uniform() * n * 0.5);
      const ref = Math.floor(random.uniform() * n * 0.5);
      const threshold = [0.05, 0.1, 0.2][round % 3];
      const gap = Math.abs(own - ref) / n;
      if (Math.abs(gap - threshold) < 1e-9) continue;
      const verdict = (condition: number, reference: number) =>
        flagged(
          checkOf(
            [
              ...cellRows(REFERENCE, "b1", n, times(reference, "unparsed")),
              ...cellRows("cot", "b1", n, times(condition, "unparsed")),
            ],
            "parse_imbalance",
            { integrity: { parse_imbalance: threshold, parse_failures: 1 } },
          ),
        );
      const expected = gap > threshold ? ["cot/b1"] : [];
      assert.deepEqual(
        verdict(own, ref),
        expected,
        `n=${n}: ${own} vs ${ref} at the reference, threshold ${threshold}`,
      );
      assert.deepEqual(verdict(ref, own), expected, `n=${n}: swapped, ${ref} vs ${own} at the reference`);
    }
  });
});

// ---------------------------------------------------------------- the gate over failing cells

const FAST = { bootstrap: { resamples: 100 }, specification_curve: false as const };
const CONDITIONS = [REFERENCE, "map_reduce", "map_reduce_options"];
const BENCHMARKS = ["b1", "b2"];

let study: Promise<StudyAnalysis> | undefined;

/** A planted study with a format facet and the option-preserving pair: every gated verdict exists. */
function cleanStudy(): Promise<StudyAnalysis> {
  study ??= analyzeStudy(
    plantedTable({
      seed: 5,
      models: { m1: 0, m2: -0.05 },
      benchmarks: BENCHMARKS,
      itemsPerBenchmark: 30,
      effects: { [REFERENCE]: 0, map_reduce: -0.15, map_reduce_options: -0.03 },
      extraFacet: { name: "format", levels: { mc: 0, oe: 0.05 } },
    }),
    normalizePlan(FAST),
  );
  return study;
}

/** Every gated verdict of a result, each with the cells it reads, and whether it is downgraded. */
function gatedVerdicts(result: StudyAnalysis): { label: string; reads: string[]; downgraded: boolean }[] {
  const everywhere = (conditions: string[]) => BENCHMARKS.flatMap((b) => conditions.map((c) => `${c}/${b}`));
  const out: { label: string; reads: string[]; downgraded: boolean }[] = [];
  for (const population of ["itt", "pp"] as const) {
    const pc = result.contrasts[population];
    const groups = [pc, ...(pc.byFormat ?? [])];
    for (const group of groups) {
      const scopes = [
        { scope: group.pooled, benchmarks: BENCHMARKS },
        ...group.byBenchmark.map((scope) => ({ scope, benchmarks: [scope.scope] })),
        ...(group.byModel ?? []).map((scope) => ({ scope, benchmarks: BENCHMARKS })),
      ];
      for (const { scope, benchmarks } of scopes)
        for (const c of scope.contrasts)
          out.push({
            label: `${population} ${scope.kind ?? ""} ${scope.scope} ${scope.format ?? ""} ${c.condition}`,
            reads: benchmarks.flatMap((b) => [`${c.condition}/${b}`, `${REFERENCE}/${b}`]),
            downgraded: c.notInterpretable !== undefined,
          });
    }
  }
  for (const flip of result.paired.flips)
    out.push({
      label: `flips ${flip.benchmark} ${flip.condition}`,
      reads: (flip.benchmark === "all" ? BENCHMARKS : [flip.benchmark]).flatMap((b) => [
        `${flip.condition}/${b}`,
        `${REFERENCE}/${b}`,
      ]),
      downgraded: flip.notInterpretable !== undefined,
    });
  const format = result.format;
  if (format && !("skipped" in format))
    for (const w of format.withinFormat)
      out.push({
        label: `within-format ${w.condition}`,
        reads: everywhere([w.condition, REFERENCE]),
        downgraded: w.notInterpretable !== undefined,
      });
  const op = result.optionPreserving;
  if (op && !("skipped" in op))
    for (const row of op.rows)
      out.push({
        label: `recovery ${row.model}`,
        reads: everywhere([REFERENCE, op.standard, op.preserving]),
        downgraded: row.notInterpretable !== undefined,
      });
  return out;
}

function failingCells(cells: string[]): IntegrityResult {
  const check: IntegrityCheckResult = {
    check: "planted",
    title: "a planted failure",
    status: cells.length ? "fail" : "pass",
    threshold: "",
    detail: "",
    cells: cells.map((key) => {
      const [condition, benchmark] = key.split("/");
      return { condition, benchmark, status: "fail" as const, reason: `planted failure of ${key}` };
    }),
    downgraded: [],
  };
  return { checks: [check], failed: cells.length > 0 };
}

describe("the gate over every subset of failing cells", () => {
  it("a verdict is downgraded iff a cell it reads fails (the reference cell alone included), and more failing cells never restore one", async () => {
    const clean = await cleanStudy();
    const verdicts = gatedVerdicts(clean);
    assert.ok(verdicts.length > 20, `${verdicts.length} gated verdicts`);
    assert.ok(
      verdicts.every((v) => !v.downgraded),
      "the clean study has no downgraded verdict",
    );
    for (const kind of ["flips", "within-format", "recovery"])
      assert.ok(
        verdicts.some((v) => v.label.startsWith(kind)),
        `the study has ${kind} verdicts`,
      );
    const cells = CONDITIONS.flatMap((c) => BENCHMARKS.map((b) => `${c}/${b}`));
    const downgradedBy = new Map<number, Set<string>>();
    for (let mask = 0; mask < 1 << cells.length; mask++) {
      const failing = cells.filter((_, i) => mask & (1 << i));
      const result = structuredClone(clean);
      gateVerdicts(result, failingCells(failing), REFERENCE);
      const after = gatedVerdicts(result);
      const wrong = after.filter((v) => v.downgraded !== v.reads.some((c) => failing.includes(c)));
      assert.deepEqual(
        wrong.slice(0, 3).map((v) => `${v.label}: downgraded ${v.downgraded}, reads ${v.reads.join(" ")}`),
        [],
        `failing [${failing.join(", ")}]: ${wrong.length} verdict(s) disagree with "downgraded iff a cell it reads fails"`,
      );
      downgradedBy.set(mask, new Set(after.filter((v) => v.downgraded).map((v) => v.label)));
    }
    for (const [mask, downgraded] of downgradedBy)
      for (let i = 0; i < cells.length; i++) {
        const more = downgradedBy.get(mask | (1 << i))!;
        const restored = [...downgraded].filter((label) => !more.has(label));
        assert.deepEqual(restored, [], `failing ${cells[i]} as well restored ${restored.join(", ")}`);
      }
  });

  it("a reference cell failing alone (errored trials) downgrades every verdict that reads it, through analyze", async () => {
    const table = plantedTable({
      seed: 5,
      models: { m1: 0, m2: -0.05 },
      benchmarks: BENCHMARKS,
      itemsPerBenchmark: 30,
      effects: { [REFERENCE]: 0, map_reduce: -0.15, map_reduce_options: -0.03 },
      extraFacet: { name: "format", levels: { mc: 0, oe: 0.05 } },
    });
    // 40% of the reference's b1 trials errored, as the store gives them back: no outcome.
    let i = 0;
    for (const row of table.rows)
      if (row.facets.scaffold === REFERENCE && row.benchmark === "b1" && i++ % 5 < 2) {
        row.errored = true;
        row.outcome = null;
        row.parseFailed = false;
      }
    const result = await analyzeStudy(table, normalizePlan(FAST));
    const failed = result.integrity.checks.filter((c) => c.status === "fail");
    assert.deepEqual(
      failed.map((c) => `${c.check}: ${flagged(c).join(" ")}`),
      [`errored: ${REFERENCE}/b1`],
      "only the reference cell of b1 fails",
    );
    for (const v of gatedVerdicts(result))
      assert.equal(
        v.downgraded,
        v.reads.includes(`${REFERENCE}/b1`),
        `${v.label}: reads ${v.reads.join(" ")}; downgraded ${v.downgraded}`,
      );
  });
});

// ---------------------------------------------------------------- monotone checks

describe("every integrity check is monotone in its input", () => {
  const random = seededRandom(41);
  const n = 20;
  const ks = (max: number) =>
    [...new Set([0, max, ...Array.from({ length: 8 }, () => Math.floor(random.uniform() * (max + 1)))])].sort(
      (a, b) => a - b,
    );

  it("more parse failures: parse_failures, nothing_measured and parseability never go from fail to pass", () => {
    for (const check of ["parse_failures", "nothing_measured", "parseability"]) {
      const steps = ks(n).map((k) => {
        const facets = { perturbation: "format(seed=42,slot=0)" };
        const rows = [
          ...cellRows(REFERENCE, "b1", n, [], { facets }),
          ...cellRows("cot", "b1", n, times(k, "unparsed"), { facets }),
        ];
        return { input: `${k} of ${n} unparsed`, flagged: flagged(checkOf(rows, check)) };
      });
      assert.deepEqual(steps.at(-1)?.flagged, ["cot/b1"], `${check}: every answer unparsed fails the cell`);
      assertMonotone(check, steps);
    }
  });

  it("a larger parse-failure gap: parse_imbalance never goes from fail to pass, on either side", () => {
    for (const base of [0, 4, 10]) {
      const away = (ks: number[]) =>
        ks.map((k) => {
          const rows = [
            ...cellRows(REFERENCE, "b1", n, times(base, "unparsed")),
            ...cellRows("cot", "b1", n, times(k, "unparsed")),
          ];
          return { input: `${k} vs ${base} unparsed`, flagged: flagged(checkOf(rows, "parse_imbalance")) };
        });
      assertMonotone(`gap above ${base}`, away(ks(n).filter((k) => k >= base)));
      assertMonotone(
        `gap below ${base}`,
        away(
          ks(n)
            .filter((k) => k <= base)
            .reverse(),
        ),
      );
    }
  });

  it("more errored trials: errored or nothing_measured never go from fail to pass", () => {
    const steps = ks(n).map((k) => {
      const rows = [...cellRows(REFERENCE, "b1", n), ...cellRows("cot", "b1", n, times(k, "errored"))];
      const union = [...new Set([...flagged(checkOf(rows, "errored")), ...flagged(checkOf(rows, "nothing_measured"))])];
      return { input: `${k} of ${n} errored`, flagged: union.sort() };
    });
    assert.deepEqual(steps.at(-1)?.flagged, ["cot/b1"], "every trial errored fails the cell");
    assertMonotone("errored", steps);
  });

  it("options lost in more trials: propagation never goes from fail to pass", () => {
    const steps = ks(n).map((k) => {
      const audit = (lost: number) => (i: number) => ({ options_reached_share: i < lost ? 0 : 1 });
      const rows = [
        ...cellRows(REFERENCE, "b1", n, [], { audit: audit(0) }),
        ...cellRows("cot", "b1", n, [], { audit: audit(k) }),
      ];
      return { input: `options lost in ${k} of ${n}`, flagged: flagged(checkOf(rows, "propagation")) };
    });
    assert.deepEqual(steps.at(-1)?.flagged, ["cot/b1"]);
    assertMonotone("propagation", steps);
  });

  it("more silent no-ops: silent_no_op never goes from fail to pass", () => {
    const steps = ks(n).map((k) => {
      const rows = [...cellRows(REFERENCE, "b1", n), ...cellRows("cot", "b1", n)];
      const trials = new Map<string, TrialPerturbationFact>();
      rows.forEach((row, i) => {
        const applied = row.facets.scaffold === "cot";
        trials.set(row.trialId!, {
          path: "free_form",
          status: applied ? "applied" : "original",
          family: applied ? "format" : null,
          perturbation: applied ? "case_change" : null,
          seed: applied ? 42 : null,
          slot: applied ? 0 : null,
          noOp: applied ? i - n < k : null,
        });
      });
      const audit: AuditFacts = { noOp: { trials, rates: [], samples: [] }, benchmarks: {} };
      return {
        input: `${k} of ${n} no-ops`,
        flagged: flagged(checkOf(rows, "silent_no_op", {}, undefined, { audit })),
      };
    });
    assert.deepEqual(steps.at(-1)?.flagged, ["cot/b1"]);
    assertMonotone("silent_no_op", steps);
  });

  it("a lower judge kappa or a larger blinding index: judge_quality never goes from fail to pass", () => {
    const rows = [...cellRows(REFERENCE, "b1", n), ...cellRows("cot", "b1", n)];
    const judges = (kappa: number, index: number): JudgeFacts => ({
      agreement: { crossValidated: true, kappa, details: {}, source: null, note: "" },
      blinding: { blinded: true, blindingIndex: index, details: {}, source: null, note: "" },
    });
    const kappas = Array.from({ length: 12 }, () => random.uniform() * 2 - 1).sort((a, b) => b - a);
    assertMonotone(
      "kappa",
      kappas.map((kappa) => ({
        input: `kappa ${kappa.toFixed(3)}`,
        flagged: flagged(checkOf(rows, "judge_quality", {}, judges(kappa, 0))),
      })),
    );
    const indices = Array.from({ length: 12 }, () => random.uniform()).sort((a, b) => a - b);
    assertMonotone(
      "blinding index",
      indices.flatMap((index) =>
        [index, -index].map((signed) => ({
          input: `blinding index ${signed.toFixed(3)}`,
          flagged: flagged(checkOf(rows, "judge_quality", {}, judges(0.9, signed))),
        })),
      ),
    );
  });

  it("a gold position more over-represented: gold_position never goes from fail to pass", () => {
    const items = 100;
    const rows = [...cellRows(REFERENCE, "b1", items), ...cellRows("cot", "b1", items)];
    const steps = [25, 28, 31, 34, 37, 40, 45, 50, 60, 80, 100].map((atFirst) => {
      // `atFirst` of 100 items show their gold first; the rest are spread evenly over positions 2-4.
      const trials = new Map(
        rows.map((row) => {
          const i = Number(row.item.split("-")[1]);
          const position = i < atFirst ? 0 : 1 + ((i - atFirst) % 3);
          return [row.trialId!, { benchmark: "b1", item: row.item, position, options: 4 }];
        }),
      );
      return {
        input: `gold first in ${atFirst} of 100`,
        flagged: flagged(checkOf(rows, "gold_position", {}, undefined, { golds: { trials } })),
      };
    });
    assert.deepEqual(steps.at(-1)?.flagged, ["cot/b1", `${REFERENCE}/b1`]);
    assertMonotone("gold_position", steps);
  });

  it("more trials scored by an unvalidated scorer: scorer_validation never stops warning", () => {
    const steps = ks(n).map((k) => {
      const rows = [...cellRows(REFERENCE, "b1", n), ...cellRows("cot", "b1", n)];
      const trials = new Map<string, { scorer: string; format: string }>();
      rows.forEach((row, i) => {
        // mc_last_answer is validated on MC tasks only.
        trials.set(row.trialId!, {
          scorer: "mc_last_answer",
          format: row.facets.scaffold === "cot" && i - n < k ? "oe" : "mc",
        });
      });
      const scoring = { loaders: { b1: "inline" }, trials };
      return {
        input: `${k} of ${n} unvalidated`,
        flagged: flagged(checkOf(rows, "scorer_validation", {}, undefined, { scoring }), true),
      };
    });
    assert.deepEqual(steps.at(-1)?.flagged, ["cot/b1"]);
    assertMonotone("scorer_validation", steps);
  });

  it("a stricter threshold never turns a failure into a pass", () => {
    const rows = [
      ...cellRows(REFERENCE, "b1", n, times(2, "unparsed"), {
        facets: { perturbation: "none" },
        audit: (i) => ({ options_reached_share: i < 1 ? 0 : 1 }),
      }),
      ...cellRows("cot", "b1", n, [...times(5, "unparsed"), ...times(3, "errored")], {
        facets: { perturbation: "format(seed=42,slot=0)" },
        audit: (i) => ({ options_reached_share: i < 4 ? 0 : 1 }),
      }),
    ];
    const loose = Array.from({ length: 15 }, () => random.uniform()).sort((a, b) => b - a);
    for (const [check, key] of [
      ["parse_failures", "parse_failures"],
      ["parse_imbalance", "parse_imbalance"],
      ["errored", "errored"],
      ["propagation", "propagation"],
    ] as const)
      assertMonotone(
        check,
        loose.map((threshold) => ({
          input: `${key} ${threshold.toFixed(3)}`,
          flagged: flagged(checkOf(rows, check, { integrity: { [key]: threshold } })),
        })),
      );
    assertMonotone(
      "parseability",
      [...loose].reverse().map((threshold) => ({
        input: `parseability ${threshold.toFixed(3)}`,
        flagged: flagged(checkOf(rows, "parseability", { integrity: { parseability: threshold } })),
      })),
    );
    const judges: JudgeFacts = {
      agreement: { crossValidated: true, kappa: 0.5, details: {}, source: null, note: "" },
      blinding: { blinded: true, blindingIndex: 0.1, details: {}, source: null, note: "" },
    };
    assertMonotone(
      "judge_kappa",
      loose
        .map((_, i) => -1 + (2 * i) / loose.length)
        .map((judge_kappa) => ({
          input: `judge_kappa ${judge_kappa.toFixed(3)}`,
          flagged: flagged(checkOf(rows, "judge_quality", { integrity: { judge_kappa } }, judges)),
        })),
    );
  });
});
