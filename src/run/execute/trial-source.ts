/**
 * Where an executor gets its work: trials are claimed before they run and acknowledged when
 * their outcome is committed (or when they are abandoned). Today's source serves one process
 * by paging the store; a shared source (leases on PostgreSQL) can replace it without touching
 * the executor.
 */
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

const PAGE_SIZE = 500;

/**
 * A run's unfinished (pending and errored) trials in id order, read a page at a time. Each
 * trial is handed out once per pass: paging moves strictly forward, so a trial that errors
 * during this pass is not claimed again until the next run.
 */
export class StoreTrialSource implements TrialSource {
  private buffer: TrialRow[] = [];
  private afterId: string | undefined;
  private exhausted = false;
  private readonly claimed = new Set<string>();

  constructor(
    private readonly store: Pick<TrialStore, "listTrials">,
    private readonly runId: string,
    private readonly pageSize = PAGE_SIZE,
  ) {}

  async claim(max: number): Promise<TrialRow[]> {
    if (this.buffer.length === 0 && !this.exhausted) await this.readPage();
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

  private async readPage(): Promise<void> {
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
