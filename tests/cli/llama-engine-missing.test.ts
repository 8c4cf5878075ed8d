/**
 * The local-model engine is optional: without node-llama-cpp, a spec with `provider: llama` is
 * refused at load (exit 2) at its `provider` line, naming the command that installs the engine,
 * and a spec without a llama model plans as before. The CLI runs from a copy of the sources
 * whose node_modules holds every package of the checkout but the engine, as after `npm ci`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { LLAMA_ENGINE_INSTALL, llamaEngineProblems } from "../../src/models/llama/installed.js";

const REPO = resolve(import.meta.dirname, "..", "..");
const ENGINE_ENTRIES = new Set(["node-llama-cpp", ".llama-engine", "@node-llama-cpp"]);

const LLAMA_SPEC = `study: engine-missing
seed: 1
models:
  - id: local
    provider: llama
    model: model.gguf
benchmarks:
  - id: demo
    loader: inline
    items:
      - { id: q1, stem: "2 + 2?", options: ["3", "4"], gold_index: 1 }
conditions:
  facets:
    scaffold: [direct]
    format: [mc]
`;

describe("provider: llama without the local-model engine", () => {
  let checkout: string;

  before(() => {
    checkout = mkdtempSync(join(tmpdir(), "parallax-lean-"));
    cpSync(join(REPO, "src"), join(checkout, "src"), { recursive: true });
    for (const file of ["package.json", "tsconfig.json"]) cpSync(join(REPO, file), join(checkout, file));
    mkdirSync(join(checkout, "node_modules"));
    for (const entry of readdirSync(join(REPO, "node_modules"))) {
      if (!ENGINE_ENTRIES.has(entry))
        symlinkSync(join(REPO, "node_modules", entry), join(checkout, "node_modules", entry));
    }
    writeFileSync(join(checkout, "llama.yaml"), LLAMA_SPEC);
    writeFileSync(join(checkout, "model.gguf"), "not a real model: plan never loads it");
    writeFileSync(
      join(checkout, "sim.yaml"),
      LLAMA_SPEC.replace("provider: llama", "provider: sim").replace("model: model.gguf", "model: demo"),
    );
  });
  after(() => rmSync(checkout, { recursive: true, force: true }));

  const plan = (spec: string) =>
    spawnSync(process.execPath, ["--import", "tsx", join(checkout, "src", "cli", "main.ts"), "plan", spec], {
      cwd: checkout,
      encoding: "utf8",
      timeout: 120_000,
    });

  it("plan exits 2 at the provider line, naming the install command", () => {
    const result = plan("llama.yaml");
    assert.equal(result.status, 2, `exit ${result.status}: ${result.stderr}`);
    assert.match(
      result.stderr,
      /llama\.yaml:5:\d+: at YAML path models\[0\]\.provider/,
      "the error carries the provider line",
    );
    assert.ok(
      result.stderr.includes(LLAMA_ENGINE_INSTALL),
      `the error names ${LLAMA_ENGINE_INSTALL}: ${result.stderr}`,
    );
  });

  it("a spec without a llama model plans as before", () => {
    const result = plan("sim.yaml");
    assert.equal(result.status, 0, `exit ${result.status}: ${result.stderr}`);
  });
});

describe("the engine check", () => {
  it("has nothing to say where node-llama-cpp resolves", () => {
    assert.deepEqual(
      llamaEngineProblems(() => "/somewhere/node-llama-cpp/dist/index.js"),
      [],
    );
  });

  it("reports the missing engine at the model's provider field", () => {
    const problems = llamaEngineProblems(() => {
      throw new Error("Cannot find module 'node-llama-cpp'");
    });
    assert.equal(problems.length, 1);
    assert.deepEqual(problems[0]?.path, ["provider"]);
    assert.ok(problems[0]?.message.includes(LLAMA_ENGINE_INSTALL), "the message names the install command");
  });
});
