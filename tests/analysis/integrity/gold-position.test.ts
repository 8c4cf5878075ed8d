/**
 * The gold-position integrity check: per cell, the share of its items whose gold option was shown
 * at each position, against uniform. Tasks are rendered as the runner renders them (the
 * perturbation facet's item stage and its task edits), their gold positions read by the study
 * directory's reader (formattedGold), and the rows built as the runner stores them. A relabelling
 * (Z, Y, X / 1, 2, 3 / I, II, III) moves no gold and must read as the position it is (named A, B,
 * C ... by the default letters, whatever the labels shown); a shuffle
 * moves the gold and must read where it went; each item counts once per cell; a finding goes to
 * the cell that has the bias.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { analyzeDirectory, normalizePlan } from "../../../src/analysis/index.js";
import { formattedGold } from "../../../src/analysis/core/integrity-facts.js";
import { goldPositionTest } from "../../../src/analysis/integrity/gold-position.js";
import { runIntegrityChecks } from "../../../src/analysis/integrity/gate.js";
import type { FormattedGold } from "../../../src/analysis/integrity/registry.js";
import type { AnalysisRow } from "../../../src/analysis/core/table.js";
import { facetLabel } from "../../../src/contracts/condition.js";
import type { Item } from "../../../src/contracts/item.js";
import type { FacetValue } from "../../../src/contracts/spec.js";
import { benchmarkPool, renderTrialTask, trialItem } from "../../../src/facets/render.js";
import { perturbations } from "../../../src/perturb/registry.js";
import type { Perturbation } from "../../../src/perturb/types.js";
import { runStudy } from "../../../src/run/execute/run-study.js";
import { openStore } from "../../../src/run/store/open.js";
import { scoredRow } from "../../helpers/scored-trials.js";
import { demoSpecYaml, writeDemoSpec } from "../../helpers/study.js";

const FAST = { bootstrap: { resamples: 200 }, specification_curve: false as const };
const ITEMS = 40;

/** Relabels the options with its own labels (numbers, roman numerals): moves no option. */
function relabelling(name: string, labels: readonly string[]): Perturbation {
  return {
    name,
    family: "format",
    description: `labels the options ${labels.join(", ")}`,
    writes: ["option_letters"],
    apply: (item) => ({
      item: structuredClone(item),
      taskEdit: { optionLetters: labels.slice(0, item.options!.length) },
      note: `labels ${labels.join(", ")}`,
    }),
  };
}

/** Moves the gold option to the front (a reorder that plants a bias the original does not have). */
const goldFirst: Perturbation = {
  name: "test_gold_first",
  family: "format",
  description: "shows the gold option first",
  writes: ["options"],
  apply(item) {
    const gold = item.goldIndex!;
    const order = [gold, ...[...item.options!.keys()].filter((i) => i !== gold)];
    return {
      item: { ...structuredClone(item), options: order.map((i) => item.options![i]), goldIndex: 0 },
      note: `option order ${order.join(",")}`,
    };
  },
};

for (const p of [
  relabelling("test_number_labels", ["1", "2", "3", "4"]),
  relabelling("test_roman_labels", ["I", "II", "III", "IV"]),
  goldFirst,
])
  if (!perturbations.has(p.name)) perturbations.register(p.name, p);

/** Four-option items with their gold at `goldAt(i)`. */
function items(goldAt: (i: number) => number): Item[] {
  return Array.from({ length: ITEMS }, (_, i) => ({
    id: `q${i}`,
    benchmark: "b1",
    stem: `Question ${i}: which of these numbers is ${i} plus one?`,
    options: [0, 1, 2, 3].map((k) => `${k === goldAt(i) ? i + 1 : i + 10 + k} apples`),
    goldIndex: goldAt(i),
    metadata: {},
  }));
}

/**
 * Every item under each perturbation value, answered by two models (two rows per item and
 * cell), rendered and read back as the runner and the study directory's reader do.
 */
