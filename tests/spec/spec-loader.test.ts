import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { InputError } from "../../src/core/errors.js";
import { coversGrid, formatPath, loadSpec, parseSpec, SpecError } from "../../src/core/spec-loader.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/specs/${name}`, import.meta.url));

/** Each malformed spec: where the problem is reported (line:col) and what its message must say. */
const INVALID: { file: string; at: string; fragments: string[] }[] = [
  { file: "yaml-syntax-error", at: "3:1", fragments: ["YAML syntax error", "Flow sequence", "models: [sim-a, sim-b"] },
  { file: "tab-indentation", at: "3:1", fragments: ["YAML syntax error", "Tabs are not allowed as indentation"] },
  { file: "duplicate-yaml-key", at: "17:1", fragments: ["YAML syntax error", "Map keys must be unique"] },
  { file: "empty-file", at: "1:1", fragments: ["the spec file is empty", "study, models, benchmarks and conditions"] },
  { file: "comments-only", at: "1:1", fragments: ["the spec file is empty"] },
  { file: "not-a-mapping", at: "1:1", fragments: ["expected a YAML mapping", "found a list of 2 items"] },
  { file: "scalar-document", at: "1:1", fragments: ["expected a YAML mapping", 'found "just some text"'] },
  { file: "multiple-documents", at: "17:1", fragments: ["found 2 YAML documents", "exactly one"] },
  { file: "missing-study", at: "1:1", fragments: ["at YAML path study:", "expected a string", "found no 'study' key"] },
  { file: "missing-models", at: "1:1", fragments: ["at YAML path models:", "expected a list", "no 'models' key"] },
  { file: "missing-benchmarks", at: "1:1", fragments: ["at YAML path benchmarks:", "no 'benchmarks' key"] },
  { file: "missing-conditions", at: "1:1", fragments: ["at YAML path conditions:", "expected a mapping"] },
  { file: "models-not-a-list", at: "2:9", fragments: ["at YAML path models:", 'expected a list, found "sim-a"'] },
  {
    file: "attempts-wrong-type",
    at: "17:11",
    fragments: ["at YAML path attempts:", 'expected a number, found "three"'],
  },
  {
    file: "unknown-top-level-key",
    at: "2:1",
    fragments: ["at YAML path modles:", "found unknown key 'modles'", "did you mean 'models'?"],
  },
  {
    file: "unknown-model-key",
    at: "6:5",
    fragments: ["models[0].temperatur:", "unknown key 'temperatur'", "did you mean 'params.temperature'?"],
  },
  {
    file: "model-without-provider",
    at: "3:5",
    fragments: ["at YAML path models[0].provider:", "found no 'provider' key (it is required)"],
  },
  {
    file: "temperature-out-of-range",
    at: "7:20",
    fragments: ["models[0].params.temperature:", "expected a number <= 2, found 2.5"],
  },
  { file: "negative-attempts", at: "17:11", fragments: ["at YAML path attempts:", "expected a number > 0, found -1"] },
  {
    file: "non-integer-seed",
    at: "2:7",
    fragments: ["at YAML path seed:", "expected an integer, found 0.5 (not an integer)"],
  },
  {
    file: "empty-facet-list",
    at: "16:13",
    fragments: ["conditions.facets.format:", "expected a list of at least 1 item, found an empty list"],
  },
  {
    file: "bad-facet-name",
    at: "16:5",
    fragments: ["conditions.facets.Answer-Format:", "a facet name in snake_case", "found 'Answer-Format'"],
  },
  { file: "no-facets", at: "15:11", fragments: ["at YAML path conditions.facets:", "at least one facet"] },
  {
    file: "empty-facet-value",
    at: "16:18",
    fragments: ["conditions.facets.format[1]:", 'expected a non-empty string, found ""'],
  },
  {
    file: "duplicate-facet-value",
    at: "16:24",
    fragments: ["conditions.facets.format[2]:", "duplicate value 'mc' in facet 'format'"],
  },
  {
    file: "exclude-unknown-facet",
    at: "19:7",
    fragments: [
      "conditions.exclude[0].fromat:",
      "unknown facet 'fromat'",
      "(format, scaffold, benchmark)",
      "did you mean 'format'?",
    ],
  },
  {
    file: "exclude-value-not-in-facet",
    at: "19:20",
    fragments: ["conditions.exclude[0].format[1]:", "value of facet 'format' (mc, open)", "found 'opne'", "'open'?"],
  },
  {
    file: "exclude-removes-everything",
    at: "18:3",
    fragments: ["at YAML path conditions.exclude:", "remove all 4 conditions", "nothing would run"],
  },
  {
    file: "empty-exclude-entry",
    at: "18:7",
    fragments: ["conditions.exclude[0]:", "an empty exclude entry matches every condition"],
  },
  { file: "duplicate-model-ids", at: "6:9", fragments: ["at YAML path models[1].id:", "duplicate model id 'sim-a'"] },
  {
    file: "inline-benchmark-without-items",
    at: "7:5",
    fragments: ["benchmarks[0].items:", "an inline benchmark needs items", "found no 'items' key"],
  },
  {
    file: "gold-index-out-of-range",
    at: "13:21",
    fragments: ["benchmarks[0].items[0].gold_index:", "gold_index must point at one of the options, found 2"],
  },
  {
    file: "loader-without-source",
    at: "14:5",
    fragments: ["benchmarks[1].source:", "needs a source path or URL", "found no 'source' key"],
  },
  {
    file: "bad-api-key-env",
    at: "6:18",
    fragments: ["models[0].api_key_env:", "an environment variable name", 'found "openai-key"'],
  },
  {
    file: "bad-api-key-env-in-list",
    at: "6:33",
    fragments: ["models[0].api_key_env[1]:", "an environment variable name", 'found "openai_key_2"'],
  },
  { file: "bad-base-url", at: "6:15", fragments: ["models[0].base_url:", "http(s) URL", 'found "localhost:8000"'] },
  {
    file: "study-name-with-space",
    at: "1:8",
    fragments: ["at YAML path study:", "expected a single folder name of letters, digits", 'found "my demo"'],
  },
  { file: "negative-budget", at: "18:17", fragments: ["budget.max_cost_usd:", "expected a number > 0, found -5"] },
  { file: "zero-concurrency", at: "18:16", fragments: ["execution.concurrency:", "expected a number > 0, found 0"] },
];

