import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  checkLayers,
  findCycles,
  formatViolation,
  importsOf,
  LAYER_RANK,
  loadTimeImportsOf,
  STAGED_AREAS,
  staticImportsOf,
} from "../scripts/check-layers.js";
import { STUDY_KINDS } from "../src/contracts/study-kind.js";

const repo = fileURLToPath(new URL("..", import.meta.url));

/** A throwaway src/ tree: file path -> contents. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "parallax-layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, "src", path)), { recursive: true });
    writeFileSync(join(root, "src", path), text);
  }
  return join(root, "src");
}

describe("check-layers", () => {
  const made: string[] = [];
  after(() => {
    for (const dir of made) rmSync(dirname(dir), { recursive: true, force: true });
  });

  it("passes on the real src tree", () => {
    assert.deepEqual(checkLayers(join(repo, "src")).map(formatViolation), []);
  });

  it("accepts imports to the left, within a layer, of packages, and from the barrel", () => {
    const src = tree({
      "contracts/a.ts": 'import { z } from "zod";\nexport const a = 1;\n',
      "core/b.ts": 'import { a } from "../contracts/a.js";\nimport { c } from "./c.js";\nexport const b = a + c;\n',
      "core/c.ts": "export const c = 2;\n",
      "run/index.ts": 'export * from "../core/b.js";\nexport const r = await import("../models/m.js");\n',
      "models/m.ts": 'import type { a } from "../contracts/a.js";\n',
      "cli/main.ts": 'import "../viewer/server.js";\n',
      "viewer/server.ts": 'import { b } from "../core/b.js";\n',
      "index.ts": 'export * from "./cli/main.js";\nexport * from "./contracts/a.js";\n',
    });
    made.push(src);
    assert.deepEqual(checkLayers(src), []);
  });

  it("names every import to the right or across a rank, with file and line", () => {
    const src = tree({
      "contracts/a.ts": "// import { x } from '../run/x.js' is only a comment\nexport const a = 1;\n",
      "core/b.ts": 'import { a } from "../contracts/a.js";\nimport { r } from "../run/index.js";\n',
      "run/index.ts": "export const r = 1;\n",
      "models/m.ts": 'export {};\nconst scorer = await import("../scoring/s.js");\n',
      "scoring/s.ts": "export {\n  r,\n} from '../run/index.js';\n",
      "viewer/v.ts": 'import "../cli/main.js";\n',
      "cli/main.ts": 'import { a } from "../index.js";\n',
      "index.ts": "export {};\n",
      "utils/u.ts": "export {};\n",
    });
    made.push(src);
    const found = checkLayers(src).map(formatViolation);
    assert.deepEqual(found, [
      'src/cli/main.ts:1: import "../index.js": cli imports the top-level barrel src/index.ts; import the module itself',
      'src/core/b.ts:2: import "../run/index.js": core may not import run, a layer to its right (core < run)',
      'src/models/m.ts:2: import "../scoring/s.js": models may not import scoring: layers of the same rank stay independent',
      'src/scoring/s.ts:3: import "../run/index.js": scoring may not import run, a layer to its right (scoring < run)',
      `src/utils/u.ts: not in a known layer (${Object.keys(LAYER_RANK).join(", ")})`,
      'src/viewer/v.ts:1: import "../cli/main.js": viewer may not import cli: layers of the same rank stay independent',
    ]);
  });

  it("exits 1 from the command line and lists the violation", () => {
    const src = tree({ "stats/s.ts": 'import { b } from "../core/b.js";\n', "core/b.ts": "export const b = 1;\n" });
    made.push(src);
    const result = spawnSync(process.execPath, ["--import", "tsx", join(repo, "scripts/check-layers.ts"), src], {
      cwd: repo,
      encoding: "utf8",
    });
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /src\/stats\/s\.ts:1: import "\.\.\/core\/b\.js": stats may not import core/);
  });

  it("finds an import cycle inside a layer, naming its files in order", () => {
    const src = tree({
      "run/execute/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "run/execute/b.ts": 'import { c } from "./c.js";\nexport const b = c;\n',
      "run/execute/c.ts": 'export { a } from "./a.js";\nexport const c = 1;\n',
      "run/execute/d.ts": 'import { a } from "./a.js";\nexport const d = a;\n',
      "core/self.ts": 'import "./self.js";\n',
    });
    made.push(src);
    assert.deepEqual(checkLayers(src).map(formatViolation), [
      'src/core/self.ts:1: import "./self.js": import cycle: src/core/self.ts -> src/core/self.ts',
      'src/run/execute/a.ts:1: import "./b.js": import cycle: src/run/execute/a.ts -> src/run/execute/b.ts -> src/run/execute/c.ts -> src/run/execute/a.ts',
    ]);
  });

  it("refuses a cycle that closes only through type-only imports, and never counts dynamic imports", () => {
    const src = tree({
      "run/execute/plan.ts": 'import type { J } from "./judge.js";\nexport type P = { j?: J };\nexport const p = 1;\n',
      "run/execute/judge.ts": 'import { type P, p } from "./plan.js";\nexport type J = P;\nexport const j = p;\n',
      "run/execute/budget.ts": 'import { lease } from "./lease.js";\nexport type B = 1;\nexport const b = lease;\n',
      "run/execute/lease.ts": 'import type { E } from "./types.js";\nexport const lease = 1;\nexport type L = E;\n',
      "run/execute/types.ts": 'import type { B } from "./budget.js";\nexport type E = { b: B };\n',
      "models/registry.ts": 'export const load = () => import("./sim.js");\n',
      "models/sim.ts": 'import { load } from "./registry.js";\nexport const s = load;\n',
    });
    made.push(src);
    assert.deepEqual(checkLayers(src).map(formatViolation), [
      'src/run/execute/budget.ts:1: import "./lease.js": type-level import cycle: src/run/execute/budget.ts -> src/run/execute/lease.ts -> src/run/execute/types.ts -> src/run/execute/budget.ts',
      'src/run/execute/judge.ts:1: import "./plan.js": type-level import cycle: src/run/execute/judge.ts -> src/run/execute/plan.ts -> src/run/execute/judge.ts',
    ]);
  });

  it("names a load-time cycle once, not again as a type-level one", () => {
    const src = tree({
      "run/execute/a.ts":
        'import { b } from "./b.js";\nimport type { C } from "./c.js";\nexport const a = b;\nexport type A = C;\n',
      "run/execute/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
      "run/execute/c.ts": 'import type { A } from "./a.js";\nexport type C = A;\n',
    });
    made.push(src);
    assert.deepEqual(checkLayers(src).map(formatViolation), [
      'src/run/execute/a.ts:1: import "./b.js": import cycle: src/run/execute/a.ts -> src/run/execute/b.ts -> src/run/execute/a.ts',
    ]);
  });

  it("finds no import cycle in src/, type-only imports included", () => {
    const files = listSources(join(repo, "src"));
    assert.ok(files.length > 100, `expected the whole src/ tree, found ${files.length} files`);
    assert.deepEqual(findCycles(join(repo, "src"), files).map(formatViolation), []);
  });

  it("keeps each study kind to itself and the core: kinds do not import each other, the core imports no kind", () => {
    const src = tree({
      "analysis/core/table.ts": "export const table = 1;\n",
      "analysis/core/registry.ts": 'import { table } from "./table.js";\nexport const registry = table;\n',
      "analysis/integrity/gate.ts": 'import type { G } from "../grid/cells.js";\nexport type Gate = G;\n',
      "analysis/grid/cells.ts":
        'import { table } from "../core/table.js";\nexport type G = 1;\nexport const cells = table;\n',
      "analysis/grid/grid-analysis.ts":
        'import { registry } from "../core/registry.js";\nimport { cells } from "./cells.js";\nimport { rates } from "../comparison/rates.js";\nexport const g = [registry, cells, rates];\n',
      "analysis/comparison/rates.ts": 'import { table } from "../core/table.js";\nexport const rates = table;\n',
      "analysis/audit/audit-analysis.ts": 'export const later = () => import("../agents/units.js");\n',
      "analysis/agents/units.ts": "export const units = 1;\n",
      "analysis/all-analyses.ts":
        'import "./grid/grid-analysis.js";\nimport "./comparison/rates.js";\nimport "./audit/audit-analysis.js";\n',
      "analysis/index.ts": 'export * from "./all-analyses.js";\nexport * from "./grid/cells.js";\n',
      "analysis/core/study.ts":
        'import "../all-analyses.js";\nimport { rates } from "../comparison/rates.js";\nexport const s = rates;\n',
      "report/sections/index.ts": 'import "./grid/grid.js";\n',
      "report/sections/registry.ts": "export const sections = 1;\n",
      "report/sections/grid/grid.ts":
        'import { sections } from "../registry.js";\nimport { cells } from "../../../analysis/grid/cells.js";\nimport type { A } from "../../../analysis/audit/audit-analysis.js";\nexport const x = [sections, cells];\n',
      "report/cards/comparison/nnh.ts":
        'import { sections } from "../../sections/registry.js";\nexport const n = sections;\n',
      "report/report.ts":
        'import "./sections/index.js";\nimport { rates } from "../analysis/comparison/rates.js";\nexport const r = rates;\n',
      "contracts/analysis/fields.ts": 'import { grid } from "./grid.js";\nexport const facet = grid;\n',
      "contracts/analysis/grid.ts": 'import { audit } from "./audit.js";\nexport const grid = audit;\n',
      "contracts/analysis/audit.ts": "export const audit = 1;\n",
      "contracts/analysis.ts": 'import { grid } from "./analysis/grid.js";\nexport const plan = grid;\n',
    });
    made.push(src);
    assert.deepEqual(checkLayers(src).map(formatViolation), [
      'src/analysis/audit/audit-analysis.ts:1: import "../agents/units.js": study kind audit may not import study kind agents (analysis/agents/); move what both need to the core',
      'src/analysis/core/study.ts:2: import "../comparison/rates.js": the analysis core may not import its study-kind folder comparison/ (only all-analyses.ts, index.ts list every kind)',
      'src/analysis/grid/grid-analysis.ts:3: import "../comparison/rates.js": study kind grid may not import study kind comparison (analysis/comparison/); move what both need to the core',
      'src/analysis/integrity/gate.ts:1: import "../grid/cells.js": the analysis core may not import its study-kind folder grid/ (only all-analyses.ts, index.ts list every kind)',
      'src/contracts/analysis/fields.ts:1: import "./grid.js": the contracts/analysis core may not import its study-kind file grid.ts (no file of it lists every kind)',
      'src/contracts/analysis/grid.ts:1: import "./audit.js": study kind grid may not import study kind audit (contracts/analysis/audit.ts); move what both need to the core',
      'src/report/sections/grid/grid.ts:3: import "../../../analysis/audit/audit-analysis.js": study kind grid may not import study kind audit (analysis/audit/); move what both need to the core',
    ]);
  });

  it("keeps src/run/ to its index and its stage folders", () => {
    const src = tree({
      "run/index.ts": 'export * from "./plan/plan.js";\n',
      "run/plan/plan.ts": "export const p = 1;\n",
      "run/plan.ts": "export const stray = 1;\n",
      "run/helpers/x.ts": "export const x = 1;\n",
    });
    made.push(src);
    const found = checkLayers(src).map(formatViolation);
    const stages = STAGED_AREAS.find((staged) => staged.area === "run")!.folders.join(", ");
    assert.deepEqual(found, [
      `src/run/helpers/x.ts: src/run/ holds only index.ts and its stage folders (${stages}): move this file into the stage it belongs to`,
      `src/run/plan.ts: src/run/ holds only index.ts and its stage folders (${stages}): move this file into the stage it belongs to`,
    ]);
  });

  it("splits src/analysis into the shared core and one folder per study kind, mirrored by the report", () => {
    for (const area of ["analysis", "report/sections"]) {
      for (const kind of STUDY_KINDS) {
        const files = listSources(join(repo, "src", area, kind));
        assert.ok(files.length > 0, `src/${area}/${kind}/ should hold the ${kind} study's files`);
      }
    }
  });

  it("reads the load-time imports: static and side-effect, without type-only and dynamic ones", () => {
    const text = [
      'import a from "./a.js";',
      "import type { B } from './b.js';",
      'import { type C, type D } from "./cd.js";',
      'import { type E, f } from "./ef.js";',
      'export * from "./g.js";',
      'export type { H } from "./h.js";',
      'const i = await import("./i.js");',
      'import "./side.js";',
    ].join("\n");
    assert.deepEqual(
      loadTimeImportsOf(text).map((i) => `${i.line}:${i.specifier}`),
      ["1:./a.js", "4:./ef.js", "5:./g.js", "8:./side.js"],
    );
  });

  it("reads every static import and re-export, type-only ones included, without dynamic ones", () => {
    const text = [
      'import a from "./a.js";',
      "import type { B } from './b.js';",
      'export type { H } from "./h.js";',
      'const i = await import("./i.js");',
      'import "./side.js";',
    ].join("\n");
    assert.deepEqual(
      staticImportsOf(text).map((i) => `${i.line}:${i.specifier}`),
      ["1:./a.js", "2:./b.js", "3:./h.js", "5:./side.js"],
    );
  });

  it("reads static, re-export, side-effect and dynamic imports, skipping comments and strings", () => {
    const text = [
      'import a from "./a.js";',
      "import type { B } from './b.js';",
      'export * from "./c.js";',
      "const s = \"import('./in-a-string.js')\";",
      "// import z from './commented.js';",
      'const e = await import("./e.js");',
      'import "./side.js";',
    ].join("\n");
    assert.deepEqual(importsOf(text), [
      { specifier: "./a.js", line: 1 },
      { specifier: "./b.js", line: 2 },
      { specifier: "./c.js", line: 3 },
      { specifier: "./e.js", line: 6 },
      { specifier: "./side.js", line: 7 },
    ]);
  });
});

/** Every .ts file under dir. */
function listSources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(dir, name))
    .sort();
}