function study(source: Item[], values: FacetValue[]) {
  const byId = new Map(source.map((item) => [item.id, item]));
  const prepared = { items: new Map([["b1", byId]]), exemplars: new Map<string, Item[]>() };
  const context = { pool: benchmarkPool(byId) };
  const rows: AnalysisRow[] = [];
  const golds = new Map<string, FormattedGold>();
  const tasks = new Map<string, ReturnType<typeof renderTrialTask>[]>();
  for (const value of values) {
    const label = facetLabel(value);
    const condition = { format: "mc", perturbation: value };
    for (const item of source) {
      const task = renderTrialTask(item, condition, context);
      tasks.set(label, [...(tasks.get(label) ?? []), task]);
      const gold = formattedGold(task, condition, prepared);
      for (const model of ["m1", "m2"]) {
        const row = scoredRow({
          model,
          benchmark: "b1",
          item: item.id,
          facets: { format: "mc", perturbation: label },
          reply: "correct",
        });
        rows.push(row);
        if (gold && row.trialId) golds.set(row.trialId, gold);
      }
    }
  }
  return { rows, golds, tasks, context };
}

function goldCheck(rows: AnalysisRow[], golds: Map<string, FormattedGold>, plan = {}) {
  const result = runIntegrityChecks({
    rows,
    plan: normalizePlan({ ...FAST, ...plan }),
    comparisonFacet: "perturbation",
    reference: "none",
    facts: { golds: { trials: golds } },
  });
  const check = result.checks.find((c) => c.check === "gold_position");
  assert.ok(check, "the gold-position check is reported");
  return check;
}

const flagged = (check: ReturnType<typeof goldCheck>) =>
  Object.fromEntries(check.cells.map((c) => [c.condition, `${c.status}: ${c.reason}`]));

const VALUES: FacetValue[] = [
  "none",
  { name: "label_format" },
  { name: "test_number_labels" },
  { name: "test_roman_labels" },
  { name: "case_change", variant: 0 },
  { name: "choice_reorder" },
];

describe("gold-position bias: positions, not letters", () => {
  it("gold always first: relabelled letters read as the first position, A (once per item); a shuffle moves it", () => {
    const { rows, golds, tasks } = study(
      items(() => 0),
      VALUES,
    );
    // The tasks really were relabelled, rewritten and shuffled as the runner renders them.
    assert.deepEqual(tasks.get("label_format")![0].validLetters, ["Z", "Y", "X", "W"]);
    assert.deepEqual(tasks.get("test_number_labels")![0].validLetters, ["1", "2", "3", "4"]);
    assert.deepEqual(tasks.get("test_roman_labels")![0].validLetters, ["I", "II", "III", "IV"]);
    assert.notEqual(tasks.get("case_change(variant=0)")![0].options![0], tasks.get("none")![0].options![0]);
    const check = goldCheck(rows, golds);
    const expected = "fail: gold at A in 100% of 40 items (uniform 25%; p < 0.001)";
    assert.deepEqual(flagged(check), {
      none: expected,
      label_format: expected,
      test_number_labels: expected,
      test_roman_labels: expected,
      "case_change(variant=0)": expected,
    });
    assert.equal(check.status, "fail");
    assert.match(
      check.detail,
      /^b1: A 100% B 0% C 0% D 0% of 40 items \(p < 0\.001\); 1 of 6 cells show it otherwise \(0 biased\)$/,
    );
  });

  it("a shuffle is read where the gold went: the shuffled cell's positions are the perturbed items' gold indices", () => {
    const source = items(() => 0);
    const { rows, golds, context } = study(source, [{ name: "choice_reorder" }]);
    const positions = rows.map((r) => golds.get(r.trialId!)!.position);
    const expected = rows.map(
      (r) =>
        trialItem(
          source.find((i) => i.id === r.item)!,
          { format: "mc", perturbation: { name: "choice_reorder" } },
          context,
        ).goldIndex,
    );
    assert.deepEqual(positions, expected);
    assert.ok(new Set(positions).size === 4, `the shuffle moved the gold to every position: ${positions.join(",")}`);
    const test = goldPositionTest([...golds.values()])!;
    assert.equal(test.n, ITEMS, "each item once, whatever the number of models");
    assert.deepEqual(
      test.observed,
      [0, 1, 2, 3].map((k) => expected.filter((p) => p === k).length / 2),
    );
  });

  it("balanced items pass under every relabelling; the cell that plants a bias is the one charged", () => {
    const { rows, golds } = study(
      items((i) => i % 4),
      [...VALUES, { name: "test_gold_first" }],
    );
    const check = goldCheck(rows, golds);
    assert.deepEqual(flagged(check), {
      test_gold_first: "fail: gold at A in 100% of 40 items (uniform 25%; p < 0.001)",
    });
    assert.match(
      check.detail,
      /^b1: A 25% B 25% C 25% D 25% of 40 items \(p = 1\.000\); 2 of 7 cells show it otherwise \(1 biased\)$/,
    );
  });

  it("three-option items with gold always third read 100% at C (the third position), against a uniform 33%", () => {
    const source = items(() => 2).map((item) => ({ ...item, options: item.options!.slice(0, 3) }));
    const { rows, golds } = study(source, ["none", { name: "label_format" }]);
    assert.deepEqual(flagged(goldCheck(rows, golds)), {
      none: "fail: gold at C in 100% of 40 items (uniform 33%; p < 0.001)",
      label_format: "fail: gold at C in 100% of 40 items (uniform 33%; p < 0.001)",
    });
  });

  it("the thresholds come from the plan; an item shown at two positions in one cell is split over them", () => {
    const { rows, golds } = study(
      items(() => 0),
      ["none"],
    );
    const lenient = goldCheck(rows, golds, { integrity: { gold_position_excess: 0.9 } });
    assert.equal(lenient.status, "warn", "a departure of 75 pp is below the 90 pp set: a warning");
    const split = goldPositionTest([
      { benchmark: "b1", item: "x", position: 0, options: 2 },
      { benchmark: "b1", item: "x", position: 1, options: 2 },
      { benchmark: "b1", item: "y", position: 0, options: 2 },
    ])!;
    assert.equal(split.n, 2);
    assert.deepEqual(split.observed, [1.5, 0.5]);
    assert.deepEqual(split.expected, [0.5, 0.5]);
  });

  it("is not available without gold positions (an imported table)", () => {
    const { rows } = study(
      items(() => 0),
      ["none"],
    );
    const result = runIntegrityChecks({
      rows,
      plan: normalizePlan(FAST),
      comparisonFacet: "perturbation",
      reference: "none",
    });
    assert.equal(result.checks.find((c) => c.check === "gold_position")?.status, "not available");
  });
});

