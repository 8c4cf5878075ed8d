/**
 * The trial source of a worker sharing a run with others (scale-out, PostgreSQL): each trial is
 * claimed under a lease before it runs, the leases of trials in flight are renewed while they
 * run, and the worker's heartbeat is recorded for `status`. A worker that dies stops renewing:
 * once its leases expire its trials are claimed again by the others. Completion is conditional
 * on still holding the lease (TrialCompletion.leaseOwner), so a worker that lost a lease (it
 * stalled past expiry and another worker took the trial) never completes that trial.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { PARALLAX_VERSION } from "../../core/version.js";
import type { LeaseStore } from "../store/types.js";
import type { TrialRow } from "../store/types.js";
import type { TrialSource } from "./trial-source.js";
import type { TrialEvent } from "./trial-event.js";

/** Default lease: long enough for a slow trial between renewals, short enough to recover a dead worker soon. */
export const DEFAULT_LEASE_MS = 60_000;

export interface LeaseOptions {
  leaseMs?: number;
  /** Errored trials last updated before this (ISO time) are retried; default: this worker's start. */
  erroredBefore?: string;
  /** A worker id; default host:pid:random. */
  workerId?: string;
  /**
   * Trials claimed ahead of a free slot (default 4): a worker then claims once per few trials
   * instead of once per freed slot. They hold leases while they wait, and are given back on close.
   */
  prefetch?: number;
}

export const DEFAULT_PREFETCH = 4;
/** How often a waiting worker looks whether the other workers' trials settled. */
const WAIT_POLL_MS = 2_000;
/** Claims after an expiry wait this much past it (the database clock decides). */
const EXPIRY_MARGIN_MS = 25;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export class LeasedTrialSource implements TrialSource {
  readonly leaseOwner: string;
  readonly leaseMs: number;
  private readonly erroredBefore: string;
  private readonly prefetch: number;
  /** Claimed (leased) and not yet handed to the executor. */
  private ready: TrialRow[] = [];
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewal: Promise<void> = Promise.resolve();
  /** Leases found lost at renewal (another worker took the trial after expiry). */
  lostLeases = 0;

  private constructor(
    private readonly store: LeaseStore,
    private readonly runId: string,
    options: LeaseOptions,
  ) {
    this.leaseOwner = options.workerId ?? newWorkerId();
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.erroredBefore = options.erroredBefore ?? new Date().toISOString();
    this.prefetch = options.prefetch ?? DEFAULT_PREFETCH;
  }

  /** Registers the worker and starts renewing its leases (every third of the lease). */
  static async open(store: LeaseStore, runId: string, options: LeaseOptions = {}): Promise<LeasedTrialSource> {
    const source = new LeasedTrialSource(store, runId, options);
    await store.registerWorker({
      id: source.leaseOwner,
      runId,
      host: hostname(),
      pid: process.pid,
      parallaxVersion: PARALLAX_VERSION,
      startedAt: new Date().toISOString(),
      leaseMs: source.leaseMs,
    });
    source.timer = setInterval(() => source.renewSoon(), Math.max(50, Math.floor(source.leaseMs / 3)));
    source.timer.unref();
    return source;
  }

  async claim(max: number): Promise<TrialRow[]> {
    if (max <= 0) return [];
    if (this.ready.length < max) {
      const trials = await this.store.claimTrials(
        this.runId,
        this.leaseOwner,
        max - this.ready.length + this.prefetch,
        {
          leaseMs: this.leaseMs,
          erroredBefore: this.erroredBefore,
        },
      );
      for (const t of trials) this.inFlight.add(t.id);
      this.ready.push(...trials);
    }
    return this.ready.splice(0, max);
  }

  /**
   * Called when nothing is claimable and nothing of this worker's is in flight: while other
   * workers hold leases on pending trials, waits (until the earliest of them expires, or a poll
   * finds them settled) and returns true, so the caller claims again; false once no pending trial
   * is leased to anyone else. A dead worker's trials are thus taken over, not left pending.
   */
  async waitForWork(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return false;
    const others = await this.store.othersLeases(this.runId, this.leaseOwner);
    if (others.held === 0) return false;
    const untilExpiry = (others.nextExpiry ?? others.now) - others.now + EXPIRY_MARGIN_MS;
    await sleep(Math.max(EXPIRY_MARGIN_MS, Math.min(untilExpiry, WAIT_POLL_MS)), signal);
    return !signal?.aborted;
  }

  async acknowledge(trialId: string, status: TrialEvent["status"]): Promise<void> {
    this.inFlight.delete(trialId);
    // A completed trial's lease was cleared with its completion; an abandoned one is given back.
    if (status === "abandoned") await this.store.releaseLeases(this.leaseOwner, [trialId]);
  }

  /** Trials claimed and not yet acknowledged. */
  get claimed(): number {
    return this.inFlight.size;
  }

  /** Stops renewing, gives back the trials claimed ahead and never started, and records the worker as stopped. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.renewal;
    const unstarted = this.ready.splice(0).map((t) => t.id);
    for (const id of unstarted) this.inFlight.delete(id);
    await this.store.releaseLeases(this.leaseOwner, unstarted);
    await this.store.stopWorker(this.leaseOwner);
  }

  private renewSoon(): void {
    // One renewal at a time: a slow database must not pile them up.
    this.renewal = this.renewal.then(() => this.renew()).catch(() => undefined);
  }

  private async renew(): Promise<void> {
    const ids = [...this.inFlight];
    const held = new Set(await this.store.renewLeases(this.leaseOwner, ids, this.leaseMs));
    // A trial acknowledged meanwhile is not lost; one still in flight and not renewed is.
    this.lostLeases += ids.filter((id) => this.inFlight.has(id) && !held.has(id)).length;
    await this.store.heartbeatWorker(this.leaseOwner, this.inFlight.size - this.ready.length);
  }
}
