// Design matrices for factor models, stored sparse (CSR): a treatment-coded row has one non-zero
// per term at most, so X'WX costs O(rows x terms^2) instead of O(rows x columns^2).
import { aliasCoefficients, pivotedQr } from "./linalg.js";

/**
 * A categorical column held as codes into its distinct values (R's factor, a pandas Categorical):
 * a study's half a million rows name a few models, benchmarks and conditions, so such a column is
 * made and coded without a string per row.
 */
export interface FactorColumn {
  readonly length: number;
  /** Each row's place in `values`. */
  readonly codes: Uint32Array;
  /** The distinct values (each one some row's). */
  readonly values: readonly (string | number)[];
}

/** A data column: strings or numbers (a typed array for numeric columns is fastest), or a factor column. */
export type Column = ArrayLike<string | number> | FactorColumn;

/** Fills a factor column row by row; rows in runs of one value cost a comparison each. */
export class FactorColumnBuilder {
  private readonly codes: Uint32Array;
  private readonly values: (string | number)[] = [];
  private readonly index = new Map<string | number, number>();
  private previous: unknown = NaN;
  private previousCode = 0;

  constructor(private readonly length: number) {
    this.codes = new Uint32Array(length);
  }

  set(row: number, value: string | number): void {
    if (value !== this.previous) {
      let code = this.index.get(value);
      if (code === undefined) {
        code = this.values.length;
        this.values.push(value);
        this.index.set(value, code);
      }
      this.previous = value;
      this.previousCode = code;
    }
    this.codes[row] = this.previousCode;
  }

  column(): FactorColumn {
    return { length: this.length, codes: this.codes, values: this.values };
  }
}

export function isFactorColumn(column: Column): column is FactorColumn {
  return !Array.isArray(column) && !ArrayBuffer.isView(column) && "codes" in column;
}

/** A column's values row by row: a factor column's expanded, any other as it is. */
export function columnValues(column: Column): ArrayLike<string | number> {
  if (!isFactorColumn(column)) return column;
  const { codes, values } = column;
  const out = new Array<string | number>(column.length);
  for (let i = 0; i < out.length; i++) out[i] = values[codes[i]];
  return out;
}

/**
 * A column as codes of its values' labels (String of each value, as a table of cells names them),
 * numbered in the order rows first show them: rows with equal labels share a code. A factor
 * column's own codes are used when its values' labels are distinct; no value is expanded per row.
 */
export function labelCodes(column: Column): { codes: ArrayLike<number>; labels: string[] } {
  const labels: string[] = [];
  const byLabel = new Map<string, number>();
  const codeOf = (value: string | number) => {
    const label = String(value);
    let code = byLabel.get(label);
    if (code === undefined) {
      code = labels.length;
      labels.push(label);
      byLabel.set(label, code);
    }
    return code;
  };
  if (isFactorColumn(column)) {
    // Labelled in the order rows first show the values, then the rows' codes mapped to them.
    const { order } = firstSeenOrder(column);
    const codeOfValue = new Int32Array(column.values.length);
    for (const value of order) codeOfValue[value] = codeOf(column.values[value]);
    const same = codeOfValue.every((code, value) => code === value);
    return { codes: same ? column.codes : Uint32Array.from(column.codes, (value) => codeOfValue[value]), labels };
  }
  const codes = new Uint32Array(column.length);
  for (let i = 0; i < column.length; i++) codes[i] = codeOf(column[i]);
  return { codes, labels };
}

/**
 * Each row's key over label-coded columns: rows share a key when they share every code. The codes
 * are read as one number (mixed radix), so no key string is built per row; past 2^53 combinations,
 * the codes joined.
 */
export function rowKeys(columns: readonly { codes: ArrayLike<number>; labels: readonly string[] }[]) {
  const strides = columns.map((_, j) => columns.slice(j + 1).reduce((size, c) => size * c.labels.length, 1));
  const numeric = columns.length === 0 || strides[0] * columns[0].labels.length <= Number.MAX_SAFE_INTEGER;
  return (row: number): number | string => {
    if (!numeric) return columns.map((c) => c.codes[row]).join(",");
    let key = 0;
    for (let j = 0; j < columns.length; j++) key += columns[j].codes[row] * strides[j];
    return key;
  };
}

