/**
 * A study's analysis rows held as columns: typed arrays for what varies per trial (its id, item,
 * attempt, outcome and flags) and one shared record per group of trials that agree on the rest
 * (model, benchmark, condition, scorer, audit shares, revision). The analyses read rows: each row
 * is a two-field view of its place in the columns, so a paper-scale table costs about 60 bytes a
 * row, most of it outside V8's heap, where half a million row objects with their own trial-id
 * strings cost about 200 bytes each on it (and V8 lets its heap grow to a few times what it holds).
 */
import { inspect } from "node:util";
import type { AgentFacts } from "./agent-facts.js";
import { type AnalysisRow, analysisRow, populationScore } from "./row.js";
import { Dictionary } from "../../core/dictionary.js";
import { isStoreTrialId, readTrialId, TRIAL_ID_BYTES, writeTrialId } from "./trial-id-bytes.js";

/** What the trials of a group share. */
interface RowGroup {
  model: string;
  benchmark: string;
  facets: Record<string, string>;
  simulated: boolean;
  scorer: string | undefined;
  audit: Record<string, number> | undefined;
  modelRevision: string | undefined;
}

/** A benchmark item as a case: its id and its case key (table.ts clusterKey). */
interface RowCase {
  item: string;
  cluster: string;
}

const PARSE_FAILED = 1;
const ERRORED = 2;
const NO_OUTCOME = 4;

export class TrialColumns {
  length = 0;
  private ids = new Uint8Array(0);
  /** Ids not in the store's form (imports, tests), by row. */
  private readonly otherIds = new Map<number, string | null>();
  private group = new Uint32Array(0);
  private kase = new Uint32Array(0);
  private answer = new Uint32Array(0);
  private attempt = new Float64Array(0);
  private outcome = new Float64Array(0);
  private flags = new Uint8Array(0);
  private readonly agents = new Map<number, AgentFacts>();
  private readonly groups: RowGroup[] = [];
  private readonly groupCodes = new Map<string, number>();
  private readonly cases = new Dictionary<string>();
  private readonly caseRecords: RowCase[] = [];
  /** Answer code 0 is "none recorded". */
  private readonly answers = new Dictionary<string | undefined>();
  private readonly shared = new Dictionary<unknown>();

  constructor() {
    this.answers.code(undefined);
  }

  /** Appends a row and returns its view. */
  push(row: AnalysisRow): AnalysisRow {
    const i = this.length;
    if (i === this.flags.length) this.grow(Math.max(1_024, i * 2));
    this.setId(i, row.trialId);
    this.group[i] = this.groupCode(row);
    this.kase[i] = this.caseCode(row);
    this.answer[i] = this.answers.code(row.answer);
    this.attempt[i] = row.attempt;
    this.outcome[i] = row.outcome ?? 0;
    this.flags[i] =
      (row.parseFailed ? PARSE_FAILED : 0) | (row.errored ? ERRORED : 0) | (row.outcome === null ? NO_OUTCOME : 0);
    if (row.agent !== undefined) this.agents.set(i, row.agent);
    this.length = i + 1;
    return new ColumnRow(this, i);
  }

  /** Where row i's id is kept as a store id's bytes (its place in `bytes`), or null for an id of another form. */
  storeIdAt(i: number): { bytes: Uint8Array; place: number } | null {
    return this.otherIds.has(i) ? null : { bytes: this.ids, place: i };
  }

  trialIdAt(i: number): string | null {
    const other = this.otherIds.get(i);
    if (other !== undefined) return other;
    return readTrialId(this.ids, i);
  }
  groupAt(i: number): RowGroup {
    return this.groups[this.group[i]];
  }
  caseAt(i: number): RowCase {
    return this.caseRecords[this.kase[i]];
  }
  attemptAt(i: number): number {
    return this.attempt[i];
  }
  outcomeAt(i: number): number | null {
    return this.flags[i] & NO_OUTCOME ? null : this.outcome[i];
  }
  flag(i: number, bit: number): boolean {
    return (this.flags[i] & bit) !== 0;
  }
  answerAt(i: number): string | undefined {
    return this.answers.values[this.answer[i]];
  }
  agentAt(i: number): AgentFacts | undefined {
    return this.agents.get(i);
  }

  private setId(i: number, id: string | null): void {
    if (id !== null && isStoreTrialId(id)) writeTrialId(this.ids, i, id);
    else this.otherIds.set(i, id);
  }

  /** Records shared between rows (a condition's facets, an audit) are told apart by identity, as rows share them. */
  private groupCode(row: AnalysisRow): number {
    const key = [
      this.shared.code(row.model),
      this.shared.code(row.benchmark),
      this.shared.code(row.facets),
      row.simulated ? 1 : 0,
      this.shared.code(row.scorer),
      this.shared.code(row.audit),
      this.shared.code(row.modelRevision),
    ].join(",");
    let code = this.groupCodes.get(key);
    if (code === undefined) {
      code = this.groups.length;
      this.groups.push({
        model: row.model,
        benchmark: row.benchmark,
        facets: row.facets,
        simulated: row.simulated,
        scorer: row.scorer,
        audit: row.audit,
        modelRevision: row.modelRevision,
      });
      this.groupCodes.set(key, code);
    }
    return code;
  }

