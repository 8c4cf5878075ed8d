/**
 * Load-time validation against the registries (facets/validate.ts): every facet value and every
 * plugin setting, located at file:line:col with the known values, all problems at once.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseSpec, SpecError } from "../../src/core/spec-loader.js";
import { facets } from "../../src/facets/registry.js";
import { validateStudy } from "../../src/facets/validate.js";
import { demoSpecYaml } from "../helpers/study.js";

const FILE = "study.yaml";

/** The problems validateStudy reports for spec text that the core loader accepts. */
function problemsOf(text: string): string[] {
  const spec = parseSpec(text, FILE);
  try {
    validateStudy(spec, { text, path: FILE });
  } catch (error) {
    assert.ok(error instanceof SpecError, String(error));
    assert.equal(error.exitCode, 2);
    return error.message.split("\n").slice(1);
  }
  return [];
}

/** The 1-based line of the first line of `text` that contains `needle`. */
function lineOf(text: string, needle: string): number {
  const index = text.split("\n").findIndex((line) => line.includes(needle));
  assert.ok(index >= 0, `'${needle}' is in the spec`);
  return index + 1;
}

function withFacets(facets: string): string {
  return demoSpecYaml({ facets });
}

describe("facet values", () => {
  test("a spec with every registered facet and valid settings passes", () => {
    const text = withFacets(
      [
        "    scaffold: [direct, { name: react, max_iterations: 3 }, { name: critic, rounds: 1, max_tokens: 64 }]",
        "    format: [mc, oe, forced]",
        "    system_prompt: [strict, soft, none]",
        "    scoring_path: [free_form]",
      ].join("\n"),
    );
    assert.deepEqual(problemsOf(text), []);
  });

  test("scaffold: an unknown value is named with its location and the known scaffolds", () => {
    const text = withFacets("    scaffold: [direct, cott]");
    const [problem, ...rest] = problemsOf(text);
    assert.deepEqual(rest, []);
    const line = lineOf(text, "cott");
    assert.match(
      problem,
      new RegExp(`^study\\.yaml:${line}:\\d+: at YAML path conditions\\.facets\\.scaffold\\[1\\]: `),
    );
    assert.match(
      problem,
      /unknown scaffold 'cott' \(did you mean 'cot'\?\); known: adjudicated, agent_react, cot, critic, direct,/,
    );
  });

  test("scaffold: an undeclared setting is an error at the setting's key, listing the declared ones", () => {
    const text = withFacets("    scaffold: [{ name: critic, max_rounds: 3 }, { name: react, max_iterations: 99 }]");
    const problems = problemsOf(text);
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(
      problems[0],
      /scaffold\[0\]\.max_rounds: expected one of the keys max_tokens, rounds, found unknown key 'max_rounds' \(did you mean 'rounds'\?\)/,
    );
    assert.match(problems[1], /scaffold\[1\]\.max_iterations: expected a number <= 50, found 99/);
  });

  test("format: an unknown format and a setting on a format that takes none", () => {
    const text = withFacets("    format: [mc, table, { name: oe, style: short }]");
    const problems = problemsOf(text);
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems[0], /format\[1\]: unknown format 'table'; known: mc, oe, forced/);
    assert.match(problems[1], /format\[2\]\.style: facet 'format' value 'oe' takes no settings, found 'style'/);
  });

  test("system_prompt: an unknown variant lists strict, soft and none", () => {
    const problems = problemsOf(withFacets("    system_prompt: [strict, stricter]"));
    assert.equal(problems.length, 1);
    assert.match(
      problems[0],
      /system_prompt\[1\]: unknown system_prompt 'stricter' \(did you mean 'strict'\?\); known: strict, soft, none/,
    );
  });

  test("scoring_path: an unknown path lists free_form and logprob", () => {
    const problems = problemsOf(withFacets("    scoring_path: [free_form, log_prob]"));
    assert.equal(problems.length, 1);
    assert.match(
      problems[0],
      /scoring_path\[1\]: unknown scoring_path 'log_prob' \(did you mean 'logprob'\?\); known: free_form, logprob/,
    );
  });

  test("an unknown facet name is an error at its key, listing the facets", () => {
    const text = withFacets("    format: [mc]\n    scafold: [direct]");
    const problems = problemsOf(text);
    assert.equal(problems.length, 1);
    const line = lineOf(text, "scafold");
    assert.match(
      problems[0],
      new RegExp(
        `^study\\.yaml:${line}:5: at YAML path conditions\\.facets\\.scafold: unknown facet 'scafold' \\(did you mean 'scaffold'\\?\\); known: ${facets.names().join(", ")}$`,
      ),
    );
  });
});