/** A factor column's values in the order rows first show them, and each value's place in that order. */
export function firstSeenOrder(column: FactorColumn): { order: number[]; place: Int32Array } {
  const place = new Int32Array(column.values.length).fill(-1);
  const order: number[] = [];
  for (let i = 0; i < column.length; i++) {
    const v = column.codes[i];
    if (place[v] < 0) {
      place[v] = order.length;
      order.push(v);
    }
  }
  return { order, place };
}

/** A table in columnar form: column name -> values, all columns the same length. */
export type Table = Readonly<Record<string, Column>>;

export interface FactorOptions {
  /** Level order (default: distinct values in plain JavaScript sort() order). */
  levels?: readonly string[];
  /** Treatment-coding reference level (default: the first level). */
  reference?: string;
}

export type Coding = "treatment" | "sum";

export interface DesignSpec {
  /** Terms: variable names, or interactions written 'a:b'. */
  terms: readonly string[];
  intercept?: boolean;
  /** Variables to treat as categorical, with optional level order / reference. String columns are always categorical. */
  factors?: Readonly<Record<string, FactorOptions>>;
  /** treatment (dummy, patsy `[T.x]`) or sum-to-zero (deviation, patsy `[S.x]`, last level omitted). */
  coding?: Coding;
}

export interface DesignTerm {
  name: string;
  variables: string[];
  /** Indices of this term's columns in the design. */
  columns: number[];
}

export interface DesignMatrix {
  nRows: number;
  nCols: number;
  columnNames: string[];
  /** The intercept (if any) is the first term, named 'Intercept'. */
  terms: DesignTerm[];
  coding: Coding;
  /** Level order of every categorical variable (reference first under treatment coding). */
  factorLevels: Record<string, string[]>;
  rowPtr: Int32Array;
  colIdx: Int32Array;
  values: Float64Array;
}

/**
 * The data cannot support the requested fit (an aliased or all-zero column, a factor with one
 * level, no residual degrees of freedom): what a resample or a subset may legitimately hit, as
 * opposed to a bug. Callers that expect such data catch this type only.
 */
export class EstimabilityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EstimabilityError";
  }
}

export class RankDeficiencyError extends EstimabilityError {
  constructor(
    message: string,
    readonly aliased: AliasedColumn[],
  ) {
    super(message);
    this.name = "RankDeficiencyError";
  }
}

/** Distinct values of a column in plain JavaScript sort() (code-point) order, as strings. */
export function sortedLevels(column: Column): string[] {
  const seen = new Set<string>();
  if (isFactorColumn(column)) {
    for (const v of firstSeenOrder(column).order) seen.add(String(column.values[v]));
    return [...seen].sort();
  }
  // Rows come in runs of one value (grouped by model, benchmark, ...): a repeat is not looked up.
  let previous: unknown = NaN;
  for (let i = 0; i < column.length; i++) {
    const value = column[i];
    if (value === previous) continue;
    previous = value;
    seen.add(String(value));
  }
  return [...seen].sort();
}

/** Per-variable coding of one row: up to `width` (column offset, value) pairs. */
interface VariableCoder {
  name: string;
  /** Number of design columns this variable spans inside a term. */
  width: number;
  labels: string[];
  /** Writes the variable's non-zeros for row i into idx/val; returns how many. */
  code(i: number, idx: Int32Array, val: Float64Array): number;
  /** A treatment-coded factor's level codes (0: the reference, no non-zero), read directly by fillSparse. */
  treatmentCodes?: Int32Array;
}

