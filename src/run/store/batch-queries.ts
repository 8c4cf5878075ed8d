/**
 * The BatchStore half of the kysely store (migration 0011): provider batches submitted in batch
 * mode and each request's outcome. A batch is recorded (with its requests' custom ids) before it
 * is polled, and its outcomes are stored in one transaction with the batch marked ended, so a
 * killed run resumes by polling what it submitted and never reads a batch's results twice.
 * Since migration 0013 a batch is first recorded as a submission (its client token and its
 * requests) before the provider is called, so a kill before the batch id is stored leaves a
 * token to look the batch up by.
 */
import type { Kysely, Selectable } from "kysely";
import type { RawBatchOutcome } from "../../contracts/provider.js";
import type { BatchRequestsTable, BatchSubmissionsTable, ProviderBatchesTable, StoreDatabase } from "./schema.js";
import type {
  BatchRequestOutcome,
  BatchRequestRecord,
  BatchStore,
  BatchSubmissionRecord,
  ProviderBatchRecord,
} from "./types.js";

/** Custom ids per IN list: well under both dialects' bound-parameter limits. */
const ID_CHUNK = 500;

export class KyselyBatchStore implements BatchStore {
  constructor(private readonly db: Kysely<StoreDatabase>) {}

  async recordBatch(
    runId: string,
    batch: Omit<ProviderBatchRecord, "status" | "providerStatus" | "endedAt" | "requests">,
    customIds: readonly string[],
  ): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("provider_batches")
        .values({
          run_id: runId,
          batch_id: batch.batchId,
          provider: batch.provider,
          model_id: batch.modelId,
          status: "submitted",
          provider_status: null,
          requests: customIds.length,
          submitted_at: batch.submittedAt,
          ended_at: null,
        })
        .execute();
      for (const customId of customIds) {
        await trx
          .insertInto("batch_requests")
          .values({
            run_id: runId,
            custom_id: customId,
            batch_id: batch.batchId,
            state: "submitted",
            submissions: 1,
            result: null,
            error: null,
            updated_at: now,
          })
          .onConflict((oc) =>
            oc.columns(["run_id", "custom_id"]).doUpdateSet((eb) => ({
              batch_id: batch.batchId,
              state: "submitted",
              submissions: eb(eb.ref("batch_requests.submissions"), "+", 1),
              // The earlier batch's outcome is spent: the request waits for its new batch.
              result: null,
              error: null,
              updated_at: now,
            })),
          )
          .execute();
      }
    });
  }

  async batchRequests(runId: string, customIds: readonly string[]): Promise<Map<string, BatchRequestRecord>> {
    const out = new Map<string, BatchRequestRecord>();
    for (let i = 0; i < customIds.length; i += ID_CHUNK) {
      const rows = await this.db
        .selectFrom("batch_requests")
        .selectAll()
        .where("run_id", "=", runId)
        .where("custom_id", "in", customIds.slice(i, i + ID_CHUNK))
        .execute();
      for (const row of rows) out.set(row.custom_id, toRequestRecord(row));
    }
    return out;
  }

  async settleBatch(
    runId: string,
    batchId: string,
    providerStatus: string,
    outcomes: readonly BatchRequestOutcome[],
  ): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      for (const outcome of outcomes) {
        await trx
          .updateTable("batch_requests")
          .set({
            state: outcome.state,
            result: outcome.state === "done" ? JSON.stringify(outcome.raw) : null,
            error: outcome.state === "failed" ? JSON.stringify(outcome.raw) : null,
            updated_at: now,
          })
          .where("run_id", "=", runId)
          .where("custom_id", "=", outcome.customId)
          // A request resubmitted since belongs to its newer batch.
          .where("batch_id", "=", batchId)
          .execute();
      }
      // Requests the ended batch did not report were not run: unfinished, to be resubmitted.
      await trx
        .updateTable("batch_requests")
        .set({ state: "unfinished", updated_at: now })
        .where("run_id", "=", runId)
        .where("batch_id", "=", batchId)
        .where("state", "=", "submitted")
        .execute();
      await trx
        .updateTable("provider_batches")
        .set({ status: "ended", provider_status: providerStatus, ended_at: now })
        .where("run_id", "=", runId)
        .where("batch_id", "=", batchId)
        .execute();
    });
  }

  async recordSubmission(
    runId: string,
    submission: Omit<BatchSubmissionRecord, "state" | "batchId" | "requests">,
    customIds: readonly string[],
  ): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("batch_submissions")
        .values({
          run_id: runId,
          token: submission.token,
          provider: submission.provider,
          model_id: submission.modelId,
          model: submission.model,
          state: "submitting",
          batch_id: null,
          requests: customIds.length,
          created_at: submission.createdAt,
        })
        .execute();
      for (let i = 0; i < customIds.length; i += ID_CHUNK) {
        const rows = customIds.slice(i, i + ID_CHUNK).map((customId) => ({
          run_id: runId,
          custom_id: customId,
          // No batch yet: "" matches no batch, so a late settle of an earlier batch leaves the row alone.
          batch_id: "",
          state: "submitting",
          submissions: 1,
          result: null,
          error: null,
          updated_at: now,
          token: submission.token,
        }));
        await trx
          .insertInto("batch_requests")
          .values(rows)
          .onConflict((oc) =>
            oc.columns(["run_id", "custom_id"]).doUpdateSet((eb) => ({
              batch_id: "",
              state: "submitting",
              submissions: eb(eb.ref("batch_requests.submissions"), "+", 1),
              // The earlier batch's outcome is spent: the request waits for its new submission.
              result: null,
              error: null,
              updated_at: now,
              token: submission.token,
            })),
          )
          .execute();
      }
    });
  }

  async recordSubmitted(
    runId: string,
    token: string,
    batch: Omit<ProviderBatchRecord, "status" | "providerStatus" | "endedAt" | "requests">,
  ): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      const submission = await trx
        .selectFrom("batch_submissions")
        .select(["requests"])
        .where("run_id", "=", runId)
        .where("token", "=", token)
        .executeTakeFirstOrThrow();
      await trx
        .insertInto("provider_batches")
        .values({
          run_id: runId,
          batch_id: batch.batchId,
          provider: batch.provider,
          model_id: batch.modelId,
          status: "submitted",
          provider_status: null,
          requests: Number(submission.requests),
          submitted_at: batch.submittedAt,
          ended_at: null,
        })
        .onConflict((oc) => oc.columns(["run_id", "batch_id"]).doNothing())
        .execute();
      await trx
        .updateTable("batch_requests")
        .set({ batch_id: batch.batchId, state: "submitted", updated_at: now })
        .where("run_id", "=", runId)
        .where("token", "=", token)
        .where("state", "=", "submitting")
        .execute();
      // Found by its token even after a lookup marked it absent: the provider has it, so it counts.
      await trx
        .updateTable("batch_submissions")
        .set({ state: "submitted", batch_id: batch.batchId })
        .where("run_id", "=", runId)
        .where("token", "=", token)
        .execute();
    });
  }

  async abandonSubmission(runId: string, token: string): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      const marked = await trx
        .updateTable("batch_submissions")
        .set({ state: "absent" })
        .where("run_id", "=", runId)
        .where("token", "=", token)
        .where("state", "=", "submitting")
        .executeTakeFirst();
      if (Number(marked.numUpdatedRows) === 0) return; // resolved meanwhile (by another worker)
      await trx
        .updateTable("batch_requests")
        .set((eb) => ({
          state: "unfinished",
          submissions: eb(eb.ref("batch_requests.submissions"), "-", 1),
          updated_at: now,
        }))
        .where("run_id", "=", runId)
        .where("token", "=", token)
        .where("state", "=", "submitting")
        .execute();
    });
  }

  async batchSubmission(runId: string, token: string): Promise<BatchSubmissionRecord | undefined> {
    const row = await this.db
      .selectFrom("batch_submissions")
      .selectAll()
      .where("run_id", "=", runId)
      .where("token", "=", token)
      .executeTakeFirst();
    return row && toSubmissionRecord(row);
  }

  async listSubmissions(runId: string): Promise<BatchSubmissionRecord[]> {
    const rows = await this.db
      .selectFrom("batch_submissions")
      .selectAll()
      .where("run_id", "=", runId)
      .orderBy("created_at")
      .orderBy("token")
      .execute();
    return rows.map(toSubmissionRecord);
  }

  async recordedBatchIds(batchIds: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < batchIds.length; i += ID_CHUNK) {
      const rows = await this.db
        .selectFrom("provider_batches")
        .select("batch_id")
        .where("batch_id", "in", batchIds.slice(i, i + ID_CHUNK))
        .execute();
      for (const row of rows) out.add(row.batch_id);
    }
    return out;
  }

  async listBatches(runId: string): Promise<ProviderBatchRecord[]> {
    const rows = await this.db
      .selectFrom("provider_batches")
      .selectAll()
      .where("run_id", "=", runId)
      .orderBy("submitted_at")
      .orderBy("batch_id")
      .execute();
    return rows.map(toBatchRecord);
  }
}

function toRequestRecord(row: Selectable<BatchRequestsTable>): BatchRequestRecord {
  return {
    customId: row.custom_id,
    batchId: row.batch_id,
    state: row.state as BatchRequestRecord["state"],
    submissions: Number(row.submissions),
    raw: JSON.parse(row.result ?? row.error ?? "null") as RawBatchOutcome | null,
    ...(row.token ? { token: row.token } : {}),
  };
}

function toSubmissionRecord(row: Selectable<BatchSubmissionsTable>): BatchSubmissionRecord {
  return {
    token: row.token,
    provider: row.provider,
    modelId: row.model_id,
    model: row.model,
    state: row.state as BatchSubmissionRecord["state"],
    batchId: row.batch_id,
    requests: Number(row.requests),
    createdAt: row.created_at,
  };
}

function toBatchRecord(row: Selectable<ProviderBatchesTable>): ProviderBatchRecord {
  return {
    batchId: row.batch_id,
    provider: row.provider,
    modelId: row.model_id,
    status: row.status as ProviderBatchRecord["status"],
    providerStatus: row.provider_status,
    requests: Number(row.requests),
    submittedAt: row.submitted_at,
    endedAt: row.ended_at,
  };
}
