/**
 * Duplicate item ids are an error naming both rows, and a sample larger than its benchmark
 * is an error at sample.n (or, with sample.allow_smaller, a warning saying how many were taken).
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import { BenchmarkSpecSchema } from "../../src/contracts/spec.js";
import { refuseDuplicateIds } from "../../src/run/prepare/benchmark-checks.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

/** A demo spec of `items` inline items, rewritten by `edit`. */
function specWith(items: number, edit: (yaml: string) => string) {
  const written = writeDemoSpec({ items });
  writeFileSync(written.specPath, edit(demoSpecYaml({ items })));
  return written;
}

const lineOf = (yaml: string, needle: string) => yaml.split("\n").findIndex((l) => l.includes(needle)) + 1;

describe("duplicate item ids", () => {
  test("in an inline benchmark: an error at the second id naming the first, exit 2, nothing written", async () => {
    let yaml = "";
    const { specPath, outDir } = specWith(4, (text) => {
      yaml = text.replace("id: q003", "id: q001");
      return yaml;
    });
    const secondLine = yaml.split("\n").findLastIndex((l) => l.includes("id: q001")) + 1;
    await assert.rejects(
      prepareStudy(specPath),
      new RegExp(
        `study\\.yaml:${secondLine}:\\d+: at YAML path benchmarks\\[0\\]\\.items\\[2\\]\\.id: duplicate item id 'q001' \\(first at items\\[0\\], line ${lineOf(yaml, "id: q001")}\\)`,
      ),
    );
    for (const command of ["plan", "run"]) {
      const result = runCli(command === "run" ? ["run", specPath, "--out", outDir] : ["plan", specPath]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /duplicate item id 'q001'/);
    }
    assert.equal(existsSync(outDir), false);
  });

  test("from any loader (plugins included): an error naming both rows", () => {
    const benchmark = BenchmarkSpecSchema.parse({ id: "b", loader: "my_plugin", source: "data.jsonl" });
    const item = (id: string): Item => ({ id, benchmark: "b", stem: `stem ${id}`, metadata: {} }) as Item;
    const loaded = {
      items: [item("a"), item("b"), item("a")],
      sources: { a: { file: "data.jsonl", row: 3 }, b: { file: "data.jsonl", row: 2 } },
      skippedRows: 0,
    };
    assert.throws(
      () => refuseDuplicateIds(benchmark, loaded),
      /data\.jsonl: benchmark 'b': duplicate item id 'a' at item 1 and item 3 of the my_plugin loader's rows/,
    );
    assert.doesNotThrow(() => refuseDuplicateIds(benchmark, { ...loaded, items: loaded.items.slice(0, 2) }));
  });
});

describe("sample larger than the benchmark", () => {
  const withSample = (sample: string) => (text: string) =>
    text.replace("    loader: inline\n", `    loader: inline\n    sample: ${sample}\n`);

  test("is an error at sample.n saying how many items there are", async () => {
    let yaml = "";
    const { specPath, outDir } = specWith(5, (text) => {
      yaml = withSample("{ n: 8, seed: 1 }")(text);
      return yaml;
    });
    const line = lineOf(yaml, "sample:");
    await assert.rejects(
      prepareStudy(specPath),
      new RegExp(
        `study\\.yaml:${line}:\\d+: at YAML path benchmarks\\[0\\]\\.sample\\.n: expected at most 5 .*found 8; .*allow_smaller`,
      ),
    );
    const result = runCli(["run", specPath, "--out", outDir]);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(existsSync(outDir), false, "refused before anything is written");
  });

  test("with allow_smaller: a warning saying how many were taken, and every item runs", async () => {
    const { specPath, outDir } = specWith(5, withSample("{ n: 8, allow_smaller: true }"));
    const study = await prepareStudy(specPath);
    assert.equal(study.items.get("demo")?.size, 5);
    assert.deepEqual(study.warnings, [
      "benchmark 'demo': sample.n is 8 but the benchmark has 5 items; all 5 were taken",
    ]);
    const notes: string[] = [];
    const result = await runStudy({ specPath, outDir, env: {}, onNote: (m) => notes.push(m) });
    assert.equal(result.counts.finished, 10);
    assert.match(notes.join("\n"), /warning: benchmark 'demo': sample\.n is 8 .* all 5 were taken/);
    const plan = runCli(["plan", specPath]);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stderr, /warning: .*all 5 were taken/);
  });

  test("a sample within the benchmark is unchanged (no warning)", async () => {
    const { specPath } = specWith(5, withSample("{ n: 5 }"));
    const study = await prepareStudy(specPath);
    assert.equal(study.items.get("demo")?.size, 5);
    assert.deepEqual(study.warnings, []);
  });
});
