/**
 * What the three batch mocks share: the answer every mock gives to a prompt (the same from the
 * synchronous endpoint and from a batch, so the scores of both modes can be compared), and the
 * scriptable life of a batch: held in progress, expired (the first half of its requests run, the
 * rest not), requests that fail (a retryable server error a given number of times, or a
 * non-retryable context-length error), and the counts the tests check (creations, result reads).
 * A create can be scripted to stall before the batch is made (the request never reached the
 * provider) or after (the provider accepted it but its reply never arrived), or to fail with a
 * server error after the batch is made (a lost reply), for the crash tests.
 */
import { createHash } from "node:crypto";
import { mockTokenize } from "./mock-server.js";

/** "Answer: X" with X drawn from the prompt's hash: deterministic, and varied across items. */
export function mockAnswer(prompt: string): string {
  const digest = createHash("sha256").update(prompt).digest();
  return `Answer: ${"ABCD"[digest[0] % 4]}`;
}

export function tokenCount(text: string): number {
  return mockTokenize(text).length;
}

export type Failure = "server" | "context";

export interface MockBatchRequest {
  customId: string;
  /** The last user message: what the answer and failures key on. */
  prompt: string;
  promptTokens: number;
}

export type RequestFate = { kind: "ok"; text: string } | { kind: "fail"; failure: Failure } | { kind: "unrun" };

export interface MockBatch {
  id: string;
  /** When it was created (ms since the epoch): what the list endpoints report and order by. */
  createdAt: number;
  /** The client's tag: OpenAI metadata, Gemini display name (Anthropic has none). */
  metadata: Record<string, string> | null;
  displayName: string | null;
  /** Creation order (ties of createdAt are broken by it). */
  seq: number;
  requests: MockBatchRequest[];
  ended: boolean;
  expired: boolean;
  fates: Map<string, RequestFate>;
}

/** What a scripted create does: stall (until released) or fail with a server error. */
export type CreateFault = "stall" | "error" | null;

export class BatchMockState {
  creates = 0;
  /** Create requests received, whether or not they made a batch. */
  createRequests = 0;
  /** The next create stalls before making its batch (and never makes it). */
  beforeCreate: "stall" | null = null;
  /** The next create makes its batch, then stalls or fails instead of replying with it. */
  afterCreate: CreateFault = null;
  /** List requests served. */
  lists = 0;
  private stalls: Array<() => void> = [];
  /** Reads of a batch's results (output file, results stream, or an ended job's inlined responses). */
  resultReads = 0;
  syncCalls = 0;
  /** While true, batches stay in progress. */
  hold = false;
  /** How many of the next batches to end are expired. */
  expireNext = 0;
  /** Requests whose prompt contains `match` fail, `times` times (then succeed). */
  failures: { match: string; failure: Failure; times: number }[] = [];
  readonly batches = new Map<string, MockBatch>();
  private nextId = 1;

  reset(): void {
    this.release();
    this.creates = 0;
    this.createRequests = 0;
    this.beforeCreate = null;
    this.afterCreate = null;
    this.lists = 0;
    this.resultReads = 0;
    this.syncCalls = 0;
    this.hold = false;
    this.expireNext = 0;
    this.failures = [];
    this.batches.clear();
  }

  /** Lets every stalled create go on (its client is gone by then: it only gets an error reply). */
  release(): void {
    for (const go of this.stalls.splice(0)) go();
  }

  /**
   * A create request as scripted: the batch made (returned), or "error" when the script stalled or
   * failed it (the endpoint then replies with a server error).
   */
  async createRequest(make: () => MockBatch): Promise<MockBatch | "error"> {
    this.createRequests++;
    const before = this.beforeCreate;
    this.beforeCreate = null;
    if (before === "stall") {
      await this.stall();
      return "error";
    }
    const batch = make();
    const after = this.afterCreate;
    this.afterCreate = null;
    if (after === "stall") await this.stall();
    return after === null ? batch : "error";
  }

  private stall(): Promise<void> {
    return new Promise((resolve) => this.stalls.push(resolve));
  }

  /**
   * The batches newest first, as the list endpoints return them. Listing, like polling, lets an
   * unheld batch end: a real batch ends whether or not anyone polls it.
   */
  listed(): MockBatch[] {
    this.lists++;
    for (const id of this.batches.keys()) this.poll(id);
    return [...this.batches.values()].sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq);
  }

  create(
    prefix: string,
    requests: MockBatchRequest[],
    tag: { metadata?: Record<string, string> | null; displayName?: string | null } = {},
  ): MockBatch {
    this.creates++;
    const seq = this.nextId++;
    const batch: MockBatch = {
      id: `${prefix}${seq}`,
      seq,
      createdAt: Date.now(),
      metadata: tag.metadata ?? null,
      displayName: tag.displayName ?? null,
      requests,
      ended: false,
      expired: false,
      fates: new Map(),
    };
    this.batches.set(batch.id, batch);
    return batch;
  }

  /** A poll: an unheld batch ends now, its requests' fates drawn from the script. */
  poll(id: string): MockBatch | undefined {
    const batch = this.batches.get(id);
    if (!batch || batch.ended || this.hold) return batch;
    batch.ended = true;
    batch.expired = this.expireNext > 0;
    if (batch.expired) this.expireNext--;
    const runs = batch.expired ? Math.ceil(batch.requests.length / 2) : batch.requests.length;
    batch.requests.forEach((request, index) => {
      batch.fates.set(request.customId, index < runs ? this.fate(request.prompt) : { kind: "unrun" });
    });
    return batch;
  }

  /** The answer the synchronous endpoint gives (failures apply there too). */
  syncFate(prompt: string): RequestFate {
    this.syncCalls++;
    return this.fate(prompt);
  }

  private fate(prompt: string): RequestFate {
    const failure = this.failures.find((f) => f.times > 0 && prompt.includes(f.match));
    if (failure) {
      failure.times--;
      return { kind: "fail", failure: failure.failure };
    }
    return { kind: "ok", text: mockAnswer(prompt) };
  }
}