function loadError(path: string): SpecError {
  try {
    loadSpec(path);
  } catch (error) {
    assert.ok(error instanceof InputError, `expected an InputError, got ${error}`);
    assert.equal(error.exitCode, 2);
    assert.ok(error instanceof SpecError, "expected error instanceof SpecError");
    return error;
  }
  assert.fail(`${path} loaded, but it is invalid`);
}

describe("loadSpec rejects malformed specs with located, actionable messages", () => {
  for (const { file, at, fragments } of INVALID) {
    it(file, () => {
      const path = fixture(`invalid/${file}.yaml`);
      const error = loadError(path);
      const [line, col] = at.split(":").map(Number);
      const problem = error.problems.find((p) => p.line === line && p.col === col);
      assert.ok(problem, `no problem reported at ${at}; got:\n${error.message}`);
      for (const fragment of fragments)
        assert.ok(problem.message.includes(fragment), `missing "${fragment}" in: ${problem.message}`);
      assert.ok(error.message.includes(`${path}:${at}: ${problem.message}`), error.message);
    });
  }

  it("covers at least 25 malformed specs", () => assert.ok(INVALID.length >= 25, "expected INVALID.length >= 25"));

  it("reports every problem of a spec at once, sorted by line", () => {
    const path = fixture("invalid/many-problems.yaml");
    const error = loadError(path);
    const lines = error.message.split("\n");
    assert.equal(lines[0], `invalid study spec ${path} (5 problems):`);
    assert.deepEqual(
      lines.slice(1).map((l) => l.slice(path.length + 1).split(": at YAML path ")[0]),
      ["8:20", "9:5", "12:5", "18:7", "19:11"],
    );
    assert.match(lines[1], /models\[0\]\.params\.temperature: expected a number <= 2, found 9$/);
    assert.match(lines[2], /models\[1\]\.provider: expected a string, found no 'provider' key/);
    assert.match(lines[3], /benchmarks\[0\]\.source: a benchmark with a loader needs a source/);
    assert.match(lines[4], /conditions\.exclude\[0\]\.formt: .*unknown facet 'formt'/);
    assert.match(lines[5], /attempts: expected a number > 0, found 0$/);
  });

  it("names a missing file", () => {
    assert.throws(
      () => loadSpec(fixture("invalid/no-such-spec.yaml")),
      (e: unknown) => e instanceof InputError && e.exitCode === 2 && /no-such-spec\.yaml: no such file/.test(e.message),
    );
  });

  it("does not call a malformed facet unknown when an exclude entry uses it", () => {
    const text = [
      "study: s",
      "models: [{ id: m, provider: sim, model: x }]",
      "benchmarks: [{ id: b, loader: inline, items: [{ id: i, stem: q }] }]",
      "conditions:",
      "  facets:",
      "    format: mc",
      "  exclude:",
      "    - format: mc",
    ].join("\n");
    assert.throws(
      () => parseSpec(text, "s.yaml"),
      (e: unknown) =>
        e instanceof SpecError &&
        e.problems.length === 1 &&
        e.problems[0].message === 'at YAML path conditions.facets.format: expected a list, found "mc"' &&
        e.problems[0].line === 6,
    );
  });

  it("labels messages with the file name given to parseSpec", () => {
    assert.throws(
      () => parseSpec("study: x\n", "inline.yaml"),
      (e: unknown) => e instanceof SpecError && e.message.includes("inline.yaml:1:1: at YAML path models:"),
    );
  });
});

