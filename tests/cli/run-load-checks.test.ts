/**
 * `run` applies every check `plan` applies, at load and before anything is written: an unknown
 * provider and a missing GGUF file (llama) are refused with exit 2 and the spec location.
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml } from "../helpers/study.js";

const MODEL = join(import.meta.dirname, "..", "..", "..", "shared", "models", "stories260K.gguf");

function specWithModel(model: string): { specPath: string; outDir: string; text: string } {
  const dir = mkdtempSync(join(tmpdir(), "parallax-load-"));
  const text = demoSpecYaml({ items: 3, models: model });
  const specPath = join(dir, "study.yaml");
  writeFileSync(specPath, text);
  return { specPath, outDir: join(dir, "out"), text };
}

/** line:col of the first occurrence of `needle` (1-based, as the loader reports). */
function locate(text: string, needle: string): string {
  const lines = text.split("\n");
  const line = lines.findIndex((l) => l.includes(needle));
  assert.ok(line >= 0, needle);
  return `${line + 1}:${lines[line].indexOf(needle) + 1}`;
}

function refusedByPlanAndRun(spec: { specPath: string; outDir: string }, expected: string): void {
  for (const args of [
    ["plan", spec.specPath],
    ["run", spec.specPath, "--out", spec.outDir],
  ]) {
    const result = runCli(args);
    assert.equal(result.status, 2, `${args[0]}: ${result.stderr}`);
    assert.equal(result.stdout, "", `${args[0]} prints nothing on stdout`);
    assert.ok(result.stderr.includes(expected), `${args[0]}:\n${result.stderr}\nexpected: ${expected}`);
  }
  assert.equal(existsSync(spec.outDir), false, "run writes no study directory");
}

describe("run refuses at load what plan refuses", () => {
  test("an unknown provider, at models[0].provider", () => {
    const spec = specWithModel("  - id: m\n    provider: openia\n    model: gpt-4o-mini");
    refusedByPlanAndRun(
      spec,
      `study.yaml:${locate(spec.text, "openia")}: at YAML path models[0].provider: unknown provider 'openia'`,
    );
  });

  test("a missing GGUF file, at models[0].model, with the path it resolved to", () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-gguf-"));
    const spec = specWithModel(
      `  - id: tiny\n    provider: llama\n    model: no-such-model.gguf\n    options: { base_dir: ${dir} }`,
    );
    refusedByPlanAndRun(
      spec,
      `study.yaml:${locate(spec.text, "no-such-model.gguf")}: at YAML path models[0].model: expected an existing GGUF model file, found 'no-such-model.gguf': no file at ${join(dir, "no-such-model.gguf")}`,
    );
  });

  test("a relative model path resolves against the spec's folder, not the working directory", () => {
    const spec = specWithModel("  - id: tiny\n    provider: llama\n    model: models/no-such-model.gguf");
    refusedByPlanAndRun(
      spec,
      `no file at ${join(dirname(spec.specPath), "models", "no-such-model.gguf")} (resolved against ${dirname(spec.specPath)}: options.base_dir, else the spec's directory)`,
    );
  });

  test("a relative path to an existing GGUF file, from the spec's folder, passes", {
    skip: !existsSync(MODEL) && "../shared/models absent",
  }, () => {
    const spec = specWithModel("  - id: tiny\n    provider: llama\n    model: model.gguf");
    copyFileSync(MODEL, join(dirname(spec.specPath), "model.gguf"));
    const result = runCli(["plan", spec.specPath]);
    assert.equal(result.status, 0, result.stderr);
  });

  test("a GGUF file that exists passes the check", { skip: !existsSync(MODEL) && "../shared/models absent" }, () => {
    const spec = specWithModel(`  - id: tiny\n    provider: llama\n    model: ${MODEL}`);
    const result = runCli(["plan", spec.specPath]);
    assert.equal(result.status, 0, result.stderr);
  });
});
