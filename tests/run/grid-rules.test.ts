import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { StudySpec } from "../../src/contracts/spec.js";
import { checkGridRules, GRID_RULES_STAMP, stampGridRules } from "../../src/run/prepare/grid-rules.js";

const dir = mkdtempSync(join(tmpdir(), "grid-rules-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const specWith = (rules?: string) => ({ analysis: rules ? { grid: { rules } } : {} }) as unknown as StudySpec;

describe("grid envelope rules stamp", () => {
  const rulesText = "envelope:\n  core:\n    template: [T1, T2, T3]\n  stress:\n    template: [T4]\n";
  const specPath = join(dir, "study.yaml");
  const out = join(dir, "out");
  writeFileSync(join(dir, "rules.yaml"), rulesText);
  writeFileSync(specPath, "study: x\n");
  rmSync(out, { recursive: true, force: true });

  it("stamps the SHA-256 of the rules file named by the spec, relative to the spec", () => {
    mkdirSync(out, { recursive: true });
    const stamp = stampGridRules(specWith("rules.yaml"), specPath, out, new Date("2026-01-01T00:00:00Z"))!;
    assert.equal(stamp.sha256, hashOf(rulesText));
    assert.equal(stamp.path, join(dir, "rules.yaml"));
    assert.deepEqual(JSON.parse(readFileSync(join(out, GRID_RULES_STAMP), "utf8")), stamp);
    assert.equal(checkGridRules(out)!.sha256, hashOf(rulesText));
  });

  it("refuses an edited rules file at analysis and on a resumed run, naming both hashes", () => {
    const edited = `${rulesText}  # widened after seeing results\n`;
    writeFileSync(join(dir, "rules.yaml"), edited);
    const both = new RegExp(`stamped sha256 ${hashOf(rulesText)}, now ${hashOf(edited)}`);
    assert.throws(() => checkGridRules(out), both);
    assert.throws(() => stampGridRules(specWith("rules.yaml"), specPath, out), both);
    writeFileSync(join(dir, "rules.yaml"), rulesText);
    assert.equal(checkGridRules(out)!.sha256, hashOf(rulesText));
  });

  it("writes nothing without declared rules, and refuses a rules file that is not YAML", () => {
    const other = join(dir, "other");
    mkdirSync(other, { recursive: true });
    assert.equal(stampGridRules(specWith(), specPath, other), null);
    assert.equal(existsSync(join(other, GRID_RULES_STAMP)), false);
    assert.equal(checkGridRules(other), null);
    writeFileSync(join(dir, "bad.yaml"), "a: [1, 2\n");
    assert.throws(() => stampGridRules(specWith("bad.yaml"), specPath, other), /bad\.yaml is not valid YAML/);
    assert.throws(() => stampGridRules(specWith("missing.yaml"), specPath, other), /missing\.yaml does not exist/);
  });
});

describe("the rules stamp through parallax run and analyze", () => {
  it("run stamps the declared rules; analyze records the match and refuses an edited file", async () => {
    const { writeDemoSpec, demoSpecYaml } = await import("../helpers/study.js");
    const { runStudy } = await import("../../src/run/execute/run-study.js");
    const { openStore } = await import("../../src/run/store/open.js");
    const { analyzeDirectory } = await import("../../src/analysis/index.js");
    const { specPath, outDir, dir: studyDir } = writeDemoSpec({ items: 6 });
    const rules = "envelope:\n  core:\n    format: [mc, oe]\n";
    writeFileSync(join(studyDir, "rules.yaml"), rules);
    writeFileSync(
      specPath,
      `${demoSpecYaml({ items: 6 })}analysis:\n  comparison_facet: format\n  specification_curve: false\n  grid:\n    axes: [format]\n    resamples: 100\n    rules: rules.yaml\n`,
    );
    await runStudy({ specPath, outDir, env: {} });
    const stamp = JSON.parse(readFileSync(join(outDir, GRID_RULES_STAMP), "utf8"));
    assert.equal(stamp.sha256, hashOf(rules));
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      const outcome = await analyzeDirectory(outDir, store, run);
      const grid = outcome.analysis.grid;
      assert.ok(grid && !("skipped" in grid), 'expected grid && !("skipped" in grid)');
      assert.equal(grid.rules?.sha256, hashOf(rules));
      writeFileSync(join(studyDir, "rules.yaml"), `${rules}    template: [T4]\n`);
      await assert.rejects(
        analyzeDirectory(outDir, store, run),
        new RegExp(`stamped sha256 ${hashOf(rules)}, now ${hashOf(`${rules}    template: [T4]\n`)}`),
      );
    } finally {
      await store.close();
    }
  });
});