describe("loadSpec accepts valid specs", () => {
  it("applies defaults to a minimal spec", () => {
    const { spec, text, path } = loadSpec(fixture("valid/minimal.yaml"));
    assert.equal(path, fixture("valid/minimal.yaml"));
    assert.ok(text.startsWith("# The smallest useful spec"), 'expected text.startsWith("# The smallest useful spec")');
    assert.equal(spec.study, "minimal");
    assert.equal(spec.seed, 0);
    assert.equal(spec.attempts, 1);
    assert.deepEqual(spec.models[0].params, {});
    assert.deepEqual(spec.conditions.exclude, []);
    assert.deepEqual(spec.execution, {
      concurrency: 8,
      max_trials: 5_000_000,
      max_retries: 4,
      timeout_s: 120,
      backoff_base_ms: 500,
      backoff_max_ms: 60_000,
      cache: true,
    });
    assert.deepEqual(spec.budget, {});
  });

  it("keeps every section of a full spec", () => {
    const { spec } = loadSpec(fixture("valid/full.yaml"));
    assert.equal(spec.seed, 42);
    assert.equal(spec.attempts, 3);
    assert.deepEqual(
      spec.models.map((m) => m.id),
      ["gpt-small", "tiny-llama"],
    );
    assert.deepEqual(spec.models[0].api_key_env, ["OPENAI_API_KEY", "OPENAI_API_KEY_2"]);
    assert.deepEqual(spec.models[0].params.stop, ["\n\n"]);
    assert.equal(spec.models[1].params.temperature, 0);
    assert.equal(spec.benchmarks[0].items?.[1].gold_text, "Paris");
    assert.deepEqual(spec.benchmarks[1].sample, {
      n: 200,
      seed: 3,
      stratify_by: "subject",
      allocation: "proportional",
    });
    assert.deepEqual(spec.conditions.facets.scaffold, ["direct", { name: "cot", steps: 3 }]);
    assert.equal(spec.conditions.exclude.length, 2);
    assert.equal(spec.execution.concurrency, 16);
    assert.equal(spec.execution.cache, false);
    assert.deepEqual(spec.budget, { max_cost_usd: 25, max_calls: 10000 });
    assert.equal(spec.prices?.["gpt-4o-mini"].output_per_mtok, 0.6);
    assert.deepEqual(spec.analysis, { multiplicity: { primary: "holm" }, equivalence: { margin: 0.02 } });
  });

  it("matches exclude values to parameterised facet values by name", () => {
    const text = [
      "study: s",
      "models: [{ id: m, provider: sim, model: x }]",
      "benchmarks: [{ id: b, loader: inline, items: [{ id: i, stem: q }] }]",
      "conditions:",
      "  facets:",
      "    scaffold: [direct, { name: cot, steps: 3 }]",
      "    temperature: [0, 0.7]",
      "  exclude:",
      "    - { scaffold: cot, temperature: 0.7 }",
    ].join("\n");
    assert.equal(parseSpec(text, "s.yaml").conditions.exclude.length, 1);
  });

  it("accepts two parameterisations of one value but not the same one twice", () => {
    const spec = (facet: string) =>
      [
        "study: s",
        "models: [{ id: m, provider: sim, model: x }]",
        "benchmarks: [{ id: b, loader: inline, items: [{ id: i, stem: q }] }]",
        "conditions:",
        "  facets:",
        `    scaffold: ${facet}`,
      ].join("\n");
    const two = "[{ name: react, max_iterations: 3 }, { name: react, max_iterations: 10 }]";
    assert.equal(parseSpec(spec(two), "s.yaml").conditions.facets.scaffold.length, 2);
    const same = "[{ name: react, max_iterations: 3 }, { max_iterations: 3, name: react }]";
    assert.throws(() => parseSpec(spec(same), "s.yaml"), /duplicate value 'react\(max_iterations=3\)'/);
  });
});

describe("coversGrid", () => {
  const facets: [string, string[]][] = [
    ["a", ["1", "2"]],
    ["b", ["x", "y", "z"]],
  ];
  const box = (entries: Record<string, string[]>) =>
    new Map(Object.entries(entries).map(([k, v]) => [k, new Set(v)] as [string, Set<string>]));

  it("is false with no boxes or a partial cover", () => {
    assert.equal(coversGrid(facets, []), false);
    assert.equal(coversGrid(facets, [box({ a: ["1"] }), box({ b: ["x", "y"] })]), false);
  });

  it("is true when the boxes together cover every combination", () => {
    assert.equal(coversGrid(facets, [box({ a: ["1"] }), box({ a: ["2"] })]), true);
    assert.equal(coversGrid(facets, [box({ a: ["1"] }), box({ b: ["x", "y"] }), box({ a: ["2"], b: ["z"] })]), true);
    assert.equal(coversGrid(facets, [box({})]), true);
  });
});

describe("formatPath", () => {
  it("writes YAML paths as a user reads them", () => {
    assert.equal(formatPath(["models", 1, "params", "temperature"]), "models[1].params.temperature");
    assert.equal(formatPath([]), "(top level)");
    assert.equal(formatPath(["prices", "gpt 4"]), 'prices["gpt 4"]');
  });
});
