/**
 * The quantization axis on the simulated panel (SafetyRepro §3, App. O): three sim models, each
 * declared with two variants (`quantizations: {F16: <id>, Q4: <id>-q4}`) and a planted logit shift
 * on its Q4 variant (`model_shifts`), run through the real runner and store, then analysed. The
 * quantization effect (median / mean / max |s_F16 - s_Q4| per model and overall) and the ordering
 * agreement are checked against values computed from the planted parameters: each item's correct
 * probability sigmoid(ability - difficulty + the configuration's effects + shift), the difficulty
 * being the sim's content-hash draw. Variants share the model's draws, so a shift of 0 gives gaps
 * of exactly 0 and a negative shift only removes right answers. Each trial records the variant's
 * revision (another variant, another revision).
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { analyzeDirectory, normalizePlan } from "../../src/analysis/index.js";
import type { GridResult } from "../../src/analysis/grid/grid-analysis.js";
import { quantizationEffects } from "../../src/analysis/grid/robustness.js";
import type { GridCell } from "../../src/analysis/grid/cells.js";
import type { Item } from "../../src/contracts/item.js";
import { itemDifficulty } from "../../src/models/sim/draws.js";
import { SIM_EFFECTS } from "../../src/models/sim/format-effects.js";
import { exportTable } from "../../src/run/export/export.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";

const N_ITEMS = 200;
const COLOURS = ["red", "green", "blue", "white"];
const ITEMS = Array.from({ length: N_ITEMS }, (_, i) => ({
  id: `q${i}`,
  stem: `In puzzle number ${i}, which box holds the marble?`,
  options: COLOURS.map((c) => `The ${c} box`),
  gold_index: (i * 7) % 4,
}));

/** The planted panel: ability (logit) and the Q4 variant's shift. */
const PANEL = [
  { id: "steady", ability: 3.0, q4Shift: -6.0 },
  { id: "sturdy", ability: 1.0, q4Shift: 0 },
  { id: "frail", ability: -1.0, q4Shift: -0.3 },
];
const TEMPLATES = ["T3", "T4"];
const PATHS = ["free_form", "logprob"];
/** The sim's documented wording effect that T4's "Let us think step by step" triggers. */
const templateEffect = (template: string) => (template === "T4" ? SIM_EFFECTS.reasoning : 0);

function specYaml(): string {
  const models = PANEL.map(
    (m) => `  - id: ${m.id}
    provider: sim
    model: ${m.id}
    quantizations: { F16: ${m.id}, Q4: ${m.id}-q4 }
    options: { ability: ${m.ability}, logprobs: true, model_shifts: { ${m.id}-q4: ${m.q4Shift} } }`,
  ).join("\n");
  const items = ITEMS.map(
    (it) =>
      `      - { id: ${it.id}, stem: "${it.stem}", options: [${it.options.map((o) => `"${o}"`).join(", ")}], gold_index: ${it.gold_index} }`,
  ).join("\n");
  return `study: grid-quantization
seed: 5
models:
${models}
benchmarks:
  - id: puzzles
    loader: inline
    items:
${items}
conditions:
  facets:
    template: [${TEMPLATES.join(", ")}]
    scoring_path: [${PATHS.join(", ")}]
    quantization: [F16, Q4]
execution:
  concurrency: 8
analysis:
  comparison_facet: quantization
  grid: { resamples: 50 }
`;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
const difficulties = ITEMS.map((it) =>
  itemDifficulty({ id: it.id, benchmark: "puzzles", stem: it.stem, options: it.options, metadata: {} } as Item),
);

/** Per configuration: the expected F16 - Q4 gap of a model and its standard error (shared draws). */
function expectedGap(ability: number, shift: number, template: string): { mean: number; se: number } {
  let mean = 0;
  let variance = 0;
  for (const d of difficulties) {
    const logit = ability - d + templateEffect(template);
    // With a shared uniform draw an item differs between variants exactly when it falls between the two probabilities.
    const p = Math.abs(sigmoid(logit) - sigmoid(logit + shift));
    mean += p;
    variance += p * (1 - p);
  }
  return { mean: mean / N_ITEMS, se: Math.sqrt(variance) / N_ITEMS };
}

/** The expected score of a model variant under a template, and its standard error. */
function expectedScore(ability: number, shift: number, template: string): { mean: number; se: number } {
  const ps = difficulties.map((d) => sigmoid(ability - d + templateEffect(template) + shift));
  const mean = ps.reduce((a, b) => a + b, 0) / N_ITEMS;
  return { mean, se: Math.sqrt(ps.reduce((a, p) => a + p * (1 - p), 0)) / N_ITEMS };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Strict ordering of the panel by expected score (indices, best first). */
const orderOf = (scores: number[]) => scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a]);

