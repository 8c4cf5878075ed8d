import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { analyzeTableFile, normalizePlan, readTidyTable, resolvePlan } from "../../src/analysis/index.js";
import { InputError } from "../../src/core/errors.js";

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "parallax-table-")), name);
  writeFileSync(path, text);
  return path;
}

describe("tidy tables", () => {
  it("reads CSV with case_id and parse_failed, facets as the remaining columns", () => {
    const path = file(
      "obs.csv",
      "model,config,benchmark,case_id,attempt,outcome,parse_failed\nm1,direct,bbq,bbq-1,1,1,0\nm1,react,bbq,bbq-1,1,0,1\n",
    );
    const table = readTidyTable(path);
    assert.deepEqual(table.facets, ["config"]);
    assert.equal(table.rows[1].parseFailed, true);
    assert.equal(table.rows[0].cluster, table.rows[1].cluster);
  });

  it("reads JSON lines as parallax export writes them (status, parse_status, audit columns ignored)", () => {
    const rows = [
      {
        model: "m",
        benchmark: "b",
        item_id: "1",
        attempt: 1,
        scaffold: "direct",
        format: "mc",
        outcome: 1,
        parse_status: "ok",
        status: "finished",
        calls: 1,
      },
      {
        model: "m",
        benchmark: "b",
        item_id: "1",
        attempt: 1,
        scaffold: "cot",
        format: "mc",
        outcome: null,
        parse_status: null,
        status: "errored",
        calls: 1,
      },
    ];
    const table = readTidyTable(file("obs.jsonl", rows.map((r) => JSON.stringify(r)).join("\n")));
    assert.deepEqual(table.facets, ["scaffold", "format"]);
    assert.equal(table.rows[1].errored, true);
    assert.equal(table.rows[1].outcome, null);
  });

  it("names file, line, column and what was expected for a bad value", () => {
    const path = file("bad.csv", "model,scaffold,benchmark,item_id,outcome\nm,direct,b,1,1\nm,cot,b,1,0.5\n");
    assert.throws(
      () => readTidyTable(path),
      (error: Error) => {
        assert.ok(error instanceof InputError);
        assert.match(
          error.message,
          /bad\.csv:3: column 'outcome': expected 0 or 1 \(empty when unscored\), found '0\.5'/,
        );
        return true;
      },
    );
    const ragged = file("ragged.csv", "model,scaffold,benchmark,item_id,outcome\nm,direct,b,1\n");
    assert.throws(() => readTidyTable(ragged), /ragged\.csv:2: expected 5 fields .*found 4/);
    const missing = file("missing.csv", "model,scaffold,outcome\nm,direct,1\n");
    assert.throws(() => readTidyTable(missing), /missing column\(s\) benchmark, item_id \(or case_id\)/);
    const json = file("bad.jsonl", '{"model":"m"}\n{oops\n');
    assert.throws(() => readTidyTable(json), /bad\.jsonl:2: not valid JSON/);
    const flag = file("flag.csv", "model,scaffold,benchmark,item_id,outcome,parse_failed\nm,direct,b,1,1,maybe\n");
    assert.throws(() => readTidyTable(flag), /flag\.csv:2: column 'parse_failed': expected 0 or 1, found 'maybe'/);
  });

  it("explains plan problems against the data: unknown facet, unknown reference, one level", async () => {
    const path = file(
      "two.csv",
      "model,scaffold,format,benchmark,item_id,outcome\nm,direct,mc,b,1,1\nm,cot,mc,b,1,0\nm,direct,oe,b,1,1\nm,cot,oe,b,1,1\n",
    );
    const table = readTidyTable(path);
    assert.throws(
      () => resolvePlan(normalizePlan({ comparison_facet: "prompt" }), table),
      /comparison_facet 'prompt' is not a column; facets: scaffold, format/,
    );
    assert.throws(
      () => resolvePlan(normalizePlan({ reference: { scaffold: "react" } }), table),
      /analysis.reference.scaffold: 'react' is not a level; levels: direct, cot/,
    );
    const restricted = resolvePlan(normalizePlan({ reference: { scaffold: "direct", format: "mc" } }), table);
    assert.deepEqual(restricted.restrict, { format: "mc" });
    assert.throws(() => normalizePlan({ equivalence: { margni: 0.02 } } as never), /invalid analysis plan/);
    const single = file("single.csv", "model,scaffold,benchmark,item_id,outcome\nm,direct,b,1,1\nm,direct,b,2,0\n");
    await assert.rejects(analyzeTableFile(single), /only one level \(direct\)/);
  });
});