function factorCoder(name: string, column: Column, options: FactorOptions | undefined, coding: Coding) {
  const levels = orderedLevels(name, column, options, coding);
  const codeOf = new Map(levels.map((l, i) => [l, i]));
  const codes = isFactorColumn(column) ? factorCodes(name, column, codeOf) : valueCodes(name, column, codeOf);
  const last = levels.length - 1;
  const coder: VariableCoder =
    coding === "treatment"
      ? {
          name,
          width: last,
          labels: levels.slice(1).map((l) => `${name}[T.${l}]`),
          treatmentCodes: codes,
          code(i, idx, val) {
            const c = codes[i];
            if (c === 0) return 0;
            idx[0] = c - 1;
            val[0] = 1;
            return 1;
          },
        }
      : {
          name,
          width: last,
          labels: levels.slice(0, last).map((l) => `${name}[S.${l}]`),
          code(i, idx, val) {
            const c = codes[i];
            if (c < last) {
              idx[0] = c;
              val[0] = 1;
              return 1;
            }
            for (let m = 0; m < last; m++) {
              idx[m] = m;
              val[m] = -1;
            }
            return last;
          },
        };
  return { coder, levels };
}

/** Each row's level code (its place in the levels `codeOf` numbers). */
function valueCodes(name: string, column: ArrayLike<string | number>, codeOf: Map<string, number>): Int32Array {
  const codes = new Int32Array(column.length);
  let previous: unknown = NaN;
  let code = -1;
  for (let i = 0; i < column.length; i++) {
    const value = column[i];
    if (value !== previous) {
      const c = codeOf.get(String(value));
      if (c === undefined) throw undeclaredLevel(name, i, value);
      previous = value;
      code = c;
    }
    codes[i] = code;
  }
  return codes;
}

/** valueCodes for a factor column: each distinct value is looked up once. */
function factorCodes(name: string, column: FactorColumn, codeOf: Map<string, number>): Int32Array {
  const levelOf = Int32Array.from(column.values, (value) => codeOf.get(String(value)) ?? -1);
  const codes = new Int32Array(column.length);
  for (let i = 0; i < column.length; i++) {
    const c = levelOf[column.codes[i]];
    if (c < 0) throw undeclaredLevel(name, i, column.values[column.codes[i]]);
    codes[i] = c;
  }
  return codes;
}

function undeclaredLevel(name: string, row: number, value: unknown): Error {
  return new Error(`variable '${name}' row ${row}: value '${value}' is not a declared level`);
}

function orderedLevels(name: string, column: Column, options: FactorOptions | undefined, coding: Coding): string[] {
  const present = sortedLevels(column);
  let levels = options?.levels ? options.levels.map(String) : present;
  const missing = present.filter((l) => !levels.includes(l));
  if (missing.length)
    throw new Error(`variable '${name}' has values not in its declared levels: ${missing.join(", ")}`);
  const reference = options?.reference;
  if (reference !== undefined) {
    if (!levels.includes(reference)) throw new Error(`reference level '${reference}' of '${name}' is not a level`);
    if (coding === "treatment") levels = [reference, ...levels.filter((l) => l !== reference)];
  }
  if (levels.length < 2)
    throw new EstimabilityError(`factor '${name}' needs at least two levels, has ${levels.length}`);
  return levels;
}

function numericCoder(name: string, data: Column): VariableCoder {
  const column = columnValues(data);
  const x = new Float64Array(column.length);
  for (let i = 0; i < column.length; i++) {
    const v = column[i];
    if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`numeric variable '${name}' row ${i}: '${v}'`);
    x[i] = v;
  }
  return {
    name,
    width: 1,
    labels: [name],
    code(i, idx, val) {
      idx[0] = 0;
      val[0] = x[i];
      return 1;
    },
  };
}

function isCategorical(name: string, column: Column, spec: DesignSpec): boolean {
  if (spec.factors && name in spec.factors) return true;
  if (column.length === 0) return false;
  return typeof (isFactorColumn(column) ? column.values[column.codes[0]] : column[0]) === "string";
}

