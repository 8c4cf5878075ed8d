/**
 * Where an executor gets its work: trials are claimed before they run and acknowledged when
 * their outcome is committed (or when they are abandoned). Today's source serves one process
 * by paging the store; a shared source (leases on PostgreSQL) can replace it without touching
 * the executor.
 */
import type { PlannedTrial } from "../../contracts/trial.js";
import type { TrialStore, TrialRow } from "../store/types.js";
import type { TrialEvent } from "./trial-event.js";

export interface TrialSource {
  /** Up to `max` trials to execute next; an empty list when there is no more work. */
  claim(max: number): Promise<TrialRow[]>;
  /** The claimed trial is done: committed as finished or errored, or abandoned (left unfinished). */
  acknowledge(trialId: string, status: TrialEvent["status"]): Promise<void>;
  /** Set by a source that claims under leases: completions are written only while it holds them. */
  readonly leaseOwner?: string;
  /** Its lease length (ms): the budget's reservations of this process expire with the same delay. */
  readonly leaseMs?: number;
  /**
   * Asked when nothing is claimable and nothing is in flight: true (after waiting) when other
   * workers' trials may still become claimable, so the executor claims again.
   */
  waitForWork?(signal?: AbortSignal): Promise<boolean>;
  /** Ends the source (stops lease renewal); called once the executor has settled every trial. */
  close?(): Promise<void>;
}

/**
 * A source that hands out a buffer of trials, refilled by `fill` (which sets `exhausted` when
 * there is no more work) whenever it runs empty.
 */
abstract class BufferedTrialSource implements TrialSource {
  protected buffer: TrialRow[] = [];
  protected exhausted = false;
  private readonly claimed = new Set<string>();

  protected abstract fill(): Promise<void>;

  async claim(max: number): Promise<TrialRow[]> {
    // A fill may yield nothing (a resumed run's batch all finished): fill again until work or the end.
    while (this.buffer.length === 0 && !this.exhausted) await this.fill();
    const out = this.buffer.splice(0, Math.max(0, max));
    for (const trial of out) this.claimed.add(trial.id);
    return out;
  }

  async acknowledge(trialId: string): Promise<void> {
    this.claimed.delete(trialId);
  }

  /** Trials claimed and not yet acknowledged. */
  get inFlight(): number {
    return this.claimed.size;
  }
}

const PAGE_SIZE = 500;

/**
 * A run's unfinished (pending and errored) trials in id order, read a page at a time. Each
 * trial is handed out once per pass: paging moves strictly forward, so a trial that errors
 * during this pass is not claimed again until the next run.
 */
export class StoreTrialSource extends BufferedTrialSource {
  private afterId: string | undefined;

  constructor(
    private readonly store: Pick<TrialStore, "listTrials">,
    private readonly runId: string,
    private readonly pageSize = PAGE_SIZE,
  ) {
    super();
  }

  protected async fill(): Promise<void> {
    const page = await this.store.listTrials(this.runId, {
      status: ["pending", "errored"],
      limit: this.pageSize,
      afterId: this.afterId,
    });
    if (page.length === 0) {
      this.exhausted = true;
      return;
    }
    this.afterId = page[page.length - 1].id;
    this.buffer = page;
  }
}

/**
 * How many planned trials one planning step stores before their execution (one transaction). The
 * batch's rows are held until they run, and V8 sizes the heap after what is held: at 5,000 the
 * ScaffoldSafety run's peak RSS was about 13 MB higher.
 */
export const PLAN_BATCH = 1_000;

/**
 * A run whose trials are not all stored yet (SQLite, one process): the plan is stored a batch
 * at a time as the executor asks for work, so the first trial starts after one batch whatever
 * the design's size, and no more than a batch of trials is held. Each step inserts the next
 * batch (trials already stored are kept as they are, by id) and hands out the batch's
 * unfinished trials, so a run killed or stopped anywhere resumes planning from the start of
 * the plan without losing, duplicating or re-running a finished trial; errored trials are
 * retried once per pass, as on the paged source.
 */
export class PlanningTrialSource extends BufferedTrialSource {
  constructor(
    private readonly store: Pick<TrialStore, "addPlannedTrials" | "unfinishedTrialsAmong">,
    private readonly runId: string,
    private readonly plan: Iterator<PlannedTrial>,
    private readonly batchSize = PLAN_BATCH,
  ) {
    super();
  }

  protected async fill(): Promise<void> {
    const batch: PlannedTrial[] = [];
    while (batch.length < this.batchSize) {
      const next = this.plan.next();
      if (next.done) break;
      batch.push(next.value);
    }
    if (batch.length === 0) {
      this.exhausted = true;
      return;
    }
    await this.store.addPlannedTrials(batch);
    this.buffer = await this.store.unfinishedTrialsAmong(
      this.runId,
      batch.map((trial) => trial.id),
    );
  }
}
