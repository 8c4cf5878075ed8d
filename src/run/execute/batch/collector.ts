/**
 * Batch mode for one model: the calls its trials make are gathered into provider batches
 * instead of being sent one by one. A call waits while its batch fills (submitted when full, or
 * once no call joined it for `flushAfterMs`); the batch is recorded in the store (provider,
 * batch id, the custom ids of its requests) before it is polled, with backoff, until it ends;
 * its outcomes are then stored in one transaction and handed to the waiting calls. A
 * multi-call scaffold thus advances one round of sub-calls per batch.
 *
 * Crash safety: a resumed run renders the same calls, so their custom ids (custom-id.ts) find
 * the stored state: a result is read from the store (never fetched twice), a submitted batch is
 * polled (never resubmitted). Each batch is first recorded as a submission with a client token
 * (before the provider is called) and tagged with that token at the provider; a call whose
 * submission has no batch id yet (a kill, or a lost reply, after the create went out) looks the
 * batch up by its token: found, it is recorded and polled; absent, the submission never reached
 * the provider and the call goes out again in a new one. A failed request is classified as the synchronous error and, when
 * retryable, resubmitted in a later batch up to max_retries; requests an expired or cancelled
 * batch did not run are resubmitted (at most max(1, max_retries) times).
 */
import { randomBytes } from "node:crypto";
import type {
  BatchEntry,
  BatchFound,
  GenerateRequest,
  GenerateResult,
  ProviderBatchApi,
  RawBatchOutcome,
} from "../../../contracts/provider.js";
import { ProviderError } from "../../../core/errors.js";
import { realSleep, type Sleep } from "../../../models/resilience.js";
import type { BatchRequestOutcome, BatchRequestRecord, BatchStore } from "../../store/types.js";
import { batchCustomId } from "./custom-id.js";
import type { BatchSettings } from "./settings.js";

interface Waiter {
  customId: string;
  request: GenerateRequest;
  /** Submissions so far (counted by the store when a submission is recorded). */
  submissions: number;
  resolve(result: GenerateResult): void;
  reject(error: unknown): void;
}

/** What a lookup by token needs of a submission: its model, its size and when it was recorded (ms). */
type Submission = { model: string; requests: number; since: number };

export interface BatchCollectorOptions {
  api: ProviderBatchApi;
  store: BatchStore;
  runId: string;
  provider: string;
  modelId: string;
  settings: BatchSettings;
  /** Aborts polling and every waiting call (their trials stay unfinished; a resume polls on). */
  signal?: AbortSignal;
  sleep?: Sleep;
}

export class BatchCollector {
  private readonly pending = new Map<string, Waiter>();
  /** Waiters by the batch they wait for. */
  private readonly waiting = new Map<string, Map<string, Waiter>>();
  private readonly polls = new Map<string, Promise<void>>();
  /** Batches this process settled: a late caller reads its request from the store. */
  private readonly settled = new Set<string>();
  private readonly bySignal = new Map<AbortSignal, { waiters: Set<Waiter>; onAbort: () => void }>();
  /** Lookups of submissions whose batch id the store lacks, once per token and process. */
  private readonly resolutions = new Map<string, Promise<string | null>>();
  /** This process's submissions whose create call is under way, by token. */
  private readonly creating = new Map<string, Promise<string>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private submitting: Promise<void> = Promise.resolve();
  private readonly sleep: Sleep;

  constructor(private readonly o: BatchCollectorOptions) {
    this.sleep = o.sleep ?? realSleep;
    o.signal?.addEventListener("abort", () => this.abortAll(), { once: true });
  }

