import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InputError } from "../../src/core/errors.js";
import { parseCsv, readCsvTable } from "../../src/datasets/csv.js";

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

describe("parseCsv (RFC 4180)", () => {
  it("splits plain fields and records", () => {
    assert.deepEqual(fields("a,b,c\n1,2,3\n"), [
      ["a", "b", "c"],
      ["1", "2", "3"],
    ]);
  });

  it("keeps newlines, commas and doubled quotes inside quoted fields", () => {
    assert.deepEqual(fields('q,"line one\nline two, still",x\n"say ""hi""",,\n'), [
      ["q", "line one\nline two, still", "x"],
      ['say "hi"', "", ""],
    ]);
  });

  it("strips a BOM and handles CRLF, LF and lone CR in one file, with no final newline", () => {
    assert.deepEqual(fields("\ufeffType,Q\r\nA,1\nB,2\rC,3"), [
      ["Type", "Q"],
      ["A", "1"],
      ["B", "2"],
      ["C", "3"],
    ]);
  });

  it("keeps CRLF inside a quoted field verbatim and reports the record's first line", () => {
    const records = parseCsv('h\r\n"a\r\nb"\r\nc\r\n');
    assert.deepEqual(
      records.map((r) => [r.fields[0], r.line]),
      [
        ["h", 1],
        ["a\r\nb", 2],
        ["c", 4],
      ],
    );
  });

  it("skips blank lines but keeps a record of one empty quoted field", () => {
    assert.deepEqual(fields('a\n\n""\nb\n'), [["a"], [""], ["b"]]);
  });

  it("counts lines in characters, not bytes, and a CRLF inside a quote as one line", () => {
    const records = parseCsv('é,ü\n"ö\r\nx",2\r\n\r\nz,"€"\n');
    assert.deepEqual(
      records.map((r) => [r.fields, r.line]),
      [
        [["é", "ü"], 1],
        [["ö\r\nx", "2"], 2],
        [["z", "€"], 5],
      ],
    );
  });

  it("names the line where an unterminated quote opens, after blank lines and multi-line records", () => {
    assert.throws(
      () => parseCsv('a\r\n"x\r\ny"\r\n\r\n"open\r\nstill open\r\n', "y.csv"),
      (e: unknown) => e instanceof InputError && /^y\.csv: line 5: unterminated quoted field$/.test(e.message),
    );
  });

  it("rejects an unterminated quote with its line", () => {
    assert.throws(
      () => parseCsv('a\n"open,\nnever closed\n', "x.csv"),
      (e: unknown) => {
        assert.ok(e instanceof InputError, "expected e instanceof InputError");
        assert.match(e.message, /x\.csv: line 2: unterminated/);
        return true;
      },
    );
  });
});

describe("readCsvTable", () => {
  it("maps columns, counts data rows from 1 and lists rows with the wrong field count", () => {
    const table = readCsvTable(",name,label\n0,x,safe\n1,y\n2,z,unsafe\n", "t.csv", ["", "label"]);
    assert.deepEqual(
      table.rows.map((r) => [r.row, r.values[""], r.values.label]),
      [
        [1, "0", "safe"],
        [3, "2", "unsafe"],
      ],
    );
    assert.deepEqual(table.malformed, [{ row: 2, line: 3, reason: "expected 3 fields, found 2" }]);
  });

  it("names the file and the missing column", () => {
    assert.throws(
      () => readCsvTable("prompt,type\na,b\n", "xs.csv", ["prompt", "label"]),
      /xs\.csv: missing column\(s\) 'label'/,
    );
  });
});
