/**
 * What the three batch mocks share: the answer every mock gives to a prompt (the same from the
 * synchronous endpoint and from a batch, so the scores of both modes can be compared), and the
 * scriptable life of a batch: held in progress, expired (the first half of its requests run, the
 * rest not), requests that fail (a retryable server error a given number of times, or a
 * non-retryable context-length error), and the counts the tests check (creations, result reads).
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
  requests: MockBatchRequest[];
  ended: boolean;
  expired: boolean;
  fates: Map<string, RequestFate>;
}

export class BatchMockState {
  creates = 0;
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
    this.creates = 0;
    this.resultReads = 0;
    this.syncCalls = 0;
    this.hold = false;
    this.expireNext = 0;
    this.failures = [];
    this.batches.clear();
  }

  create(prefix: string, requests: MockBatchRequest[]): MockBatch {
    this.creates++;
    const batch: MockBatch = {
      id: `${prefix}${this.nextId++}`,
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