describe("quantization effect on the simulated panel", () => {
  it("recovers the planted per-variant shifts and the ordering agreement they imply", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-grid-quant-"));
    const specPath = join(dir, "study.yaml");
    writeFileSync(specPath, specYaml());
    const outDir = join(dir, "run");
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    let grid: GridResult;
    let revisions: Map<string, Set<string>>;
    try {
      const run = (await store.getRun())!;
      const outcome = await analyzeDirectory(outDir, store, run, { plan: normalizePlan(run.spec.analysis) });
      const result = outcome.analysis.grid;
      assert.ok(result && !("skipped" in result), JSON.stringify(result));
      grid = result as GridResult;
      const lines: string[] = [];
      await exportTable(
        store,
        { runId: run.id, facets: Object.keys(run.spec.conditions.facets), table: "trials", format: "jsonl" },
        (c) => lines.push(c),
      );
      const trials = lines
        .join("")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      revisions = new Map();
      for (const t of trials) {
        const key = `${t.model}|${String(t.condition_hash)}`;
        assert.equal(t.parse_status, "ok", `trial ${t.trial_id} parsed`);
        revisions.set(key, (revisions.get(key) ?? new Set()).add(String(t.model_revision)));
      }
    } finally {
      await store.close();
    }

    // Each variant records one revision of its own.
    const byModel = new Map<string, Set<string>>();
    for (const [key, set] of revisions) {
      assert.equal(set.size, 1, `${key}: one revision per model and condition`);
      const model = key.split("|")[0];
      byModel.set(model, (byModel.get(model) ?? new Set()).add([...set][0]));
    }
    for (const m of PANEL) {
      const seen = [...(byModel.get(m.id) ?? [])].sort();
      assert.equal(seen.length, 2, `${m.id}: F16 and Q4 record different revisions`);
      assert.ok(
        seen.some((r) => r.startsWith(`sim:${m.id}-q4@`)) && seen.some((r) => r.startsWith(`sim:${m.id}@`)),
        "expected seen.some((r) => r.startsWith(`sim:${m.id}-q4@`)) && seen.some((r) => r.startsWith(`sim...",
      );
    }

    assert.equal(grid.quantization.length, 1);
    const [effect] = grid.quantization;
    assert.deepEqual([effect.a, effect.b], ["F16", "Q4"]);
    const configs = TEMPLATES.flatMap((t) => PATHS.map((p) => ({ template: t, path: p })));

    // Per model: median, mean and max |s_F16 - s_Q4| over its paired configurations.
    const allExpected: { mean: number; se: number }[] = [];
    for (const m of PANEL) {
      const got = effect.perModel.find((p) => p.model === m.id);
      assert.ok(got, `${m.id} has a quantization effect`);
      assert.equal(got.n, configs.length);
      const expected = configs.map((c) => expectedGap(m.ability, m.q4Shift, c.template));
      allExpected.push(...expected);
      if (m.q4Shift === 0) {
        // Shared draws: an unshifted variant answers identically.
        assert.deepEqual([got.median, got.mean, got.max], [0, 0, 0]);
        continue;
      }
      const tolerance = 4 * Math.max(...expected.map((e) => e.se));
      const means = expected.map((e) => e.mean);
      const mean = means.reduce((a, b) => a + b, 0) / means.length;
      assert.ok(Math.abs(got.mean - mean) <= tolerance, `${m.id} mean ${got.mean} vs planted ${mean} ± ${tolerance}`);
      assert.ok(Math.abs(got.median - median(means)) <= tolerance, `${m.id} median ${got.median} vs ${median(means)}`);
      assert.ok(Math.abs(got.max - Math.max(...means)) <= tolerance, `${m.id} max ${got.max} vs ${Math.max(...means)}`);
    }
    // Overall: every paired cell of every model.
    assert.ok(effect.overall, "expected effect.overall");
    assert.equal(effect.overall.n, PANEL.length * configs.length);
    const overallMean = allExpected.reduce((a, e) => a + e.mean, 0) / allExpected.length;
    const overallTolerance = 4 * Math.max(...allExpected.map((e) => e.se));
    assert.ok(Math.abs(effect.overall.mean - overallMean) <= overallTolerance, `overall mean ${effect.overall.mean}`);

    // Ordering agreement: the orderings the planted scores imply, per paired cell. The planted gaps
    // are checked to be far beyond sampling noise first, so the realised ordering is the planted one.
    let matching = 0;
    const flips: number[] = [];
    for (const c of configs) {
      const precision = (q4: boolean) => PANEL.map((m) => expectedScore(m.ability, q4 ? m.q4Shift : 0, c.template));
      for (const scores of [precision(false), precision(true)]) {
        const order = orderOf(scores.map((s) => s.mean));
        for (let k = 1; k < order.length; k++) {
          const [hi, lo] = [scores[order[k - 1]], scores[order[k]]];
          const gap = hi.mean - lo.mean;
          assert.ok(gap > 4 * Math.hypot(hi.se, lo.se), `planted gap ${gap} is beyond noise (${c.template})`);
        }
      }
      const f16 = precision(false).map((s) => s.mean);
      const q4 = precision(true).map((s) => s.mean);
      if (orderOf(f16).join() === orderOf(q4).join()) matching++;
      let reversed = 0;
      for (let i = 0; i < PANEL.length; i++)
        for (let j = i + 1; j < PANEL.length; j++)
          if (Math.sign(f16[i] - f16[j]) * Math.sign(q4[i] - q4[j]) < 0) reversed++;
      flips.push(reversed);
    }
    // The signed per-cell deltas beside the absolute summary: one per paired cell, b - a, whose
    // absolute values are the summary's.
    assert.equal(effect.cells.length, effect.overall.n);
    for (const c of effect.cells) assert.equal(c.delta, c.b - c.a);
    const meanAbs = effect.cells.reduce((sum, c) => sum + Math.abs(c.delta), 0) / effect.cells.length;
    assert.ok(Math.abs(meanAbs - effect.overall.mean) < 1e-12, `mean |delta| ${meanAbs} vs ${effect.overall.mean}`);
    assert.equal(Math.abs(effect.cells[0].delta), effect.overall.max, "largest |delta| first");
    assert.ok(effect.ordering, "expected effect.ordering");
    assert.equal(effect.ordering.cells, configs.length);
    assert.equal(effect.ordering.matching, matching);
    assert.equal(effect.ordering.rate, matching / configs.length);
    assert.deepEqual([...effect.ordering.pairFlips].sort(), [...flips].sort());
  });
});

