/**
 * RFC 4180 CSV reading. Published benchmark CSVs are messy: a UTF-8 BOM (TruthfulQA),
 * quoted fields holding newlines and doubled quotes (MMLU), CRLF and LF mixed within one
 * file, no final newline. Line splitting gets all of these wrong, hence a real parser.
 */
import { InputError } from "../core/errors.js";

export interface CsvRecord {
  fields: string[];
  /** 1-based physical line where the record starts (differs from the record index once a field holds a newline). */
  line: number;
}

/** Parses CSV text into records. Fully empty lines are skipped; an unterminated quote is an error. */
export function parseCsv(text: string, file = "(csv)"): CsvRecord[] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let fieldStarted = false;
  const endRecord = () => {
    fields.push(field);
    // A lone empty field is a blank line, not a record.
    if (!(fields.length === 1 && fields[0] === "" && !fieldStarted)) records.push({ fields, line: recordLine });
    fields = [];
    field = "";
    fieldStarted = false;
  };
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (quoted) {
      if (ch === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === "\n" || (ch === "\r" && src[i + 1] !== "\n")) line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"' && field === "") {
      quoted = true;
      fieldStarted = true;
    } else if (ch === ",") {
      fields.push(field);
      field = "";
      fieldStarted = true;
    } else if (ch === "\r" || ch === "\n") {
      if (ch === "\r" && src[i + 1] === "\n") i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      field += ch;
      fieldStarted = true;
    }
  }
  if (quoted) throw new InputError(`${file}: line ${recordLine}: unterminated quoted field`);
  if (field !== "" || fields.length > 0 || fieldStarted) endRecord();
  return records;
}

export interface CsvRow {
  /** Column name -> value. */
  values: Record<string, string>;
  /** 1-based data row (the header is not counted). */
  row: number;
  line: number;
}

export interface CsvTable {
  header: string[];
  rows: CsvRow[];
  /** Data rows whose field count does not match the header, with the reason. */
  malformed: { row: number; line: number; reason: string }[];
}

/** A CSV with a header row; missing required columns fail the whole file. */
export function readCsvTable(text: string, file: string, required: readonly string[]): CsvTable {
  const [head, ...data] = parseCsv(text, file);
  if (!head) throw new InputError(`${file}: empty CSV file (no header row)`);
  const header = head.fields.map((name) => name.trim());
  const missing = required.filter((name) => !header.includes(name));
  if (missing.length > 0) {
    throw new InputError(
      `${file}: missing column(s) ${missing.map((m) => `'${m}'`).join(", ")}; found ${header.join(", ")}`,
    );
  }
  const table: CsvTable = { header, rows: [], malformed: [] };
  data.forEach((record, index) => {
    const row = index + 1;
    if (record.fields.length !== header.length) {
      const reason = `expected ${header.length} fields, found ${record.fields.length}`;
      table.malformed.push({ row, line: record.line, reason });
      return;
    }
    const values = Object.fromEntries(header.map((name, i) => [name, record.fields[i]]));
    table.rows.push({ values, row, line: record.line });
  });
  return table;
}
