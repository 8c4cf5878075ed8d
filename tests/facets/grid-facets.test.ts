/**
 * The SafetyRepro grid facets (issue 13): template rendering on both scoring paths, custom
 * template placeholders checked at load, decoding seeds in the trial identity, few-shot draws
 * (deterministic, recorded, disjoint from the evaluated items), quantization variants, and the
 * validity constraints refused at plan.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Condition } from "../../src/contracts/condition.js";
import type { Item } from "../../src/contracts/item.js";
import { conditionHash, trialId } from "../../src/core/hash.js";
import { parseSpec, SpecError } from "../../src/core/spec-loader.js";
import { DEFAULT_DECODING_SEEDS, decodingParams } from "../../src/facets/decoding.js";
import { quantizedModel } from "../../src/facets/quantization.js";
import { conditionColumns } from "../../src/facets/registry.js";
import { renderTrialTask } from "../../src/facets/render.js";
import { PROMPT_TEMPLATES } from "../../src/facets/template.js";
import { validateStudy } from "../../src/facets/validate.js";
import { runIdFor, summarisePlan } from "../../src/run/plan/plan.js";
import { planTrials } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { logprobPrompt } from "../../src/scoring/logprob-common.js";
import { renderTask } from "../../src/scaffolds/prompt.js";
import { demoItemsYaml } from "../helpers/study.js";

const item: Item = {
  id: "g1",
  benchmark: "demo",
  stem: "Which colour is the demo box?",
  options: ["red", "green", "blue"],
  goldIndex: 1,
  metadata: {},
};

function spec(facets: string, extra = "", benchmarkExtra = "", items = 6): string {
  return `study: grid-test
seed: 5
models:
  - id: sim-a
    provider: sim
    model: medium
benchmarks:
  - id: demo
    loader: inline
    items:
${demoItemsYaml(items)}
${benchmarkExtra}
conditions:
  facets:
${facets}
${extra}
`;
}

function writeSpec(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "parallax-grid-"));
  const path = join(dir, "study.yaml");
  writeFileSync(path, text);
  return path;
}

function problemsOf(text: string): string[] {
  try {
    const parsed = parseSpec(text, "study.yaml");
    validateStudy(parsed, { text, path: "study.yaml" });
    return [];
  } catch (error) {
    if (error instanceof SpecError) return error.problems.map((p) => `${p.line}: ${p.message}`);
    throw error;
  }
}

describe("template facet", () => {
  test("T1-T4 render the App. A texts with the item filled in, on the free-form and the log-prob prompt", () => {
    const bodies = new Set<string>();
    const prompts = new Set<string>();
    for (const [name, text] of Object.entries(PROMPT_TEMPLATES)) {
      const task = renderTrialTask(item, { template: name, format: "mc" });
      const options = item.options!.map((o, i) => `${"ABC"[i]}. ${o}`).join("\n");
      const expected = text.replace("{question}", item.stem).replace("{options}", options);
      assert.equal(renderTask(task), expected, name);
      bodies.add(renderTask(task));
      prompts.add(logprobPrompt(renderTask(task)));
    }
    // The scorer-consumed bytes differ per template on both paths.
    assert.equal(bodies.size, Object.keys(PROMPT_TEMPLATES).length);
    assert.equal(prompts.size, Object.keys(PROMPT_TEMPLATES).length);
    assert.equal(renderTask(renderTrialTask(item, { template: "T1" })), `${item.stem}\n\nAnswer:`);
  });

  test("a custom template renders its own text", () => {
    const value = { name: "mine", text: "Q: {question}\nChoices: {letters}\nA:" };
    const task = renderTrialTask(item, { template: value, format: "mc" });
    assert.equal(renderTask(task), `Q: ${item.stem}\nChoices: A, B, C\nA:`);
  });

  test("an unknown placeholder of a custom template is an error at its YAML line", () => {
    const text = spec('    template:\n      - T1\n      - { name: mine, text: "Q: {question} {colour}" }');
    const problems = problemsOf(text);
    const line = text.split("\n").findIndex((l) => l.includes("{colour}")) + 1;
    assert.equal(problems.length, 1);
    assert.match(
      problems[0],
      new RegExp(`^${line}: .*conditions\\.facets\\.template\\[1\\]\\.text.*unknown placeholder '\\{colour\\}'`),
    );
  });

  test("an unknown template name lists the known ones", () => {
    const problems = problemsOf(spec("    template: [T9]"));
    assert.match(problems[0], /unknown template 'T9'.*known: T1, T2, T3, T4/);
  });
});

describe("decoding facet", () => {
  test("each seed of a stochastic setting is a condition of its own; greedy has no decoding_seed", async () => {
    const seeds = [11, 12, 13];
    const study = await prepareStudy(
      writeSpec(
        spec(
          `    decoding:\n      - greedy\n      - { name: moderate, seeds: [${seeds.join(", ")}] }\n      - diverse`,
        ),
      ),
    );
    const greedy = study.conditions.filter((c) => c.decoding === "greedy");
    assert.equal(greedy.length, 1);
    assert.equal(greedy[0].decoding_seed, undefined);
    const moderate = study.conditions.filter((c) => c.decoding === "moderate");
    assert.deepEqual(
      moderate.map((c) => c.decoding_seed),
      seeds,
    );
    const diverse = study.conditions.filter((c) => c.decoding === "diverse");
    assert.deepEqual(
      diverse.map((c) => c.decoding_seed),
      [...DEFAULT_DECODING_SEEDS],
    );
    // The seed is in the condition hash and so in the trial id.
    const ids = new Set(
      moderate.map((c) =>
        trialId({ modelId: "m", conditionHash: conditionHash(c), benchmarkId: "b", itemId: "i", attempt: 1 }),
      ),
    );
    assert.equal(ids.size, seeds.length);
    assert.deepEqual(decodingParams(moderate[1]), { temperature: 0.3, topP: 0.9, seed: seeds[1] });
    assert.deepEqual(decodingParams(greedy[0]), { temperature: 0 });
    // decoding_seed is a column of the export and of the analysis rows.
    assert.deepEqual(conditionColumns(study.spec.conditions), ["decoding", "decoding_seed"]);
    const trials = [...planTrials(study, runIdFor(study))];
    assert.equal(trials.length, study.conditions.length * 6);
  });

  test("seeds on a greedy setting are refused at their location", () => {
    const text = spec("    decoding:\n      - { name: greedy, seeds: [1, 2] }");
    assert.match(problemsOf(text)[0], /decoding\[0\]\.seeds.*greedy setting/);
  });
});

describe("few_shot facet", () => {
  const pool = (ids: string[]) =>
    `    exemplars:\n      items:\n${ids
      .map(
        (id, k) =>
          `        - { id: ${id}, stem: "Pool question ${id}?", options: [yes ${k}, no ${k}], gold_index: ${k % 2} }`,
      )
      .join("\n")}`;

  test("draws are deterministic per (benchmark, level, seed), recorded in the manifest and on the task", async () => {
    const ids = ["p1", "p2", "p3", "p4", "p5", "p6", "p7"];
    const text = spec('    few_shot: [0, 3, { name: "3", seed: 9 }]', "", pool(ids));
    const first = await prepareStudy(writeSpec(text));
    const second = await prepareStudy(writeSpec(text));
    const manifest = first.manifest.benchmarks[0].exemplars!;
    assert.deepEqual(manifest, second.manifest.benchmarks[0].exemplars);
    assert.deepEqual(
      manifest.pool.map((p) => p.id),
      ids,
    );
    assert.deepEqual(
      manifest.draws.map((d) => [d.level, d.seed, d.ids.length]),
      [
        [3, 0, 3],
        [3, 9, 3],
      ],
    );
    for (const draw of manifest.draws)
      for (const id of draw.ids) assert.ok(ids.includes(id), "expected ids.includes(id)");
    // Every item of the benchmark shows the draw of its level, recorded on the rendered task.
    const items = [...first.items.get("demo")!.values()];
    const context = { exemplars: first.exemplars.get("demo") };
    for (const [i, condition] of first.conditions.entries()) {
      const level = Number(condition.few_shot === 0 ? 0 : 3);
      for (const evaluated of items) {
        const task = renderTrialTask(evaluated, condition as Condition, context);
        const shown = task.fewShot?.exemplars.map((e) => e.id) ?? [];
        assert.equal(shown.length, level);
        if (level > 0) assert.deepEqual(shown, manifest.draws[i - 1].ids);
        for (const id of shown)
          assert.ok(
            renderTask(task).includes(`Pool question ${id}?`),
            "expected renderTask(task).includes(`Pool question ${id}?`)",
          );
      }
    }
  });

  test("a pool that overlaps the evaluated items is an error naming the item ids", async () => {
    const text = spec("    few_shot: [0, 2]", "", pool(["p1", "q002", "p3", "q005"]));
    await assert.rejects(prepareStudy(writeSpec(text)), /overlaps the evaluated items: q002, q005/);
    // exclude_evaluated drops them instead.
    const dropped = await prepareStudy(
      writeSpec(`${text.replace("    exemplars:\n", "    exemplars:\n      exclude_evaluated: true\n")}`),
    );
    assert.deepEqual(
      dropped.manifest.benchmarks[0].exemplars!.pool.map((p) => p.id),
      ["p1", "p3"],
    );
  });

  test("a pool item that repeats an evaluated question under another id overlaps it, whatever its spacing and case", async () => {
    // q002's question and options, spaced and cased otherwise, the options in another order.
    const copy = [
      "    exemplars:",
      "      items:",
      '        - { id: spaced, stem: "  DEMO question\\tnumber 2  about the\\n\\nblue box? ", options: [delta 2, alpha 2, gamma 2, beta 2], gold_index: 0 }',
      '        - { id: other, stem: "Demo question number 2 about the blue box, again?", options: [alpha 2, beta 2], gold_index: 0 }',
    ].join("\n");
    await assert.rejects(
      prepareStudy(writeSpec(spec("    few_shot: [0, 1]", "", copy))),
      /overlaps the evaluated items: spaced;/,
    );
  });

  test("a few_shot level without an exemplar pool is refused at the benchmark", () => {
    assert.match(
      problemsOf(spec("    few_shot: [0, 5]"))[0],
      /benchmarks\[0\].*declares no exemplar pool.*5 exemplars/,
    );
  });
});

describe("quantization facet", () => {
  test("each value maps to the model's variant; a model without it is refused", () => {
    const models = `models:
  - id: sim-a
    provider: sim
    model: medium
    quantizations: { f32: medium-f32, q8: medium-q8 }`;
    const text = spec("    quantization: [f32, q8, q4]").replace(/models:\n(.*\n){3}/, `${models}\n`);
    assert.match(problemsOf(text).join("\n"), /model 'sim-a' declares no variant for quantization 'q4'/);
    const parsed = parseSpec(
      spec("    quantization: [f32, q8]").replace(/models:\n(.*\n){3}/, `${models}\n`),
      "s.yaml",
    );
    assert.equal(quantizedModel(parsed.models[0], { quantization: "q8" }), "medium-q8");
    assert.equal(quantizedModel(parsed.models[0], {}), "medium");
  });
});

describe("validity constraints", () => {
  test("log-prob with sampled decoding is refused at plan, naming the constraint and the exclude entry", async () => {
    const facets = "    scoring_path: [free_form, logprob]\n    decoding: [greedy, diverse]";
    await assert.rejects(
      prepareStudy(writeSpec(spec(facets))),
      /validity constraint "logprob requires greedy decoding" is violated by 5 condition\(s\).*add to conditions\.exclude: \{scoring_path: logprob, decoding: diverse\}/,
    );
    const fixed = await prepareStudy(
      writeSpec(spec(facets, "  exclude:\n    - { scoring_path: logprob, decoding: diverse }")),
    );
    // free-form x (greedy + 5 diverse seeds) + log-prob x greedy.
    assert.equal(fixed.conditions.length, 1 + DEFAULT_DECODING_SEEDS.length + 1);
    const summary = summarisePlan(fixed);
    assert.equal(summary.perBenchmark[0].configurations, 3);
  });
});
