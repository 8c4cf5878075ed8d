/**
 * RFC 4180 CSV reading through csv-parse. Published benchmark CSVs are messy: a UTF-8 BOM
 * (TruthfulQA), quoted fields holding newlines and doubled quotes (MMLU), CRLF, LF and lone CR
 * mixed within one file, no final newline. Line splitting gets all of these wrong, hence a
 * real parser.
 */
import { CsvError, type Info, type Options, parse } from "csv-parse/sync";
import { InputError } from "../core/errors.js";
import { NOT_SHOWN, quotingAllowed } from "./quote.js";

export interface CsvRecord {
  fields: string[];
  /** 1-based physical line where the record starts (differs from the record index once a field holds a newline). */
  line: number;
}

const CSV_OPTIONS: Options = {
  bom: true,
  info: true,
  // Rows of the wrong length are reported by the caller (readCsvTable), not refused here.
  relax_column_count: true,
  // A quote inside an unquoted field is a literal character, as in the published files.
  relax_quotes: true,
  skip_empty_lines: true,
  // Every line ending counts in every file; csv-parse would otherwise fix the first one it sees.
  record_delimiter: ["\r\n", "\n", "\r"],
};

/** Parses CSV text into records. Fully empty lines are skipped; an unterminated quote is an error. */
export function parseCsv(text: string, file = "(csv)"): CsvRecord[] {
  // csv-parse reports each record's end as a byte offset; lines are counted here, because its
  // own line count takes a CRLF inside a quoted field for two lines.
  const bytes = Buffer.from(text, "utf8");
  const lines = new LineCounter(bytes);
  try {
    // With info: true each record comes as { record, info }; the typings do not model that option.
    const parsed = parse(bytes, CSV_OPTIONS) as unknown as { record: string[]; info: Info }[];
    return parsed.map(({ record, info }) => ({ fields: record, line: lines.advance(info.bytes) }));
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // The failing record starts at the first non-blank line after the last parsed one.
    lines.advance(Number(error.bytes_records ?? 0));
    const line = lines.advance(bytes.length);
    // csv-parse's messages may quote a field's value.
    const what =
      error.code === "CSV_QUOTE_NOT_CLOSED"
        ? "unterminated quoted field"
        : quotingAllowed()
          ? error.message
          : error.code;
    throw new InputError(`${file}: line ${line}: ${what}`);
  }
}

const CR = 13;
const LF = 10;

/** Walks the bytes once, counting CRLF, LF and lone CR each as one line break. */
class LineCounter {
  private position = 0;
  private line = 1;

  constructor(private readonly bytes: Uint8Array) {}

  /** Skips blank lines, returns the line where the next record starts, and moves past it to `end`. */
  advance(end: number): number {
    while (this.position < end && this.isBreak()) this.skipBreak();
    const start = this.line;
    while (this.position < end) {
      if (this.isBreak()) this.skipBreak();
      else this.position++;
    }
    return start;
  }

  private isBreak(): boolean {
    const b = this.bytes[this.position];
    return b === CR || b === LF;
  }

  private skipBreak(): void {
    if (this.bytes[this.position] === CR && this.bytes[this.position + 1] === LF) this.position++;
    this.position++;
    this.line++;
  }
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
      `${file}: missing column(s) ${missing.map((m) => `'${m}'`).join(", ")}; found ${quotingAllowed() ? header.join(", ") : `${header.length} column(s) ${NOT_SHOWN}`}`,
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