  /** The provider's `generate` in batch mode: resolves when the call's batch has ended. */
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    this.throwIfAborted();
    const customId = batchCustomId(request);
    const known = (await this.o.store.batchRequests(this.o.runId, [customId])).get(customId);
    const { signal } = request;
    return new Promise<GenerateResult>((resolve, reject) => {
      const waiter: Waiter = {
        customId,
        request,
        submissions: known?.submissions ?? 0,
        resolve: (result) => {
          this.unwatch(waiter, signal);
          resolve(result);
        },
        reject: (error) => {
          this.unwatch(waiter, signal);
          reject(error);
        },
      };
      this.watch(waiter, signal);
      if (known) this.resume(waiter, known);
      else this.enqueue(waiter);
    });
  }

  /**
   * The call's own abort drops it. One listener per signal (the trials of a run share theirs),
   * not one per waiting call: a thousand calls wait at once.
   */
  private watch(waiter: Waiter, signal: AbortSignal | undefined): void {
    if (!signal) return;
    let group = this.bySignal.get(signal);
    if (!group) {
      const watched = new Set<Waiter>();
      const onAbort = () => {
        this.bySignal.delete(signal);
        for (const w of [...watched]) this.drop(w, signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      group = { waiters: watched, onAbort };
      this.bySignal.set(signal, group);
    }
    group.waiters.add(waiter);
  }

  private unwatch(waiter: Waiter, signal: AbortSignal | undefined): void {
    const group = signal && this.bySignal.get(signal);
    if (!group) return;
    group.waiters.delete(waiter);
    if (group.waiters.size > 0) return;
    signal.removeEventListener("abort", group.onAbort);
    this.bySignal.delete(signal);
  }

  /** Requests per batch: the spec's max_requests, capped at the provider's own limit. */
  private get capacity(): number {
    return Math.min(this.o.settings.maxRequests, this.o.api.maxRequests ?? Number.POSITIVE_INFINITY);
  }

  /**
   * Stops the flush timer and waits for a submission in progress, so a batch the provider
   * accepted is recorded before the store closes (an aborted run must still find it on resume).
   */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.submitting;
  }

  /** A call the store knows: its stored outcome, the batch it was submitted in, or its submission. */
  private resume(waiter: Waiter, known: BatchRequestRecord): void {
    if (known.state === "submitting" && known.token) {
      const token = known.token;
      this.resolveSubmission(token).then((batchId) => {
        if (batchId !== null) {
          this.attach(waiter, batchId);
          void this.poll(batchId, true);
          return;
        }
        // The provider never received it: the store uncounted that submission; send the call again.
        waiter.submissions = Math.max(0, known.submissions - 1);
        this.enqueue(waiter);
      }, waiter.reject);
      return;
    }
    if (known.state === "submitted" && !this.settled.has(known.batchId)) {
      this.attach(waiter, known.batchId);
      void this.poll(known.batchId, true);
      return;
    }
    if (known.state === "submitted") {
      // Settled by this process after the store was read: read it again.
      void this.o.store
        .batchRequests(this.o.runId, [waiter.customId])
        .then((fresh) => this.resume(waiter, fresh.get(waiter.customId)!), waiter.reject);
      return;
    }
    const raw: RawBatchOutcome = known.raw ?? { kind: "unfinished", reason: "not run" };
    this.deliver(waiter, raw, known.batchId);
  }

  private enqueue(waiter: Waiter): void {
    this.pending.set(waiter.customId, waiter);
    if (this.pending.size >= this.capacity) {
      this.flush();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.o.settings.flushAfterMs);
  }

  /** Submits what is pending, one batch after another (a batch holds at most maxRequests). */
  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const waiters = [...this.pending.values()].slice(0, this.capacity);
    for (const w of waiters) this.pending.delete(w.customId);
    if (waiters.length === 0) return;
    this.submitting = this.submitting.then(() => this.submit(waiters));
    if (this.pending.size > 0) this.enqueue(this.pending.values().next().value!);
  }

  /**
   * Records the submission (token, requests) before the provider is called, creates the batch
   * tagged with the token, then records its id. A kill between the create and that last write
   * leaves the submission to be found by its token (resolveSubmission).
   */
  private async submit(waiters: Waiter[]): Promise<void> {
    const entries: BatchEntry[] = waiters.map((w) => ({ customId: w.customId, request: w.request }));
    const model = waiters[0].request.model;
    const token = randomBytes(8).toString("hex");
    const since = Date.now();
    let batchId: string;
    try {
      await this.o.store.recordSubmission(
        this.o.runId,
        { token, provider: this.o.provider, modelId: this.o.modelId, model, createdAt: new Date(since).toISOString() },
        entries.map((e) => e.customId),
      );
      for (const w of waiters) w.submissions++;
      const creating = this.create(token, { model, requests: entries.length, since }, entries);
      this.creating.set(token, creating);
      try {
        batchId = await creating;
      } finally {
        this.creating.delete(token);
      }
      // Recorded before any poll, whatever the abort signal says: a resumed run must find it.
      await this.o.store.recordSubmitted(this.o.runId, token, this.batchRecord(batchId));
    } catch (error) {
      // A refusal made no batch (and each earlier attempt was looked up before it was retried):
      // the submission is absent. Otherwise (aborted, or the last attempt's reply lost) it stays
      // `submitting`, and a resumed run looks it up before sending it again.
      if (this.refused(error)) await this.o.store.abandonSubmission(this.o.runId, token).catch(() => undefined);
      for (const w of waiters) w.reject(error);
      return;
    }
    for (const w of waiters) this.attach(w, batchId);
    void this.poll(batchId, false);
  }

  /**
   * The provider's create, retried on transient errors; before each retry the batch is looked up
   * by its token, since a create whose reply was lost (a timeout, a 5xx from a proxy) may have
   * been accepted.
   */
  private async create(token: string, submission: Submission, entries: BatchEntry[]): Promise<string> {
    return this.withRetries(async (attempt) => {
      if (attempt > 0) {
        const found = await this.lookup(token, submission);
        if (found !== null) return found;
      }
      return this.o.api.submit(submission.model, entries, this.o.signal, token);
    });
  }

  /** The provider refused the create for good (a 4xx): it made no batch. */
  private refused(error: unknown): boolean {
    return !this.o.signal?.aborted && error instanceof ProviderError && !error.retryable;
  }

  private batchRecord(batchId: string) {
    return { batchId, provider: this.o.provider, modelId: this.o.modelId, submittedAt: new Date().toISOString() };
  }

  /**
   * The batch of a submission whose id the store lacks (once per token and process): the store's
   * record if another process has found it meanwhile, else a lookup at the provider by token.
   * Found, it is recorded; absent, the submission is marked so and null is returned.
   */
  private resolveSubmission(token: string): Promise<string | null> {
    let resolution = this.resolutions.get(token);
    if (!resolution) {
      resolution = this.resolveOnce(token);
      this.resolutions.set(token, resolution);
    }
    return resolution;
  }

  private async resolveOnce(token: string): Promise<string | null> {
    const own = this.creating.get(token);
    if (own) return own;
    const submission = await this.o.store.batchSubmission(this.o.runId, token);
    if (!submission || submission.state === "absent") return null;
    if (submission.state === "submitted") return submission.batchId;
    const since = Date.parse(submission.createdAt);
    const found = await this.lookup(token, { model: submission.model, requests: submission.requests, since });
    if (found === null) {
      await this.o.store.abandonSubmission(this.o.runId, token);
      return null;
    }
    await this.o.store.recordSubmitted(this.o.runId, token, this.batchRecord(found));
    return found;
  }

  /** The batch tagged with `token` at the provider, or null; an undecided answer is asked again with backoff. */
  private async lookup(token: string, submission: Submission): Promise<string | null> {
    const find = this.o.api.find?.bind(this.o.api);
    if (!find) return null;
    const lookup = { ...submission, recorded: (ids: readonly string[]) => this.o.store.recordedBatchIds(ids) };
    let delay = this.o.settings.pollInitialMs;
    for (;;) {
      const found: BatchFound = await this.withRetries(() => find(token, lookup, this.o.signal));
      if (found.state === "found") return found.batchId;
      if (found.state === "absent") return null;
      await this.sleep(delay, this.o.signal);
      delay = Math.min(delay * 2, this.o.settings.pollMaxMs);
    }
  }

  private attach(waiter: Waiter, batchId: string): void {
    const group = this.waiting.get(batchId) ?? new Map<string, Waiter>();
    this.waiting.set(batchId, group);
    group.set(waiter.customId, waiter);
  }

  /** Polls one batch until it ends (once per batch and process), then settles it. */
  private poll(batchId: string, immediately: boolean): Promise<void> {
    let running = this.polls.get(batchId);
    if (!running) {
      running = this.pollUntilEnded(batchId, immediately).catch((error: unknown) => this.failBatch(batchId, error));
      this.polls.set(batchId, running);
    }
    return running;
  }

  private async pollUntilEnded(batchId: string, immediately: boolean): Promise<void> {
    const { pollInitialMs, pollMaxMs } = this.o.settings;
    let delay = pollInitialMs;
    if (!immediately) await this.sleep(delay, this.o.signal);
    for (;;) {
      const status = await this.withRetries(() => this.o.api.status(batchId, this.o.signal));
      if (status.state === "ended") {
        const outcomes = await this.withRetries(() => this.o.api.results(batchId, this.o.signal));
        await this.settle(batchId, status.providerStatus, outcomes);
        return;
      }
      delay = Math.min(delay * 2, pollMaxMs);
      await this.sleep(delay, this.o.signal);
    }
  }

  /** Stores every outcome the batch reports (one transaction), then answers the waiting calls. */
  private async settle(batchId: string, providerStatus: string, outcomes: Map<string, RawBatchOutcome>): Promise<void> {
    const rows: BatchRequestOutcome[] = [...outcomes].map(([customId, raw]) =>
      raw.kind === "unfinished"
        ? { customId, state: "unfinished" }
        : { customId, state: raw.kind === "response" ? ("done" as const) : ("failed" as const), raw },
    );
    await this.o.store.settleBatch(this.o.runId, batchId, providerStatus, rows);
    this.settled.add(batchId);
    this.polls.delete(batchId);
    const group = this.waiting.get(batchId) ?? new Map<string, Waiter>();
    this.waiting.delete(batchId);
    for (const waiter of group.values()) {
      this.deliver(waiter, outcomes.get(waiter.customId) ?? { kind: "unfinished", reason: providerStatus }, batchId);
    }
  }

  /** A result resolves the call; a retryable error or an unrun request goes to the next batch. */
  private deliver(waiter: Waiter, raw: RawBatchOutcome, batchId: string): void {
    const { maxRetries } = this.o.settings;
    if (raw.kind === "unfinished") {
      if (waiter.submissions <= Math.max(1, maxRetries)) this.enqueue(waiter);
      else {
        const message = `${this.o.provider}: batch ${batchId} ended (${raw.reason}) before running the request, ${waiter.submissions} time(s)`;
        waiter.reject(new ProviderError(message, "timeout", { retryable: false }));
      }
      return;
    }
    const outcome = this.o.api.decode(raw, waiter.request);
    if (outcome.kind === "result") {
      waiter.resolve({ ...outcome.result, batchId });
      return;
    }
    const retryable = outcome.error instanceof ProviderError && outcome.error.retryable;
    if (retryable && waiter.submissions <= maxRetries) this.enqueue(waiter);
    else waiter.reject(outcome.error);
  }

  /** Submit, status and results calls: transient failures are retried with backoff, up to max_retries. */
  private async withRetries<T>(call: (attempt: number) => Promise<T>): Promise<T> {
    let delay = this.o.settings.pollInitialMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await call(attempt);
      } catch (raw) {
        this.throwIfAborted();
        const error = this.o.api.classify(raw);
        const retryable = error instanceof ProviderError && error.retryable;
        if (!retryable || attempt >= this.o.settings.maxRetries) throw error;
        await this.sleep(delay, this.o.signal);
        delay = Math.min(delay * 2, this.o.settings.pollMaxMs);
      }
    }
  }

  private failBatch(batchId: string, error: unknown): void {
    this.polls.delete(batchId);
    const group = this.waiting.get(batchId);
    this.waiting.delete(batchId);
    for (const waiter of group?.values() ?? []) waiter.reject(error);
  }

  private drop(waiter: Waiter, reason: unknown): void {
    this.pending.delete(waiter.customId);
    for (const group of this.waiting.values()) group.delete(waiter.customId);
    waiter.reject(reason ?? new ProviderError("request aborted", "other", { retryable: false }));
  }

  private abortAll(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const reason = this.o.signal?.reason ?? new ProviderError("request aborted", "other", { retryable: false });
    for (const waiter of this.pending.values()) waiter.reject(reason);
    this.pending.clear();
    for (const group of this.waiting.values()) for (const waiter of group.values()) waiter.reject(reason);
    this.waiting.clear();
  }

  private throwIfAborted(): void {
    if (this.o.signal?.aborted) throw this.o.signal.reason ?? new Error("aborted");
  }
}
