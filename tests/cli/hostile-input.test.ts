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
    const started = Date.now();
    const result = runCli(["plan", path]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /zero\.yaml:7:13: .*benchmarks\[0\]\.source: \/dev\/zero: .*found a character device/);
    assert.ok(Date.now() - started < 60_000);
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
    assert.ok(!existsSync(join(dir, "imported")));
  });
});
