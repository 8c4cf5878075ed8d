/**
 * The self-audit chronology (Auditing the Audit, Box 1): every one of the eight fields is
 * required and a missing one is named; a FIXED entry names its change and regression test, an
 * unfixed one says why; every affected cell has its before/after delta; the totals are Box 1's;
 * `parallax audit log/check` append and validate; `analyze` and `report` carry it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import {
  appendChronologyEntry,
  checkChronologyEntry,
  chronologyEntriesFor,
  chronologyTotals,
  parseChronology,
  readChronology,
} from "../../src/analysis/core/chronology.js";
import { CHRONOLOGY_FIELDS, CHRONOLOGY_FILE, type ChronologyEntry } from "../../src/contracts/chronology.js";
import { InputError } from "../../src/core/errors.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

function entry(overrides: Partial<ChronologyEntry> = {}): ChronologyEntry {
  return {
    id: "F1a",
    failure_class: "F1",
    discovered: { date: "2026-04-20", how: "per-cell no-op rate of the label-format perturbation was 100%" },
    affected_cells: [
      { model: "m1", benchmark: "mmlu" },
      { model: "m2", benchmark: "mmlu" },
    ],
    symptom: "format delta 0.000 on every item: format looked perfectly invariant",
    provenance: "inherited",
    fix: { change: "the prompt builder reads the label style", regression_test: "tests/f1-label-style.test.ts" },
    delta: [
      { model: "m1", benchmark: "mmlu", statistic: "CSR", before: 9.5, after: 1.2 },
      { model: "m2", benchmark: "mmlu", statistic: "CSR", before: 4.1, after: 0.9 },
    ],
    status: "FIXED",
    ...overrides,
  };
}

function errorOf(value: unknown): string {
  try {
    checkChronologyEntry(value, "chronology.jsonl line 1");
  } catch (error) {
    assert.ok(error instanceof InputError, String(error));
    return error.message;
  }
  assert.fail("the entry was accepted");
}

describe("chronology entries (Box 1)", () => {
  it("accepts a complete entry", () => {
    assert.equal(checkChronologyEntry(entry(), "x").id, "F1a");
  });

  it("names each of the eight fields when it is missing", () => {
    const required = [...new Set(CHRONOLOGY_FIELDS.map((f) => f.key))].filter((k) => k !== "status_reason");
    assert.equal(new Set(CHRONOLOGY_FIELDS.map((f) => f.box)).size, 8);
    for (const key of required) {
      const value: Record<string, unknown> = { ...entry() };
      delete value[key];
      const message = errorOf(value);
      const box = CHRONOLOGY_FIELDS.find((f) => f.key === key)?.box;
      assert.match(message, new RegExp(`field '${key}' is missing \\(Box 1 field ${box}`), message);
      assert.match(message, /chronology\.jsonl line 1/);
    }
  });

  it("names a missing nested field and an unknown one", () => {
    assert.match(errorOf({ ...entry(), discovered: { date: "2026-04-20" } }), /field 'discovered\.how' is missing/);
    assert.match(errorOf({ ...entry(), severity: "high" }), /unknown field\(s\) 'severity'/);
    assert.match(errorOf({ ...entry(), discovered: { date: "April", how: "x" } }), /discovered\.date.*YYYY-MM-DD/);
  });

  it("requires the change and its regression test of a FIXED entry, and the reason of an unfixed one", () => {
    assert.match(
      errorOf(entry({ fix: { change: "x", regression_test: null } })),
      /fix\.regression_test.*regression test that fails on the pre-fix code/,
    );
    assert.match(errorOf(entry({ status: "DISCLOSED-UNFIXED" })), /status_reason.*DISCLOSED-UNFIXED entry says why/);
    const unfixed = entry({
      status: "DISCLOSED-UNFIXED",
      status_reason: "no canonical fix; G3 flags the cells",
      fix: { change: null, regression_test: null },
      delta: [
        { model: "m1", benchmark: "mmlu", statistic: "CSR", before: 2, after: null },
        { model: "m2", benchmark: "mmlu", statistic: "CSR", before: 3, after: null },
      ],
    });
    assert.equal(checkChronologyEntry(unfixed, "x").status, "DISCLOSED-UNFIXED");
  });

  it("requires the before/after delta of every affected cell", () => {
    const message = errorOf(entry({ delta: [entry().delta[0]] }));
    assert.match(message, /no before\/after delta for affected cell m2 x mmlu/);
  });

  it("reads a file line by line, naming the line of a bad one and a repeated id", () => {
    const good = JSON.stringify(entry());
    assert.equal(parseChronology(`${good}\n\n`, "c.jsonl").length, 1);
    assert.throws(() => parseChronology(`${good}\n{oops`, "c.jsonl"), /c\.jsonl line 2: not a JSON object/);
    assert.throws(() => parseChronology(`${good}\n${good}`, "c.jsonl"), /line 2: id 'F1a' is already used on line 1/);
  });

  it("sums up the chronology as Box 1 asks: entries, repair-introduced, unfixed and why", () => {
    const entries = [
      entry(),
      entry({ id: "F3c", provenance: "repair-introduced" }),
      entry({ id: "P1", status: "OUT-OF-SCOPE", status_reason: "a model outside the panel" }),
    ];
    const totals = chronologyTotals(entries);
    assert.equal(totals.entries, entries.length);
    assert.equal(totals.repairIntroduced, 1);
    assert.deepEqual(totals.byStatus, { FIXED: 2, "DISCLOSED-UNFIXED": 0, "OUT-OF-SCOPE": 1 });
    assert.deepEqual(totals.unfixed, [{ id: "P1", status: "OUT-OF-SCOPE", reason: "a model outside the panel" }]);
    assert.deepEqual(
      chronologyEntriesFor(entries, "m2", "mmlu").map((e) => e.id),
      ["F1a", "F3c", "P1"],
    );
    assert.deepEqual(chronologyEntriesFor(entries, "m2", "bbq"), []);
  });

  it("appends only to a valid file and never twice the same id", () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-chronology-"));
    appendChronologyEntry(dir, entry(), "a.yaml");
    const second = appendChronologyEntry(dir, entry({ id: "F4" }), "b.yaml");
    assert.equal(second.totals.entries, 2);
    assert.throws(() => appendChronologyEntry(dir, entry({ id: "F4" }), "c.yaml"), /c\.yaml: id 'F4' is already in/);
    const file = join(dir, CHRONOLOGY_FILE);
    writeFileSync(file, `${readFileSync(file, "utf8")}{"id": "broken"}\n`);
    const before = readFileSync(file, "utf8");
    assert.throws(() => appendChronologyEntry(dir, entry({ id: "F5" }), "d.yaml"), /line 3: .*failure_class/);
    assert.equal(readFileSync(file, "utf8"), before, "nothing appended to a broken file");
    assert.equal(readChronology(mkdtempSync(join(tmpdir(), "parallax-chronology-none-"))), null);
  });
});

describe("parallax audit log / check, analyze and report", () => {
  let dir = "";
  before(() => {
    const { specPath, outDir } = writeDemoSpec();
    writeFileSync(
      specPath,
      `${demoSpecYaml({ items: 6 })}analysis:\n  bootstrap: { resamples: 100 }\n  specification_curve: false\n`,
    );
    const run = runCli(["run", specPath, "--out", outDir]);
    assert.equal(run.status, 0, run.stderr);
    dir = outDir;
  });

  it("appends an entry from a YAML file and from standard input, and prints the totals", () => {
    const model = readModelAndBenchmark(dir);
    const file = join(mkdtempSync(join(tmpdir(), "parallax-entry-")), "entry.yaml");
    const fixed = entry({
      affected_cells: [model],
      delta: [{ ...model, statistic: "accuracy", before: 0.71, after: 0.64 }],
    });
    writeFileSync(file, JSON.stringify(fixed));
    const added = runCli(["audit", "log", dir, "--add", file]);
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /1 entry, 0 repair-introduced, none unfixed/);
    const missing: Record<string, unknown> = { ...fixed, id: "X2" };
    delete missing.symptom;
    writeFileSync(file, JSON.stringify(missing));
    const refused = runCli(["audit", "log", dir, "--add", file]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /field 'symptom' is missing \(Box 1 field 4/);
    const check = runCli(["audit", "check", dir]);
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stdout, /valid; 1 entry/);
  });

  it("analyze lists the chronology and the report cites it beside its section", () => {
    const analyze = runCli(["analyze", dir]);
    assert.ok(analyze.status === 0 || analyze.status === 3, analyze.stderr);
    assert.match(analyze.stdout, /self-audit chronology: 1 entry, 0 repair-introduced, none unfixed/);
    const report = runCli(["report", dir]);
    assert.equal(report.status, 0, report.stderr);
    const html = readFileSync(join(dir, "report.html"), "utf8");
    assert.match(html, /<h2 id="chronology">Self-audit chronology<\/h2>/);
    assert.match(html, /id="chronology-F1a"/);
    assert.match(html, /href="#chronology"/);
  });

  it("analyze refuses a hand-broken chronology, naming the line and field", () => {
    const file = join(dir, CHRONOLOGY_FILE);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, `${text}{"id":"X3"}\n`);
    const analyze = runCli(["analyze", dir]);
    writeFileSync(file, text);
    assert.equal(analyze.status, 2);
    assert.match(analyze.stderr, /chronology\.jsonl line 2: .*failure_class/);
  });
});

/** One (model, benchmark) cell of the demo study, read from its spec copy. */
function readModelAndBenchmark(dir: string): { model: string; benchmark: string } {
  const spec = JSON.parse(readFileSync(join(dir, "spec.json"), "utf8"));
  return { model: spec.models[0].id, benchmark: spec.benchmarks[0].id };
}
