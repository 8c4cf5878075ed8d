/**
 * API keys: resolution from environment variables and round-robin rotation with per-key
 * cooldown after a 429. The pool holds one client per key, so callers get a slot index and
 * a client, never the key text.
 */
import { InputError, ProviderError } from "../core/errors.js";
import { abortReason, isMalformed, KeyWaitError, MalformedResponseError } from "./errors.js";
import { TokenBucket } from "./resilience.js";
import { registerSecrets, scrubSecrets } from "../core/secrets.js";
import type { ProviderEnv } from "./types.js";

/** What the remote provider constructors accept besides (spec, env). */
export interface RemoteProviderDeps {
  /** Clock for key cooldowns and HTTP-date Retry-After (fake in tests). */
  now?: () => number;
}

export interface ResolveKeysInput {
  provider: string;
  modelId: string;
  /** spec.api_key_env: one name or several (rotated in this order). */
  apiKeyEnv: string | readonly string[] | undefined;
  /** Names tried, first set wins, when api_key_env is absent. */
  defaultEnv: readonly string[];
  env: ProviderEnv;
}

/** The key values, in rotation order, registered as secrets to scrub. Errors name the variable, never a value. */
export function resolveApiKeys(input: ResolveKeysInput): string[] {
  const keys = keyValues(input);
  registerSecrets(keys);
  return keys;
}

function keyValues(input: ResolveKeysInput): string[] {
  const { apiKeyEnv, env } = input;
  const where = `model '${input.modelId}' (${input.provider})`;
  if (apiKeyEnv !== undefined) {
    const names = typeof apiKeyEnv === "string" ? [apiKeyEnv] : [...apiKeyEnv];
    return names.map((name) => {
      const value = env[name];
      if (value === undefined || value.trim() === "") {
        throw new InputError(`${where}: environment variable ${name} (from api_key_env) is not set`);
      }
      return value.trim();
    });
  }
  for (const name of input.defaultEnv) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") return [value.trim()];
  }
  throw new InputError(
    `${where}: no API key: set ${input.defaultEnv.join(" or ")} or name the variable(s) in api_key_env`,
  );
}

export interface KeyPoolOptions {
  now?: () => number;
  /** Requests per minute allowed on each key (e.g. 25 on AI Studio); unlimited when absent. */
  perKeyRpm?: number;
  /** Cooldown after a 429 without Retry-After: base * 2^(strikes-1), capped. */
  cooldownBaseMs?: number;
  cooldownMaxMs?: number;
}

export interface KeyLease<T> {
  slot: number;
  client: T;
}

interface SlotState<T> {
  client: T;
  coolUntil: number;
  strikes: number;
  bucket?: TokenBucket;
}

export class KeyPool<T> {
  private readonly slots: SlotState<T>[];
  private readonly now: () => number;
  private readonly cooldownBaseMs: number;
  private readonly cooldownMaxMs: number;
  private cursor = 0;

  constructor(clients: readonly T[], options: KeyPoolOptions = {}) {
    if (clients.length === 0) throw new Error("KeyPool needs at least one key");
    this.now = options.now ?? Date.now;
    this.cooldownBaseMs = options.cooldownBaseMs ?? 1000;
    this.cooldownMaxMs = options.cooldownMaxMs ?? 60_000;
    const rpm = options.perKeyRpm;
    this.slots = clients.map((client) => ({
      client,
      coolUntil: 0,
      strikes: 0,
      bucket: rpm ? new TokenBucket(rpm, rpm / 60_000, this.now) : undefined,
    }));
  }

  get size(): number {
    return this.slots.length;
  }

  /**
   * The next usable key after the last one handed out. When every key is cooling or out of
   * per-key budget, throws a local (no HTTP call) `KeyWaitError` whose retryAfterMs is when
   * the first key frees up: the resilience layer waits for it without spending a retry
   * attempt, so a 429 on one key makes the other in-flight calls wait for its cool-down.
   */
  acquire(): KeyLease<T> {
    const n = this.slots.length;
    for (let i = 0; i < n; i++) {
      const slot = (this.cursor + i) % n;
      if (this.waitFor(slot) === 0) {
        this.slots[slot].bucket?.take(1);
        this.cursor = (slot + 1) % n;
        return { slot, client: this.slots[slot].client };
      }
    }
    const wait = Math.max(1, this.msUntilAvailable());
    throw new KeyWaitError(`all ${n} API key(s) are cooling down; next in ${wait} ms`, wait);
  }

  /**
   * Cools `slot` for the server's Retry-After (or an exponential default) and returns how
   * long until some key is usable: 0 when another key can take the retry right away.
   */
  markRateLimited(slot: number, retryAfterMs?: number): number {
    const state = this.slots[slot];
    state.strikes += 1;
    const fallback = Math.min(this.cooldownMaxMs, this.cooldownBaseMs * 2 ** (state.strikes - 1));
    state.coolUntil = this.now() + (retryAfterMs ?? fallback);
    return this.msUntilAvailable();
  }

  markSuccess(slot: number): void {
    this.slots[slot].strikes = 0;
  }

  msUntilAvailable(): number {
    return Math.min(...this.slots.map((_, slot) => this.waitFor(slot)));
  }

  private waitFor(slot: number): number {
    const state = this.slots[slot];
    const cooling = Math.max(0, state.coolUntil - this.now());
    return Math.max(cooling, state.bucket?.waitFor(1) ?? 0);
  }
}

/**
 * One HTTP call on the next key. `classify` turns SDK errors into ProviderErrors; a 429
 * cools the key and the error's retryAfterMs becomes the wait until *some* key is usable
 * (0 when another key can take the retry now). Every error leaving here is re-created
 * with the registered secrets scrubbed (every encoding: a 401 body may echo the key in base64)
 * and no SDK `cause` attached (SDK errors may quote the key).
 */
export async function callWithKey<T, R>(
  pool: KeyPool<T>,
  signal: AbortSignal | undefined,
  call: (client: T) => Promise<R>,
  classify: (error: unknown) => unknown,
): Promise<{ result: R; slot: number }> {
  const lease = pool.acquire();
  try {
    const result = await call(lease.client);
    pool.markSuccess(lease.slot);
    return { result, slot: lease.slot };
  } catch (error) {
    const aborted = abortReason(signal);
    if (aborted) throw aborted;
    const classified = classify(error);
    if (classified instanceof ProviderError && classified.options.status === 429 && classified.retryable) {
      const wait = pool.markRateLimited(lease.slot, classified.options.retryAfterMs);
      throw sanitize(classified, lease.slot, wait);
    }
    throw sanitize(classified, lease.slot);
  }
}

function sanitize(error: unknown, slot: number, retryAfterMs?: number): ProviderError {
  if (!(error instanceof ProviderError)) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return new ProviderError(`${scrubSecrets(text)} (key slot ${slot})`, "other", { retryable: false });
  }
  const message = `${scrubSecrets(error.message)} (key slot ${slot})`;
  if (isMalformed(error)) return new MalformedResponseError(message);
  const { retryable, status } = error.options;
  return new ProviderError(message, error.bucket, {
    retryable,
    status,
    retryAfterMs: retryAfterMs ?? error.options.retryAfterMs,
  });
}