/** Builds the design matrix for `spec` over `table` (every row is used; missing values are an error). */
export function buildDesign(table: Table, spec: DesignSpec): DesignMatrix {
  const coding = spec.coding ?? "treatment";
  const nRows = tableLength(table, spec);
  const coders = new Map<string, VariableCoder>();
  const factorLevels: Record<string, string[]> = {};
  const coderOf = (name: string): VariableCoder => {
    let c = coders.get(name);
    if (c) return c;
    const column = table[name];
    if (!column) throw new Error(`unknown variable '${name}'`);
    if (isCategorical(name, column, spec)) {
      const built = factorCoder(name, column, spec.factors?.[name], coding);
      factorLevels[name] = built.levels;
      c = built.coder;
    } else c = numericCoder(name, column);
    coders.set(name, c);
    return c;
  };

  const terms: DesignTerm[] = [];
  const columnNames: string[] = [];
  const termCoders: VariableCoder[][] = [];
  if (spec.intercept ?? true) {
    terms.push({ name: "Intercept", variables: [], columns: [0] });
    columnNames.push("Intercept");
    termCoders.push([]);
  }
  for (const term of spec.terms) {
    const variables = term.split(":");
    const vc = variables.map(coderOf);
    const labels = interactionLabels(vc);
    const start = columnNames.length;
    columnNames.push(...labels);
    terms.push({ name: term, variables, columns: labels.map((_, j) => start + j) });
    termCoders.push(vc);
  }
  const { rowPtr, colIdx, values } = fillSparse(nRows, terms, termCoders);
  return { nRows, nCols: columnNames.length, columnNames, terms, coding, factorLevels, rowPtr, colIdx, values };
}

function tableLength(table: Table, spec: DesignSpec): number {
  const used = new Set(spec.terms.flatMap((t) => t.split(":")));
  let n = -1;
  for (const name of used) {
    const column = table[name];
    if (!column) throw new Error(`unknown variable '${name}'`);
    if (n >= 0 && column.length !== n) throw new Error(`column '${name}' has ${column.length} rows, expected ${n}`);
    n = column.length;
  }
  if (n < 0) {
    const first = Object.values(table)[0];
    n = first ? first.length : 0;
  }
  return n;
}

/** Column labels of an interaction: the first variable varies fastest (patsy order). */
function interactionLabels(coders: VariableCoder[]): string[] {
  let labels = [""];
  for (const c of coders) {
    const next: string[] = [];
    for (const own of c.labels) for (const prev of labels) next.push(prev === "" ? own : `${prev}:${own}`);
    labels = next;
  }
  return labels;
}

function fillSparse(nRows: number, terms: DesignTerm[], termCoders: VariableCoder[][]) {
  const products = termCoders.map((coders) => treatmentProduct(coders));
  if (products.every((p) => p !== null)) return fillTreatment(nRows, terms, products as TreatmentProduct[]);
  return fillProducts(nRows, terms, termCoders);
}

/**
 * The design of treatment-coded factor terms only (the intercept, main effects, their
 * interactions): per row and term one entry, 1 at the product of the level offsets, unless a
 * factor is at its reference (fillProducts gives the same entries). Counted first, so the
 * arrays are allocated at their size.
 */
function fillTreatment(nRows: number, terms: DesignTerm[], products: TreatmentProduct[]) {
  const rowPtr = new Int32Array(nRows + 1);
  const offsets = Int32Array.from(terms, (t) => t.columns[0]);
  let nnz = 0;
  for (let i = 0; i < nRows; i++) {
    for (let t = 0; t < products.length; t++) if (treatmentColumn(products[t], i) >= 0) nnz++;
    rowPtr[i + 1] = nnz;
  }
  const colIdx = new Int32Array(nnz);
  const values = new Float64Array(nnz).fill(1);
  let at = 0;
  for (let i = 0; i < nRows; i++) {
    for (let t = 0; t < products.length; t++) {
      const column = treatmentColumn(products[t], i);
      if (column >= 0) colIdx[at++] = offsets[t] + column;
    }
  }
  return { rowPtr, colIdx, values };
}

