/**
 * The lm-eval and HELM importers check the types of the fields they read, as the Inspect and EEE
 * importers do, and refuse a duplicate row naming both places; every refusal exits 2 naming the
 * file and the entry and imports nothing (tests/interop/malformed.test.ts covers bad JSON).
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { runCli } from "../helpers/cli.js";
import { filesIn, interopDir, interopSkip } from "./shared-logs.js";
import { after, describeNeeding, it } from "../helpers/prerequisites.js";

const work = mkdtempSync(join(tmpdir(), "parallax-typed-imports-"));
after(() => rmSync(work, { recursive: true, force: true }));
let copies = 0;

function expectRefused(format: string, path: string, file: string, entry: RegExp, what: RegExp): void {
  const out = join(work, `out-${++copies}`);
  const result = runCli(["import", format, path, "--out", out]);
  assert.equal(result.status, 2, result.stderr);
  assert.ok(result.stderr.includes(file), `names the file: ${result.stderr}`);
  assert.match(result.stderr, entry);
  assert.match(result.stderr, what);
  assert.equal(existsSync(out), false, "nothing imported");
}

/** A copy of the lm-eval output directory whose samples file has row `index` changed by `edit`. */
function lmEvalWith(edit: (rows: Record<string, unknown>[]) => void): { dir: string; samples: string } {
  const dir = join(work, `lm-eval-${++copies}`);
  cpSync(join(interopDir, "lm-eval"), dir, { recursive: true });
  const samples = join(dir, basename(filesIn("lm-eval", ".jsonl")[0]));
  const rows = readFileSync(samples, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
  edit(rows);
  writeFileSync(samples, `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`);
  return { dir, samples };
}

// biome-ignore lint/suspicious/noExplicitAny: the test edits raw JSON field by field
function lmEvalResultsWith(edit: (results: Record<string, any>) => void): { dir: string; results: string } {
  const dir = join(work, `lm-eval-${++copies}`);
  cpSync(join(interopDir, "lm-eval"), dir, { recursive: true });
  const results = join(dir, basename(filesIn("lm-eval", ".json")[0]));
  const value = JSON.parse(readFileSync(results, "utf8"));
  edit(value);
  writeFileSync(results, JSON.stringify(value));
  return { dir, results };
}

describeNeeding(interopSkip, "lm-eval: types and duplicates", () => {
  const cases: Array<[string, (row: Record<string, unknown>) => void, RegExp]> = [
    ["resps as a string", (row) => (row.resps = "a string"), /field 'resps'/],
    ["arguments null", (row) => (row.arguments = null), /field 'arguments'/],
    ["doc_id 1e300", (row) => (row.doc_id = 1e300), /field 'doc_id'/],
    ["doc_id -1", (row) => (row.doc_id = -1), /field 'doc_id'/],
    [
      "a metric 'yes'",
      (row) => (row[(row.metrics as string[])[0]] = "yes"),
      /expected a number, a boolean, a list or null, found "yes"/,
    ],
  ];
  for (const [name, edit, what] of cases) {
    it(`refuses ${name}, naming the line`, () => {
      const { dir, samples } = lmEvalWith((rows) => edit(rows[2]));
      expectRefused("lm-eval", dir, samples, /\(line 3\)/, what);
    });
  }

  it("refuses a duplicate doc_id with the same filter, naming both lines", () => {
    const { dir, samples } = lmEvalWith((rows) => {
      rows[4] = { ...rows[4], doc_id: rows[1].doc_id, filter: rows[1].filter };
    });
    expectRefused("lm-eval", dir, samples, /\(line 5\)/, /doc_id \d+ with filter '[^']+' is also at line 2/);
  });

  it("refuses generation_kwargs of the wrong type", () => {
    for (const [field, value] of [
      ["temperature", "hot"],
      ["max_gen_toks", -5],
    ] as const) {
      const { dir, results } = lmEvalResultsWith((r) => {
        const task = Object.keys(r.configs)[0];
        r.configs[task].generation_kwargs = { ...r.configs[task].generation_kwargs, [field]: value };
      });
      expectRefused("lm-eval", dir, results, new RegExp(`generation_kwargs\\.${field}`), /field 'configs\./);
    }
  });
});

describeNeeding(interopSkip, "HELM: types and duplicates", () => {
  const runName = "narrative_qa-model=openai_gpt2";
  // biome-ignore lint/suspicious/noExplicitAny: the test edits raw JSON field by field
  function helmWith(name: string, edit: (value: any) => void): string {
    const dir = join(work, `helm-${++copies}`);
    cpSync(join(interopDir, "helm", runName), dir, { recursive: true });
    const file = join(dir, name);
    const value = JSON.parse(readFileSync(file, "utf8"));
    edit(value);
    writeFileSync(file, JSON.stringify(value));
    return dir;
  }

  it("refuses a duplicate instance in per_instance_stats.json, naming both entries", () => {
    const dir = helmWith("per_instance_stats.json", (stats) => stats.push(stats[1]));
    const file = join(dir, "per_instance_stats.json");
    expectRefused("helm", dir, file, /per_instance_stats\.json\[5\]/, /is also at per_instance_stats\.json\[1\]/);
  });

  it("refuses a negative max_tokens and a fractional stat count", () => {
    const negative = helmWith("run_spec.json", (spec) => (spec.adapter_spec.max_tokens = -5));
    expectRefused("helm", negative, join(negative, "run_spec.json"), /adapter_spec\.max_tokens/, /field/);
    const fractional = helmWith("per_instance_stats.json", (stats) => (stats[0].stats[0].count = 0.5));
    expectRefused("helm", fractional, join(fractional, "per_instance_stats.json"), /stats/, /count/);
  });
});
