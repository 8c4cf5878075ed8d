/**
 * The gold-position integrity check (issue 11): the share of gold answers at each letter of the
 * items as formatted, against uniform, per benchmark. Planted all-gold-at-A items fail (and
 * downgrade the verdicts of their benchmark); the same items shuffled pass.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { analyzeDirectory, analyzeStudy, normalizePlan, type StudyAnalysis } from "../../../src/analysis/index.js";
import type { FormattedGold } from "../../../src/analysis/integrity/registry.js";
import { seededPermutation } from "../../../src/datasets/shuffle.js";
import { runStudy } from "../../../src/run/run-study.js";
import { openStore } from "../../../src/run/store/open.js";
import { demoSpecYaml, writeDemoSpec } from "../../helpers/study.js";
import { plantedTable } from "../helpers.js";

const FAST = { bootstrap: { resamples: 200 }, specification_curve: false as const };
const LETTERS = ["A", "B", "C", "D"];

function planted() {
  return plantedTable({
    seed: 5,
    models: { m1: 0 },
    benchmarks: ["b1", "b2"],
    itemsPerBenchmark: 40,
    effects: { direct: 0, cot: -0.05 },
  });
}

/** Items whose gold is their first option: shown as is (gold always A) or shuffled per item. */
function golds(benchmark: string, shuffled: boolean): FormattedGold[] {
  return Array.from({ length: 40 }, (_, i) => {
    const item = `${benchmark}-${String(i + 1).padStart(4, "0")}`;
    // seededPermutation: position k shows original option permutation[k]; the gold is original 0.
    const position = shuffled ? seededPermutation(4, `0|${item}`).indexOf(0) : 0;
    return { benchmark, item, letter: LETTERS[position], letters: LETTERS };
  });
}

function goldCheck(result: StudyAnalysis) {
  const found = result.integrity.checks.find((c) => c.check === "gold_position");
  assert.ok(found, "the gold-position check is reported");
  return found;
}

describe("gold-position bias", () => {
  it("all gold at A fails its benchmark's cells and downgrades their verdicts; shuffled items pass", async () => {
    const units = [...golds("b1", false), ...golds("b2", true)];
    const result = await analyzeStudy(planted(), normalizePlan(FAST), { integrityFacts: { golds: { units } } });
    const check = goldCheck(result);
    assert.equal(check.status, "fail");
    assert.deepEqual(check.cells.map((c) => `${c.condition}/${c.benchmark}/${c.status}`).sort(), [
      "cot/b1/fail",
      "direct/b1/fail",
    ]);
    assert.match(check.cells[0].reason, /^gold at A in 100% of 40 items \(uniform 25%; p < 0\.001\)$/);
    assert.match(check.detail, /b1: A 100% B 0% C 0% D 0% of 40 items/);
    assert.equal(result.integrity.failed, true);
    const itt = result.contrasts.itt;
    assert.match(itt.byBenchmark.find((s) => s.scope === "b1")!.contrasts[0].verdict, /^not interpretable: gold at A/);
    assert.ok(
      !itt.byBenchmark.find((s) => s.scope === "b2")!.contrasts[0].verdict.startsWith("not interpretable"),
      'expected !itt.byBenchmark.find((s) => s.scope === "b2")!.contrasts[0].verdict.startsWith("not in...',
    );
    assert.ok(
      check.downgraded.includes("ITT b1 cot") && !check.downgraded.includes("ITT b2 cot"),
      'expected check.downgraded.includes("ITT b1 cot") && !check.downgraded.includes("ITT b2 cot")',
    );

    const shuffled = await analyzeStudy(planted(), normalizePlan(FAST), {
      integrityFacts: { golds: { units: [...golds("b1", true), ...golds("b2", true)] } },
    });
    assert.equal(goldCheck(shuffled).status, "pass", goldCheck(shuffled).detail);
  });

  it("the thresholds come from the plan; expected shares follow each item's number of options", async () => {
    const units = golds("b1", false);
    const lenient = await analyzeStudy(
      planted(),
      normalizePlan({ ...FAST, integrity: { gold_position_excess: 0.9 } }),
      {
        integrityFacts: { golds: { units } },
      },
    );
    assert.equal(goldCheck(lenient).status, "warn", "a departure of 75 pp is below the 90 pp set: a warning");
    // Two-option items with gold at A half the time and four-option items never at C or D:
    // uniform per item puts 1/2 of the two-option items and 1/4 of the others at A.
    const mixed: FormattedGold[] = Array.from({ length: 40 }, (_, i) =>
      i < 20
        ? { benchmark: "b1", item: `x${i}`, letter: i % 2 ? "A" : "B", letters: ["A", "B"] }
        : { benchmark: "b1", item: `x${i}`, letter: LETTERS[i % 4], letters: LETTERS },
    );
    const result = await analyzeStudy(planted(), normalizePlan(FAST), { integrityFacts: { golds: { units: mixed } } });
    assert.equal(goldCheck(result).status, "pass", goldCheck(result).detail);
  });

  it("is not available without gold letters (an imported table)", async () => {
    const result = await analyzeStudy(planted(), normalizePlan(FAST));
    assert.equal(goldCheck(result).status, "not available");
  });

  it("a study directory: the gold letters come from the stored tasks and the re-loaded items", async () => {
    const atA = (count: number) =>
      Array.from({ length: count }, (_, i) =>
        [
          `      - id: a${i}`,
          `        stem: Planted question number ${i} about the tall tower?`,
          `        options: [right ${i}, wrong one ${i}, wrong two ${i}, wrong three ${i}]`,
          "        gold_index: 0",
        ].join("\n"),
      ).join("\n");
    const { specPath, outDir } = writeDemoSpec({ items: 12 });
    writeFileSync(
      specPath,
      demoSpecYaml({ items: 12 }).replace(/ {4}items:\n[\s\S]*?\nconditions:/, `    items:\n${atA(16)}\nconditions:`),
    );
    await runStudy({ specPath, outDir, env: {} });
    const planted = await analyzed(outDir);
    assert.equal(planted.status, "fail", planted.detail);
    assert.match(planted.detail, /demo: A 100% B 0% C 0% D 0% of 16 items/);

    // The demo items put their gold at k mod 4: balanced.
    const balanced = writeDemoSpec({ items: 16 });
    await runStudy({ specPath: balanced.specPath, outDir: balanced.outDir, env: {} });
    const clean = await analyzed(balanced.outDir);
    assert.equal(clean.status, "pass", clean.detail);
    assert.match(clean.detail, /demo: A 25% B 25% C 25% D 25% of 16 items/);
  });
});

async function analyzed(outDir: string) {
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const { analysis } = await analyzeDirectory(outDir, store, run, { plan: normalizePlan(FAST) });
    return goldCheck(analysis);
  } finally {
    await store.close();
  }
}