/** Row i's column within a treatment product term, or -1 when a factor is at its reference. */
function treatmentColumn(product: TreatmentProduct, i: number): number {
  const { codes, strides } = product;
  let column = 0;
  for (let j = 0; j < codes.length; j++) {
    const c = codes[j][i];
    if (c === 0) return -1;
    column += (c - 1) * strides[j];
  }
  return column;
}

function fillProducts(nRows: number, terms: DesignTerm[], termCoders: VariableCoder[][]) {
  const rowPtr = new Int32Array(nRows + 1);
  let capacity = Math.max(16, nRows * (terms.length + 1));
  let colIdx = new Int32Array(capacity);
  let values = new Float64Array(capacity);
  const maxWidth = Math.max(1, ...termCoders.flat().map((c) => c.width));
  const vIdx = new Int32Array(maxWidth);
  const vVal = new Float64Array(maxWidth);
  const maxTerm = Math.max(1, ...terms.map((t) => t.columns.length));
  let curIdx = new Int32Array(maxTerm);
  let curVal = new Float64Array(maxTerm);
  let nxtIdx = new Int32Array(maxTerm);
  let nxtVal = new Float64Array(maxTerm);
  let nnz = 0;
  for (let i = 0; i < nRows; i++) {
    for (let t = 0; t < terms.length; t++) {
      // Product of the variables' codings: start from the scalar 1 and multiply one variable at a time.
      let count = 1;
      curIdx[0] = 0;
      curVal[0] = 1;
      let stride = 1;
      for (const coder of termCoders[t]) {
        const m = coder.code(i, vIdx, vVal);
        let out = 0;
        for (let a = 0; a < m; a++) {
          for (let b = 0; b < count; b++) {
            nxtIdx[out] = curIdx[b] + vIdx[a] * stride;
            nxtVal[out] = curVal[b] * vVal[a];
            out++;
          }
        }
        [curIdx, nxtIdx] = [nxtIdx, curIdx];
        [curVal, nxtVal] = [nxtVal, curVal];
        count = out;
        stride *= coder.width;
        if (count === 0) break;
      }
      if (nnz + count > capacity) {
        capacity = Math.max(capacity * 2, nnz + count);
        colIdx = growInt(colIdx, capacity);
        values = growFloat(values, capacity);
      }
      const offset = terms[t].columns[0];
      for (let b = 0; b < count; b++) {
        if (curVal[b] === 0) continue;
        colIdx[nnz] = offset + curIdx[b];
        values[nnz] = curVal[b];
        nnz++;
      }
    }
    rowPtr[i + 1] = nnz;
  }
  return { rowPtr, colIdx: colIdx.slice(0, nnz), values: values.slice(0, nnz) };
}

/** A term's treatment codes and the column stride of each (the first varies fastest). */
interface TreatmentProduct {
  codes: Int32Array[];
  strides: number[];
}

/** The term as a treatment product; null unless every variable is a treatment-coded factor. */
function treatmentProduct(coders: readonly VariableCoder[]): TreatmentProduct | null {
  const codes: Int32Array[] = [];
  const strides: number[] = [];
  let stride = 1;
  for (const coder of coders) {
    if (!coder.treatmentCodes) return null;
    codes.push(coder.treatmentCodes);
    strides.push(stride);
    stride *= coder.width;
  }
  return { codes, strides };
}

function growInt(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}

function growFloat(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(n);
  b.set(a);
  return b;
}

/** X'WX (w omitted = identity), full symmetric k x k. */
export function weightedCrossProduct(design: DesignMatrix, w?: ArrayLike<number>): Float64Array {
  const k = design.nCols;
  const out = new Float64Array(k * k);
  const { rowPtr, colIdx, values } = design;
  for (let i = 0; i < design.nRows; i++) {
    const wi = w ? w[i] : 1;
    if (wi === 0) continue;
    addOuter(out, k, colIdx, values, rowPtr[i], rowPtr[i + 1], wi);
  }
  mirrorUpper(out, k);
  return out;
}