describe("plugin settings", () => {
  test("provider: an unknown provider, and an option its optionsSchema does not declare", () => {
    const text = demoSpecYaml({
      models: [
        "  - id: a",
        "    provider: simm",
        "    model: medium",
        "  - id: b",
        "    provider: sim",
        "    model: custom",
        "    options: { abilty: 0.5 }",
      ].join("\n"),
    });
    const problems = problemsOf(text);
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(
      problems[0],
      /models\[0\]\.provider: unknown provider 'simm' \(did you mean 'sim'\?\); known: anthropic, google, llama, openai, sim/,
    );
    assert.match(
      problems[1],
      /models\[1\]\.options\.abilty: expected one of the keys ability, .*found unknown key 'abilty' \(did you mean 'ability'\?\)/,
    );
  });

  test("provider: judges given as model entries are checked like subject models", () => {
    const text = `${demoSpecYaml()}scoring:\n  judges:\n    - sim-a\n    - { id: j, provider: sim, model: judge, options: { failure: 0.1 } }\n`;
    const problems = problemsOf(text);
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(
      problems[0],
      /scoring\.judges\[1\]\.options\.failure: expected one of the keys .*found unknown key 'failure'/,
    );
  });

  test("provider: an option of the wrong type", () => {
    const text = demoSpecYaml({
      models:
        "  - id: g\n    provider: openai\n    model: gpt-4o-mini\n    options: { completions_logprobs: yes please }",
    });
    const problems = problemsOf(text);
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(problems[0], /models\[0\]\.options\.completions_logprobs: expected true or false, found "yes please"/);
  });

  test("loader: an unknown loader, and a misspelt loader option", () => {
    const base = demoSpecYaml();
    const text = base.replace(
      "benchmarks:\n",
      "benchmarks:\n  - id: other\n    loader: mmlu_pro\n    source: x.csv\n  - id: m\n    loader: mmlu\n    source: x\n    options: { splt: dev }\n",
    );
    const problems = problemsOf(text);
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(
      problems[0],
      /benchmarks\[0\]\.loader: unknown dataset loader 'mmlu_pro' \(did you mean 'mmlu'\?\); known: .*mmlu/,
    );
    assert.match(
      problems[1],
      /benchmarks\[1\]\.options\.splt: expected one of the keys .*split.*found unknown key 'splt' \(did you mean 'split'\?\)/,
    );
  });

  test("loader: common options are accepted, with their types checked", () => {
    const text = demoSpecYaml().replace("    loader: inline\n", "    loader: inline\n    options: { shuffle: 1 }\n");
    const problems = problemsOf(text);
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(problems[0], /benchmarks\[0\]\.options\.shuffle: expected true or false, found 1/);
  });

  test("scorer: unknown scorer names and per-benchmark entries for benchmarks the spec lacks", () => {
    const text = `${demoSpecYaml()}scoring:\n  default: mc_last\n  per_benchmark: { demo: exact_answer, demmo: gaia_exact }\n`;
    const problems = problemsOf(text);
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems[0], /scoring\.default: unknown scorer 'mc_last'; known: .*mc_last_answer/);
    assert.match(
      problems[1],
      /scoring\.per_benchmark\.demmo: unknown benchmark id 'demmo' \(did you mean 'demo'\?\); known: demo/,
    );
  });
});

test("every problem is reported at once, in line order", () => {
  const text = demoSpecYaml({
    models: "  - id: a\n    provider: sim\n    model: medium\n    options: { latency: 3 }",
    facets: "    scaffold: [cott]\n    system_prompt: [stricter]",
  });
  const problems = problemsOf(text);
  assert.equal(problems.length, 3, problems.join("\n"));
  const lines = problems.map((p) => Number(/^study\.yaml:(\d+):/.exec(p)?.[1]));
  assert.deepEqual(
    lines,
    [...lines].sort((a, b) => a - b),
  );
  assert.deepEqual(
    problems.map((p) => /at YAML path (\S+):/.exec(p)?.[1]),
    ["models[0].options.latency", "conditions.facets.scaffold[0]", "conditions.facets.system_prompt[0]"],
  );
});
