import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "parallax-hostile-"));

function spec(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}

const header = (study = "hostile") => `study: ${study}\nmodels:\n  - { id: m, provider: sim, model: weak }\n`;
const conditions = "conditions:\n  facets:\n    format: [mc]\n";

describe("hostile input", () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a device as a benchmark source at once, at the spec's source field", () => {
    const path = spec(
      "zero.yaml",
      `${header()}benchmarks:\n  - id: b\n    loader: xstest\n    source: /dev/zero\n${conditions}`,
    );
    const result = runCli(["plan", path]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /zero\.yaml:7:13: .*benchmarks\[0\]\.source: \/dev\/zero: .*found a character device/);
  });

  it("refuses a device as a GGUF model file and as a tidy table to analyze", () => {
    const path = spec(
      "gguf.yaml",
      `study: gguf\nmodels:\n  - { id: m, provider: llama, model: /dev/zero }\nbenchmarks:\n  - id: b\n    loader: inline\n` +
        `    items:\n      - { id: i1, stem: "Q?", options: [a, b], gold_index: 0 }\n${conditions}`,
    );
    const plan = runCli(["plan", path]);
    assert.equal(plan.status, 2, plan.stderr);
    assert.match(
      plan.stderr,
      /gguf\.yaml:3:\d+: .*models\[0\]\.model: expected a GGUF model file, found \/dev\/zero: .*character device/,
    );
    const fifo = join(dir, "table.csv");
    execFileSync("mkfifo", [fifo]);
    const analyze = runCli(["analyze", fifo]);
    assert.equal(analyze.status, 2, analyze.stderr);
    assert.match(analyze.stderr, /table\.csv: expected a regular file, found a FIFO/);
  });

  it("refuses a source file over options.max_source_mb, naming the limit and the option", () => {
    const data = join(dir, "big.csv");
    writeFileSync(data, `id,prompt,type,label\n${"x".repeat(2 * 1024 * 1024)}\n`);
    const path = spec(
      "big.yaml",
      `${header()}benchmarks:\n  - id: b\n    loader: xstest\n    source: big.csv\n    options: { max_source_mb: 1 }\n${conditions}`,
    );
    const result = runCli(["plan", path]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /big\.yaml:7:13: .*larger than the 1 MiB limit .*raise it with options\.max_source_mb/);
  });

  it("names a source outside the spec's folder without quoting its content", () => {
    const outside = mkdtempSync(join(tmpdir(), "parallax-outside-"));
    try {
      const secret = "TOPSECRET-0123456789";
      writeFileSync(join(outside, "secret.csv"), `${secret},${secret}\n`);
      writeFileSync(join(outside, "secret.json"), `${secret}\n`);
      writeFileSync(join(outside, "secret.jsonl"), `${secret}\n`);
      const cases: [string, string][] = [
        ["xstest", "secret.csv"],
        ["truthfulqa_mc1", "secret.json"],
        ["gaia", "secret.jsonl"],
      ];
      for (const [loader, file] of cases) {
        const source = join(outside, file);
        const path = spec(
          `outside-${loader}.yaml`,
          `${header()}benchmarks:\n  - id: b\n    loader: ${loader}\n    source: ${source}\n${conditions}`,
        );
        const result = runCli(["plan", path]);
        assert.equal(result.status, 2, result.stderr);
        assert.match(result.stderr, new RegExp(`outside-${loader}\\.yaml:7:13: benchmarks\\[0\\]\\.source: `));
        assert.match(result.stderr, /content not shown/);
        assert.ok(!/TOPSECRET|SECRET|012345/.test(result.stderr), result.stderr);
      }
      // The same file inside the spec's folder is quoted: the rule is about where it lies.
      writeFileSync(join(dir, "inside.csv"), `${secret},${secret}\n`);
      const path = spec(
        "inside.yaml",
        `${header()}benchmarks:\n  - id: b\n    loader: xstest\n    source: inside.csv\n${conditions}`,
      );
      assert.match(runCli(["plan", path]).stderr, /found TOPSECRET/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("refuses a FIFO given to import without waiting for a writer", () => {
    const logs = join(dir, "logs");
    mkdirSync(logs);
    for (const name of ["log.eval", "log.json"]) {
      const fifo = join(logs, name);
      execFileSync("mkfifo", [fifo]);
      const result = runCli(["import", "inspect", fifo, "--out", join(dir, "imported")]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`${name}: expected a regular file, found a FIFO`));
    }
    assert.ok(!existsSync(join(dir, "imported")), "nothing imported from a FIFO");
  });

  it("refuses a study name that is not one folder name, before anything is written", () => {
    // runs/x/../../../escaped-study from the repository would be the folder beside the repository.
    const escaped = join(import.meta.dirname, "..", "..", "..", "escaped-study");
    const path = spec(
      "escape.yaml",
      `${header("x/../../../escaped-study")}benchmarks:\n  - id: b\n    loader: inline\n    items:\n      - { id: i1, stem: "Q?", options: [a, b], gold_index: 0 }\n${conditions}`,
    );
    for (const command of ["plan", "run"]) {
      const result = runCli([command, path]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /escape\.yaml:1:8: at YAML path study: .*single folder name/);
    }
    assert.ok(!existsSync(escaped), "nothing written outside runs/ for a traversal study name");
  });

  it("refuses a family's where on a field no item has, listing the fields", () => {
    const path = spec(
      "where.yaml",
      `${header()}benchmarks:\n  - id: b\n    loader: inline\n    items:\n` +
        `      - { id: i1, stem: "Q?", options: [a, b], gold_index: 0, metadata: { level: 1 } }\n` +
        `      - { id: i2, stem: "R?", options: [a, b], gold_index: 1, metadata: { level: 2, topic: x } }\n` +
        `${conditions}families:\n  main:\n    role: primary\n    sample: { where: { nonexistent_field: 3 } }\n`,
    );
    const result = runCli(["plan", path]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(
      result.stderr,
      /where\.yaml:16:\d+: .*families\.main\.sample\.where\.nonexistent_field: .*found 'nonexistent_field'; their fields: level, topic/,
    );
  });

  it("refuses an offline web folder outside the spec's folder unless allow_outside is set", () => {
    const body = (web: string) =>
      `${header()}benchmarks:\n  - id: b\n    loader: inline\n    items:\n      - { id: i1, stem: "Q?", gold_text: x }\n` +
      `conditions:\n  facets:\n    format: [oe]\nagents:\n  web: ${web}\n`;
    const refused = runCli(["plan", spec("web.yaml", body("{ backend: offline, folder: /etc }"))]);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /web\.yaml:13:\d+: at YAML path agents\.web\.folder: expected a folder inside the spec's folder/,
    );
    const allowed = runCli([
      "plan",
      spec("web-allowed.yaml", body("{ backend: offline, folder: /etc, allow_outside: true }")),
    ]);
    assert.equal(allowed.status, 0, allowed.stderr);
  });
});

describe("numeric options", () => {
  it("bounds --concurrency as execution.concurrency, and the other integer options, before any work", () => {
    const cases: [string[], RegExp][] = [
      [
        ["run", "examples/quickstart.yaml", "--concurrency", "1000000000"],
        /--concurrency: expected an integer from 1 to 1024 \(as execution\.concurrency\), found '1000000000'/,
      ],
      [["worker", "postgres://x/y", "--concurrency", "0"], /--concurrency: expected an integer from 1 to 1024/],
      [["run", "examples/quickstart.yaml", "--workers", "5000"], /--workers: expected an integer from 1 to 1024/],
      [["import", "inspect", "x.eval", "--max-entry-mb", "600"], /--max-entry-mb: expected an integer from 1 to 512/],
      [["items", "xstest", "--seed", "1.5"], /--seed: expected an integer, found '1\.5'/],
    ];
    for (const [args, message] of cases) {
      const result = runCli(args);
      assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});