/** out[upper] += w * x x' over the sparse row x = (colIdx, values)[start, end). */
export function addOuter(
  out: Float64Array,
  k: number,
  colIdx: Int32Array,
  values: Float64Array,
  start: number,
  end: number,
  w: number,
): void {
  for (let a = start; a < end; a++) {
    const ca = colIdx[a];
    const wa = w * values[a];
    for (let b = start; b < end; b++) {
      const cb = colIdx[b];
      if (cb >= ca) out[ca * k + cb] += wa * values[b];
    }
  }
}

/** Copies the upper triangle to the lower one. */
export function mirrorUpper(a: Float64Array, k: number): void {
  for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) a[j * k + i] = a[i * k + j];
}

/** X'v. */
export function crossProductVector(design: DesignMatrix, v: ArrayLike<number>): Float64Array {
  const out = new Float64Array(design.nCols);
  const { rowPtr, colIdx, values } = design;
  for (let i = 0; i < design.nRows; i++) {
    const vi = v[i];
    for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) out[colIdx[a]] += values[a] * vi;
  }
  return out;
}

/** X b, into `out`. */
export function linearPredictor(design: DesignMatrix, b: ArrayLike<number>, out?: Float64Array): Float64Array {
  const eta = out ?? new Float64Array(design.nRows);
  const { rowPtr, colIdx, values } = design;
  for (let i = 0; i < design.nRows; i++) {
    let s = 0;
    for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) s += values[a] * b[colIdx[a]];
    eta[i] = s;
  }
  return eta;
}

/** A column left out of a fit as a linear combination of earlier columns (R's coefficient NA). */
export interface AliasedColumn {
  column: string;
  /** The kept columns it is a combination of; empty for an all-zero column. */
  combinationOf: string[];
}

/** One line naming each aliased column and what it is a combination of. */
export function describeAliased(aliased: readonly AliasedColumn[]): string {
  return aliased
    .map((a) =>
      a.combinationOf.length === 0
        ? `'${a.column}' is all zero (no row has this level or combination)`
        : `'${a.column}' is a linear combination of ${a.combinationOf.map((c) => `'${c}'`).join(", ")}`,
    )
    .join("; ");
}

/**
 * Throws a RankDeficiencyError naming every column that is a linear combination of earlier
 * columns (the pivoted QR of `aliasedColumns`).
 */
export function assertFullRank(design: DesignMatrix, rowWeights?: ArrayLike<number>): void {
  const aliased = aliasedColumns(design, rowWeights);
  if (aliased.length === 0) return;
  throw new RankDeficiencyError(`design matrix is rank deficient: ${describeAliased(aliased)}`, aliased);
}

/**
 * The columns that are linear combinations of earlier columns, in column order: the ones R's
 * lm/glm report as NA (aliased) and leave out of the fit. Found by a pivoted QR (R's dqrdc2,
 * tolerance 1e-7 as lm.fit) of the design's distinct rows, each scaled by the square root of its
 * multiplicity (times its weight; weight 0 leaves a row out): that matrix has the same X'WX, so
 * the same column space and the same decisions, at a cost set by the distinct rows.
 */
export function aliasedColumns(design: DesignMatrix, rowWeights?: ArrayLike<number>): AliasedColumn[] {
  const { x, n } = distinctRows(design, rowWeights);
  return aliasedDenseColumns(x, n, design.nCols, design.columnNames);
}

/** The aliased columns of a dense n x k matrix (row-major) with column names, by the pivoted QR. */
export function aliasedDenseColumns(x: Float64Array, n: number, k: number, names: readonly string[]): AliasedColumn[] {
  const qr = pivotedQr(x, n, k);
  const kept = Array.from(qr.pivot.subarray(0, qr.rank));
  const out: AliasedColumn[] = [];
  for (let position = qr.rank; position < k; position++) {
    const c = aliasCoefficients(qr, k, position);
    const scale = Math.max(1e-300, ...Array.from(c, Math.abs));
    const combinationOf = kept
      .filter((_, a) => Math.abs(c[a]) > 1e-7 * scale && Math.abs(c[a]) > 1e-10)
      .sort((p, q) => p - q)
      .map((j) => names[j]);
    out.push({ column: names[qr.pivot[position]], combinationOf });
  }
  return out.sort((p, q) => names.indexOf(p.column) - names.indexOf(q.column));
}

