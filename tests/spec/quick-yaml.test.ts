/**
 * The quick YAML parse (src/core/yaml-data.ts) must read every spec exactly as the located parse
 * (the `yaml` library) does, or decline so that the located parse reads it.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { parseSpecFile } from "../../src/core/spec-yaml.js";
import { quickYamlMapping } from "../../src/core/yaml-data.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** The located parse's data, or undefined when it reports an error. */
function locatedData(text: string): unknown {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs) || docs.length !== 1 || docs[0].errors.length > 0) return undefined;
  return docs[0].toJS();
}

function assertSameData(text: string, label: string): void {
  const quick = quickYamlMapping(text);
  if (quick === undefined) return; // declined: the located parse reads it
  assert.deepEqual(quick, locatedData(text), `${label}: the quick parse differs from the located parse`);
}

/** YAML files under `dir`, skipping dependencies and build output. */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ["node_modules", "dist", ".git"].includes(entry.name) ? [] : yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

describe("the quick YAML parse", () => {
  it("reads plain scalars as YAML 1.2's core schema does", () => {
    const scalars = [
      ...["1", "-0", "+12", "017", "0o17", "0o8", "0x1F", "0x1f", "+0x1F", "0b101", "1_000", "08", "00"],
      ...["1.5", ".5", "+.5", "5.", "1e3", "1.5e-3", "0.1e+2", "1e", ".", "1.", "-1.25E+2"],
      ...[".inf", "+.inf", "-.Inf", ".INF", ".nan", ".NaN", ".NAN", "-.nan", "+.nan"],
      ...["true", "True", "TRUE", "tRue", "false", "False", "FALSE", "yes", "no", "on", "off", "y", "n"],
      ...["~", "null", "Null", "NULL", "nULL", "", "2001-12-14", "12:30", "1:2:3", "-", "'1'", '"0x1F"'],
      ...["!!str 12", "!!int '12'", "!!float 1", "!!float '1.5'", "!!bool 'true'", "!!null ''", "!!int 1.5"],
    ];
    for (const scalar of scalars) {
      const text = `value: ${scalar}\nlist: [${scalar}]\n`;
      assertSameData(text, JSON.stringify(scalar));
      const quick = quickYamlMapping(text);
      if (quick !== undefined)
        assert.ok(Object.is(quick.value, (locatedData(text) as { value: unknown }).value), scalar);
    }
    assert.equal(quickYamlMapping("a: 0b101\n")?.a, "0b101", "0b101 is a string in YAML 1.2's core schema");
    assert.equal(quickYamlMapping("a: +.5\n")?.a, 0.5, "+.5 is a float in YAML 1.2's core schema");
    assert.equal(quickYamlMapping("a: 0o17\n")?.a, 15, "0o17 is octal");
  });

  it("reads block and flow collections, strings and comments the same way", () => {
    const documents = [
      "a: |\n  line one\n  line two\nb: >-\n  folded\n  text\n",
      "a: 'it''s'\nb: \"tab\\there \\u00e9 \\x41\"\nc: plain: colon?\n",
      "items:\n  - id: q1 # a comment\n    options: [a, 'b, c', \"d\"]\n  - {id: q2, gold_index: 3}\n",
      "<<: {a: 1}\nb: 2\n",
      "1: one\n2.5: two\ntrue: three\n",
      "a:\nb: ~\nc: []\nd: {}\n",
      "a: &x hello\nb: *x\n",
      "key with spaces: value\n'quoted key': 1\n",
    ];
    for (const text of documents) assertSameData(text, JSON.stringify(text));
    assert.ok(quickYamlMapping(documents[2]), "a plain spec-like document takes the quick parse");
  });

  it("declines what the located parse must read or report", () => {
    const declined = {
      "a syntax error": "a: [1, 2\n",
      "a duplicate key": "a: 1\na: 2\n",
      "two documents": "a: 1\n---\nb: 2\n",
      "an empty file": "",
      "a list at the top": "- a\n- b\n",
      "a scalar at the top": "just text\n",
      "an alias to a collection": "a: &x {b: 1}\nc: *x\n",
      "a null key": "~: 1\n",
      "an unknown tag": "a: !custom 1\n",
      "an explicit tag that does not fit": "a: !!float 1\n",
    };
    for (const [what, text] of Object.entries(declined))
      assert.equal(quickYamlMapping(text), undefined, `the quick parse should decline ${what}`);
  });

  it("reads every YAML file in the repository as the located parse does", () => {
    const files = yamlFiles(repo);
    assert.ok(files.length >= 20, `expected the repository's specs and mappings, found ${files.length} YAML files`);
    let quick = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      assertSameData(text, file);
      if (quickYamlMapping(text) !== undefined) quick++;
    }
    assert.ok(
      quick >= files.length / 2,
      `most YAML files should take the quick parse; ${quick} of ${files.length} did`,
    );
  });
});

describe("a spec file's positions", () => {
  it("are found by the located parse on demand after the quick parse", () => {
    const file = parseSpecFile("study: s\nmodels:\n  - id: a\n    provider: sim\n", "s.yaml");
    assert.ok(!("problems" in file.yaml), "the spec parses");
    assert.deepEqual(file.yaml.locate(["models", 0, "provider"]), { line: 4, col: 15 });
    assert.deepEqual(file.yaml.locate(["models", 0, "provider"], true), { line: 4, col: 5 });
    assert.equal(file.yaml.has(["models", 0, "id"]), true, "models[0].id exists");
    assert.equal(file.yaml.has(["models", 1]), false, "models[1] does not exist");
  });

  it("come with the located parse's problems when the quick parse declines", () => {
    const file = parseSpecFile("study: s\nstudy: t\n", "s.yaml");
    assert.ok("problems" in file.yaml, "a duplicate key is a problem");
    assert.equal(file.yaml.problems[0].line, 2, "the duplicate key is reported at its line");
    assert.match(file.yaml.problems[0].message, /YAML syntax error/);
  });
});