describe("signed per-cell quantization deltas (SafetyRepro App. O)", () => {
  it("prints BF16 - NF4 per paired cell with its sign, largest |delta| first, as App. O's table does", () => {
    // App. O's five largest cells (model, benchmark, template, scoring, NF4, BF16, Delta), in pp.
    const printed: [string, string, string, string, number, number, number][] = [
      ["yi", "xstest", "T1", "logprob", 70.5, 49.8, -20.7],
      ["yi", "toxigen", "T1", "logprob", 71.9, 53.9, -18.0],
      ["qwen", "truthfulqa", "T3", "free_form", 63.6, 70.8, 7.2],
      ["mistral", "toxigen", "T3", "free_form", 62.7, 69.8, 7.1],
      ["qwen", "toxigen", "T1", "free_form", 61.7, 67.1, 5.4],
    ];
    const axes = ["template", "scoring_path", "quantization"];
    const cell = (
      model: string,
      benchmark: string,
      template: string,
      scoring: string,
      quantization: string,
      score: number,
    ) =>
      ({
        model,
        benchmark,
        configuration: `${template} · ${scoring} · ${quantization}`,
        levels: { template, scoring_path: scoring, quantization },
        score: score / 100,
        items: 295,
        trials: 295,
        parseRate: 1,
        erroredShare: 0,
        revisions: [],
        itemMeans: new Map(),
      }) satisfies GridCell;
    const cells = printed.flatMap(([m, b, t, sc, nf4, bf16]) => [
      cell(m, b, t, sc, "nf4", nf4),
      cell(m, b, t, sc, "bf16", bf16),
    ]);
    // Listed in the order the paper's quantization axis is read: NF4 (the grid's) first, BF16 against it.
    const [effect] = quantizationEffects(cells, axes, ["nf4", "bf16"], ["mistral", "qwen", "yi"]);
    assert.equal(effect.a, "nf4");
    assert.equal(effect.b, "bf16");
    assert.deepEqual(
      effect.cells.map((c) => [c.model, c.benchmark, c.configuration, Math.round(c.delta * 1000) / 10]),
      printed.map(([m, b, t, sc, , , delta]) => [m, b, `${t} · ${sc}`, delta]),
    );
    // The absolute summary App. O also prints is the same cells' |delta|.
    assert.ok(effect.overall, "expected effect.overall");
    assert.ok(Math.abs(effect.overall.max - 0.207) < 1e-9, `max |delta| ${effect.overall.max}`);
  });
});