describe("gold-position bias read from a study directory", () => {
  it("the stored tasks give the positions: gold at A fails, relabelled too; the shuffled cell passes", async () => {
    const atA = Array.from({ length: 16 }, (_, i) =>
      [
        `      - id: a${i}`,
        `        stem: Planted question number ${i} about the tall tower?`,
        `        options: [right ${i}, wrong one ${i}, wrong two ${i}, wrong three ${i}]`,
        "        gold_index: 0",
      ].join("\n"),
    ).join("\n");
    const facets = "    format: [mc]\n    perturbation: [none, {name: label_format}, {name: choice_reorder}]";
    const { specPath, outDir } = writeDemoSpec({ items: 12 });
    writeFileSync(
      specPath,
      demoSpecYaml({ items: 12, facets }).replace(
        / {4}items:\n[\s\S]*?\nconditions:/,
        `    items:\n${atA}\nconditions:`,
      ),
    );
    await runStudy({ specPath, outDir, env: {} });
    const planted = await analyzed(outDir);
    assert.equal(planted.status, "fail", planted.detail);
    assert.match(
      planted.detail,
      /^demo: A 100% B 0% C 0% D 0% of 16 items \(p < 0\.001\); 1 of 3 cells show it otherwise \(0 biased\)$/,
    );
    assert.deepEqual(planted.cells.map((c) => `${c.condition}: ${c.reason}`).sort(), [
      "label_format: gold at A in 100% of 16 items (uniform 25%; p < 0.001)",
      "none: gold at A in 100% of 16 items (uniform 25%; p < 0.001)",
    ]);

    // The demo items put their gold at k mod 4: balanced in every cell.
    const balanced = writeDemoSpec({ items: 16, facets });
    await runStudy({ specPath: balanced.specPath, outDir: balanced.outDir, env: {} });
    const clean = await analyzed(balanced.outDir);
    assert.equal(clean.status, "pass", clean.detail);
    assert.match(clean.detail, /^demo: A 25% B 25% C 25% D 25% of 16 items/);
  });
});

async function analyzed(outDir: string) {
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const plan = normalizePlan({ ...FAST, comparison_facet: "perturbation", reference: { perturbation: "none" } });
    const { analysis } = await analyzeDirectory(outDir, store, run, { plan });
    const found = analysis.integrity.checks.find((c) => c.check === "gold_position");
    assert.ok(found, "the gold-position check is reported");
    return found;
  } finally {
    await store.close();
  }
}