/** Dense distinct rows of the design, each times sqrt(total weight of its copies). */
function distinctRows(design: DesignMatrix, rowWeights?: ArrayLike<number>): { x: Float64Array; n: number } {
  const k = design.nCols;
  const { rowPtr, colIdx, values } = design;
  let first: ArrayLike<number>;
  let weight: number[];
  if (rowWeights) {
    const index = new Map<string, number>();
    const firstSeen: number[] = [];
    weight = [];
    for (let i = 0; i < design.nRows; i++) {
      const w = rowWeights[i];
      if (!(w > 0)) continue;
      let key = "";
      for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) key += `${colIdx[a]}:${values[a]},`;
      const seen = index.get(key);
      if (seen === undefined) {
        index.set(key, firstSeen.length);
        firstSeen.push(i);
        weight.push(w);
      } else weight[seen] += w;
    }
    first = firstSeen;
  } else {
    // Every row weighs 1: the patterns' first rows in first-seen order, each counted.
    const patterns = rowPatterns(design);
    first = patterns.first;
    weight = new Array<number>(patterns.count).fill(0);
    for (let i = 0; i < design.nRows; i++) weight[patterns.of[i]] += 1;
  }
  const x = new Float64Array(first.length * k);
  for (let r = 0; r < first.length; r++) {
    const i = first[r];
    const scale = Math.sqrt(weight[r]);
    for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) x[r * k + colIdx[a]] += scale * values[a];
  }
  return { x, n: first.length };
}

/**
 * The design's distinct rows: `of[i]` is row i's pattern, `first[p]` the first row of pattern p
 * (patterns numbered in first-seen order). Rows of one pattern have the same non-zeros in the
 * same order, so any per-row quantity of the design row is the same number for each of them.
 */
export interface RowPatterns {
  of: Int32Array;
  first: Int32Array;
  count: number;
}

const patternsOf = new WeakMap<DesignMatrix, RowPatterns>();

/** The design's row patterns (computed once per design). */
export function rowPatterns(design: DesignMatrix): RowPatterns {
  const known = patternsOf.get(design);
  if (known) return known;
  const { rowPtr, colIdx, values, nRows } = design;
  const of = new Int32Array(nRows);
  const first: number[] = [];
  /** Per pattern, the next pattern with the same hash (-1: none). */
  const next: number[] = [];
  const head = new Map<number, number>();
  const same = (i: number, j: number): boolean => {
    const from = rowPtr[i];
    const length = rowPtr[i + 1] - from;
    const other = rowPtr[j];
    if (rowPtr[j + 1] - other !== length) return false;
    for (let a = 0; a < length; a++) {
      if (colIdx[from + a] !== colIdx[other + a] || values[from + a] !== values[other + a]) return false;
    }
    return true;
  };
  for (let i = 0; i < nRows; i++) {
    let h = rowPtr[i + 1] - rowPtr[i];
    for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) {
      h = Math.imul(h ^ colIdx[a], 0x9e3779b1);
      const v = values[a];
      if (v !== 1) h = Math.imul(h ^ (Math.round(v * 1048576) | 0), 0x85ebca6b);
    }
    const chain = head.get(h);
    let p = chain ?? -1;
    while (p >= 0 && !same(first[p], i)) p = next[p];
    if (p < 0) {
      p = first.length;
      first.push(i);
      next.push(chain ?? -1);
      head.set(h, p);
    }
    of[i] = p;
  }
  const patterns = { of, first: Int32Array.from(first), count: first.length };
  patternsOf.set(design, patterns);
  return patterns;
}

