/**
 * The JudgementStore half of the kysely store: judge verdicts and blinding state (migration
 * 0005), on the same connection and dialects as the trials. JSON is stored as text.
 */
import type { Kysely, Selectable } from "kysely";
import type { JudgeVerdictsTable, StoreDatabase } from "./schema.js";
import type { BlindingRound, JudgementStore, VerdictRecord } from "./types.js";

type LogEvent = { event: string; at: string } & Record<string, unknown>;

export class KyselyJudgementStore implements JudgementStore {
  constructor(private readonly db: Kysely<StoreDatabase>) {}

  async sealBlindingRound(
    runId: string,
    round: Pick<BlindingRound, "mapping" | "sealedSha256" | "sealedAt" | "entries">,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // A new round replaces the earlier one's verdicts and calls; the blinding log keeps growing.
      await trx.deleteFrom("judge_verdicts").where("run_id", "=", runId).execute();
      await trx.deleteFrom("judge_calls").where("run_id", "=", runId).execute();
      await trx.deleteFrom("blinding_rounds").where("run_id", "=", runId).execute();
      await trx
        .insertInto("blinding_rounds")
        .values({
          run_id: runId,
          mapping: round.mapping,
          sealed_sha256: round.sealedSha256,
          sealed_at: round.sealedAt,
          entries: round.entries,
          judge: null,
          verdicts_sha256: null,
          responses: null,
          guessing_check: null,
          agreement: null,
          unblinded_at: null,
        })
        .execute();
    });
  }

  async recordJudgeCall(runId: string, seq: number, record: Record<string, unknown>): Promise<void> {
    await this.db
      .insertInto("judge_calls")
      .values({ run_id: runId, seq, record: JSON.stringify(record) })
      .execute();
  }

  async saveVerdicts(runId: string, verdicts: readonly VerdictRecord[]): Promise<void> {
    if (verdicts.length === 0) return;
    const rows = verdicts.map((v, ord) => verdictRow(runId, ord, v));
    await this.db.transaction().execute(async (trx) => {
      // 14 columns a row: 1,000 rows stay under both databases' bound-parameter limits.
      for (let i = 0; i < rows.length; i += 1_000) {
        await trx
          .insertInto("judge_verdicts")
          .values(rows.slice(i, i + 1_000))
          .execute();
      }
    });
  }

  async finishBlindingRound(runId: string, judged: NonNullable<BlindingRound["judged"]>): Promise<void> {
    await this.db
      .updateTable("blinding_rounds")
      .set({
        judge: judged.judge,
        verdicts_sha256: judged.verdictsSha256,
        responses: judged.responses,
        guessing_check: JSON.stringify(judged.guessingCheck),
        agreement: JSON.stringify(judged.agreement),
      })
      .where("run_id", "=", runId)
      .execute();
  }

  async unblindRound(runId: string, at: string, trialOfUuid: ReadonlyMap<string, string>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Each verdict is updated by its key (run, ord): uuid has no index, and a statement per
      // uuid scanned every verdict of the run (minutes of CPU for a paper-scale round).
      const verdicts = await trx
        .selectFrom("judge_verdicts")
        .select(["ord", "uuid"])
        .where("run_id", "=", runId)
        .orderBy("ord")
        .execute();
      for (const { ord, uuid } of verdicts) {
        const trialId = trialOfUuid.get(uuid);
        if (trialId === undefined) continue;
        await trx
          .updateTable("judge_verdicts")
          .set({ trial_id: trialId })
          .where("run_id", "=", runId)
          .where("ord", "=", ord)
          .execute();
      }
      await trx.updateTable("blinding_rounds").set({ unblinded_at: at }).where("run_id", "=", runId).execute();
    });
  }

  async appendBlindingLog(runId: string, event: LogEvent): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const last = await trx
        .selectFrom("blinding_log")
        .select((eb) => eb.fn.max("seq").as("seq"))
        .where("run_id", "=", runId)
        .executeTakeFirst();
      const seq = Number(last?.seq ?? 0) + 1;
      await trx
        .insertInto("blinding_log")
        .values({ run_id: runId, seq, at: event.at, event: event.event, record: JSON.stringify(event) })
        .execute();
    });
  }

  async getBlindingRound(runId: string): Promise<BlindingRound | undefined> {
    const row = await this.db.selectFrom("blinding_rounds").selectAll().where("run_id", "=", runId).executeTakeFirst();
    if (!row) return undefined;
    const judged =
      row.verdicts_sha256 === null
        ? null
        : {
            judge: row.judge ?? "",
            verdictsSha256: row.verdicts_sha256,
            responses: Number(row.responses ?? 0),
            guessingCheck: row.guessing_check === null ? null : JSON.parse(row.guessing_check),
            agreement: row.agreement === null ? null : JSON.parse(row.agreement),
          };
    return {
      mapping: row.mapping,
      sealedSha256: row.sealed_sha256,
      sealedAt: row.sealed_at,
      entries: Number(row.entries),
      judged,
      unblindedAt: row.unblinded_at,
    };
  }

  async listVerdicts(runId: string): Promise<(VerdictRecord & { trialId: string | null })[]> {
    const rows = await this.db
      .selectFrom("judge_verdicts")
      .selectAll()
      .where("run_id", "=", runId)
      .orderBy("ord")
      .execute();
    return rows.map(toVerdict);
  }

  async listBlindingLog(runId: string): Promise<LogEvent[]> {
    const rows = await this.db
      .selectFrom("blinding_log")
      .select("record")
      .where("run_id", "=", runId)
      .orderBy("seq")
      .execute();
    return rows.map((r) => JSON.parse(r.record) as LogEvent);
  }

  async listJudgeCalls(runId: string): Promise<Record<string, unknown>[]> {
    const rows = await this.db
      .selectFrom("judge_calls")
      .select("record")
      .where("run_id", "=", runId)
      .orderBy("seq")
      .execute();
    return rows.map((r) => JSON.parse(r.record) as Record<string, unknown>);
  }
}

function verdictRow(runId: string, ord: number, v: VerdictRecord): JudgeVerdictsTable {
  return {
    run_id: runId,
    ord,
    uuid: v.uuid,
    role: v.role,
    judge: v.judge,
    rubric: v.rubric,
    benchmark: v.benchmark,
    ok: v.ok ? 1 : 0,
    label: v.label,
    confidence: v.confidence,
    justification: v.justification,
    outcome: v.outcome,
    error: v.error,
    trial_id: null,
  };
}

/** Fields in VerdictRecord's declared order, so the verdicts serialise (and hash) as when judged. */
function toVerdict(r: Selectable<JudgeVerdictsTable>): VerdictRecord & { trialId: string | null } {
  return {
    uuid: r.uuid,
    benchmark: r.benchmark,
    rubric: r.rubric,
    judge: r.judge,
    role: r.role as VerdictRecord["role"],
    ok: r.ok === 1,
    label: r.label,
    confidence: r.confidence,
    justification: r.justification,
    outcome: r.outcome,
    error: r.error,
    trialId: r.trial_id,
  };
}