  private caseCode(row: AnalysisRow): number {
    const code = this.cases.code(row.cluster);
    if (code === this.caseRecords.length) this.caseRecords.push({ item: row.item, cluster: row.cluster });
    return code;
  }

  private grow(capacity: number): void {
    const ids = new Uint8Array(capacity * TRIAL_ID_BYTES);
    ids.set(this.ids);
    this.ids = ids;
    this.group = grown(this.group, new Uint32Array(capacity));
    this.kase = grown(this.kase, new Uint32Array(capacity));
    this.answer = grown(this.answer, new Uint32Array(capacity));
    this.attempt = grown(this.attempt, new Float64Array(capacity));
    this.outcome = grown(this.outcome, new Float64Array(capacity));
    this.flags = grown(this.flags, new Uint8Array(capacity));
  }
}

function grown<T extends Uint8Array | Uint32Array | Float64Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}

/** A row's trial id as a store id's bytes when the row is a view of columns that keep it so, else null. */
export function storeIdOf(row: AnalysisRow): { bytes: Uint8Array; place: number } | null {
  return row instanceof ColumnRow ? row.storeId() : null;
}

/** A row of a TrialColumns: read-only, as every analysis treats rows. */
class ColumnRow implements AnalysisRow {
  constructor(
    private readonly columns: TrialColumns,
    private readonly index: number,
  ) {}
  get trialId(): string | null {
    return this.columns.trialIdAt(this.index);
  }
  storeId(): { bytes: Uint8Array; place: number } | null {
    return this.columns.storeIdAt(this.index);
  }
  get model(): string {
    return this.columns.groupAt(this.index).model;
  }
  get benchmark(): string {
    return this.columns.groupAt(this.index).benchmark;
  }
  get item(): string {
    return this.columns.caseAt(this.index).item;
  }
  get cluster(): string {
    return this.columns.caseAt(this.index).cluster;
  }
  get attempt(): number {
    return this.columns.attemptAt(this.index);
  }
  get facets(): Record<string, string> {
    return this.columns.groupAt(this.index).facets;
  }
  get outcome(): number | null {
    return this.columns.outcomeAt(this.index);
  }
  get parseFailed(): boolean {
    return this.columns.flag(this.index, PARSE_FAILED);
  }
  get errored(): boolean {
    return this.columns.flag(this.index, ERRORED);
  }
  get simulated(): boolean {
    return this.columns.groupAt(this.index).simulated;
  }
  get scorer(): string | undefined {
    return this.columns.groupAt(this.index).scorer;
  }
  get audit(): Record<string, number> | undefined {
    return this.columns.groupAt(this.index).audit;
  }
  get answer(): string | undefined {
    return this.columns.answerAt(this.index);
  }
  get agent(): AgentFacts | undefined {
    return this.columns.agentAt(this.index);
  }
  get modelRevision(): string | undefined {
    return this.columns.groupAt(this.index).modelRevision;
  }
  /**
   * A view is also its own scored row (data.ts ScoredRow) where its population scores it as the
   * intention-to-treat population does: the paper-scale table's half a million scored rows then
   * cost nothing beyond the views (`selfScored`).
   */
  get row(): AnalysisRow {
    return this;
  }
  /** Its intention-to-treat score; NaN where that population leaves it out. */
  get y(): number {
    return populationScore(this, "itt") ?? Number.NaN;
  }
  /** The row as a plain record, with the keys a plain row has (JSON, hashing, copying). */
  toJSON(): AnalysisRow {
    return plainRow(this);
  }
  /** Printed (console.log, an assertion's message) as its values, not as its place in the columns. */
  [inspect.custom](): AnalysisRow {
    return plainRow(this);
  }
}

/**
 * A row as a plain record: a view's values under the keys table.ts gives a row (the optional ones
 * only when set); a plain row as it is.
 */
export function plainRow(row: AnalysisRow): AnalysisRow {
  if (!(row instanceof ColumnRow)) return row;
  const { trialId, model, benchmark, item, attempt, facets, outcome, parseFailed, errored, simulated } = row;
  const { scorer, audit, answer, agent, modelRevision } = row;
  return analysisRow({
    trialId,
    model,
    benchmark,
    item,
    attempt,
    facets,
    outcome,
    parseFailed,
    errored,
    simulated,
    scorer,
    audit,
    answer,
    agent,
    modelRevision,
  });
}

/** A view that is its own scored row at score y (its intention-to-treat score), else null. */
export function selfScored(row: AnalysisRow, y: number): { row: AnalysisRow; y: number } | null {
  return row instanceof ColumnRow && row.y === y ? row : null;
}