/** The design restricted to the columns `keep` (ascending): terms keep their remaining columns. */
export function selectColumns(design: DesignMatrix, keep: readonly number[]): DesignMatrix {
  const position = new Int32Array(design.nCols).fill(-1);
  keep.forEach((c, p) => {
    position[c] = p;
  });
  const rowPtr = new Int32Array(design.nRows + 1);
  const colIdx: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < design.nRows; i++) {
    for (let a = design.rowPtr[i]; a < design.rowPtr[i + 1]; a++) {
      const p = position[design.colIdx[a]];
      if (p < 0) continue;
      colIdx.push(p);
      values.push(design.values[a]);
    }
    rowPtr[i + 1] = colIdx.length;
  }
  return {
    ...design,
    nCols: keep.length,
    columnNames: keep.map((c) => design.columnNames[c]),
    terms: design.terms.map((t) => ({
      ...t,
      columns: t.columns.flatMap((c) => (position[c] < 0 ? [] : [position[c]])),
    })),
    rowPtr,
    colIdx: Int32Array.from(colIdx),
    values: Float64Array.from(values),
  };
}

/** The estimable part of a design: its aliased columns and the design without them. */
export function estimableDesign(
  design: DesignMatrix,
  rowWeights?: ArrayLike<number>,
): { design: DesignMatrix; aliased: AliasedColumn[]; kept: number[] } {
  const aliased = aliasedColumns(design, rowWeights);
  if (aliased.length === 0) return { design, aliased, kept: design.columnNames.map((_, j) => j) };
  const dropped = new Set(aliased.map((a) => a.column));
  const kept = design.columnNames.flatMap((name, j) => (dropped.has(name) ? [] : [j]));
  return { design: selectColumns(design, kept), aliased, kept };
}

/** Estimates on the kept columns spread over all k columns, NaN where a column is aliased (R's NA). */
export function spreadOverColumns(estimates: ArrayLike<number>, kept: readonly number[], k: number): Float64Array {
  const out = new Float64Array(k).fill(Number.NaN);
  kept.forEach((c, a) => {
    out[c] = estimates[a];
  });
  return out;
}

/** A covariance over the kept columns spread over k x k, NaN rows and columns where a column is aliased. */
export function spreadCovariance(v: Float64Array, kept: readonly number[], k: number): Float64Array {
  const r = kept.length;
  const out = new Float64Array(k * k).fill(Number.NaN);
  for (let a = 0; a < r; a++) for (let b = 0; b < r; b++) out[kept[a] * k + kept[b]] = v[a * r + b];
  return out;
}

/**
 * The parts of a fit on the estimable columns that change when it is spread back over the full
 * design: names, coefficients (NaN where aliased), every covariance (NaN rows and columns).
 */
export function spreadFit<C extends { [name: string]: Float64Array | undefined }>(
  fit: { coefficients: Float64Array; covariance: C },
  design: DesignMatrix,
  estimable: { kept: readonly number[]; aliased: AliasedColumn[] },
) {
  const k = design.nCols;
  const covariance = Object.fromEntries(
    Object.entries(fit.covariance).flatMap(([name, v]) => (v ? [[name, spreadCovariance(v, estimable.kept, k)]] : [])),
  ) as C;
  return {
    design,
    coefficientNames: design.columnNames,
    coefficients: spreadOverColumns(fit.coefficients, estimable.kept, k),
    aliased: estimable.aliased,
    covariance,
  };
}

/** Column indices of the named coefficients (throws on an unknown name). */
export function columnIndices(design: DesignMatrix, names: readonly string[]): number[] {
  return names.map((name) => {
    const i = design.columnNames.indexOf(name);
    if (i < 0) throw new Error(`no coefficient named '${name}' (have: ${design.columnNames.join(", ")})`);
    return i;
  });
}

/** Coefficient names of a term (e.g. 'config' -> its level columns; 'config:model' -> the interaction block). */
export function termColumnNames(design: DesignMatrix, term: string): string[] {
  const found = design.terms.find((t) => t.name === term || sameVariables(t.variables, term.split(":")));
  if (!found) throw new Error(`no term '${term}' (have: ${design.terms.map((t) => t.name).join(", ")})`);
  return found.columns.map((c) => design.columnNames[c]);
}

function sameVariables(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((v) => b.includes(v));
}
