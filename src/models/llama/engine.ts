/**
 * The llama engine: node-llama-cpp loaded on first use, one backend per thread count and one loaded
 * model per GGUF path shared by every provider in the process, and a provider's session (a context
 * with one sequence per path) whose calls run one at a time.
 *
 * Loading: node-llama-cpp is imported lazily on the first call, so the CLI never pays for it
 * when no llama model is used. One Llama backend and one loaded model per GGUF path are
 * shared by all providers in the process (reference-counted); each provider owns one context
 * (one sequence) per path and serialises its calls on it. close() disposes the contexts and
 * releases the models; the last release disposes the model and then the backend.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel } from "node-llama-cpp";
import { InputError, ProviderError } from "../../core/errors.js";
import { abortReason } from "../errors.js";
import type { LlamaOptions } from "../options.js";
import { LLAMA_ENGINE_INSTALL } from "./installed.js";

export type LlamaLib = typeof import("node-llama-cpp");

/** Default context ceiling: a large model's training context would allocate gigabytes. */
const DEFAULT_MAX_CONTEXT = 4096;

let libPromise: Promise<LlamaLib> | undefined;
const backends = new Map<number, { llama: Promise<Llama>; refs: number }>();
const models = new Map<string, { model: Promise<LlamaModel>; refs: number; threads: number }>();

function loadLib(): Promise<LlamaLib> {
  libPromise ??= import("node-llama-cpp").catch((error: unknown) => {
    libPromise = undefined;
    throw new ProviderError(
      `llama: cannot load node-llama-cpp (\`${LLAMA_ENGINE_INSTALL}\` installs it): ${message(error)}`,
      "provider_error",
      {
        retryable: false,
        cause: error,
      },
    );
  });
  return libPromise;
}

async function acquireBackend(threads: number): Promise<Llama> {
  let entry = backends.get(threads);
  if (!entry) {
    const llama = loadLib().then((lib) =>
      lib.getLlama({
        gpu: false,
        build: "never",
        skipDownload: true,
        maxThreads: threads,
        progressLogs: false,
        logLevel: lib.LlamaLogLevel.error,
      }),
    );
    entry = { llama, refs: 0 };
    backends.set(threads, entry);
    llama.catch(() => backends.delete(threads));
  }
  entry.refs++;
  return entry.llama;
}

async function releaseBackend(threads: number): Promise<void> {
  const entry = backends.get(threads);
  if (!entry || --entry.refs > 0) return;
  backends.delete(threads);
  const llama = await entry.llama.catch(() => undefined);
  await llama?.dispose();
}

async function acquireModel(path: string, threads: number): Promise<LlamaModel> {
  let entry = models.get(path);
  if (!entry) {
    const model = (async () => {
      const llama = await acquireBackend(threads);
      try {
        return await llama.loadModel({ modelPath: path, gpuLayers: 0 });
      } catch (error) {
        await releaseBackend(threads);
        throw new ProviderError(`llama: cannot load model ${path}: ${message(error)}`, "provider_error", {
          retryable: false,
          cause: error,
        });
      }
    })();
    entry = { model, refs: 0, threads };
    models.set(path, entry);
    model.catch(() => models.delete(path));
  }
  entry.refs++;
  try {
    return await entry.model;
  } catch (error) {
    entry.refs--;
    throw error;
  }
}

async function releaseModel(path: string): Promise<void> {
  const entry = models.get(path);
  if (!entry || --entry.refs > 0) return;
  models.delete(path);
  const model = await entry.model.catch(() => undefined);
  if (!model) return;
  await model.dispose();
  await releaseBackend(entry.threads);
}

/** One provider's working state for one GGUF path: a context with one sequence. */
export interface Session {
  path: string;
  lib: LlamaLib;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  contextSize: number;
  batchSize: number;
  vocabSize: number;
  /** Calls on the sequence run one at a time, in arrival order. */
  tail: Promise<void>;
}

/** Opens a session on the GGUF at `path` (`model` as the spec names it, for the message when it is missing). */
export async function openSession(
  path: string,
  model: string,
  options: LlamaOptions,
  baseDir: () => string,
): Promise<Session> {
  if (!existsSync(path) || !statSync(path).isFile()) {
    const base = isAbsolute(model) ? "" : ` (model '${model}' resolved against ${baseDir()})`;
    throw new ProviderError(`llama: model file not found: ${path}${base}`, "provider_error", { retryable: false });
  }
  const lib = await loadLib();
  const llamaModel = await acquireModel(path, options.threads);
  try {
    const contextSize = options.context_size ?? Math.min(llamaModel.trainContextSize, DEFAULT_MAX_CONTEXT);
    const context = await llamaModel.createContext({
      contextSize,
      batchSize: options.batch_size,
      threads: options.threads,
      sequences: 1,
    });
    let vocabSize = 0;
    for (const _ of llamaModel.iterateAllTokens()) vocabSize++;
    return {
      path,
      lib,
      model: llamaModel,
      context,
      sequence: context.getSequence(),
      // llama.cpp may round the context up; the sequence reports the usable size.
      contextSize: context.contextSize,
      batchSize: context.batchSize,
      vocabSize,
      tail: Promise.resolve(),
    };
  } catch (error) {
    await releaseModel(path);
    throw new ProviderError(`llama: cannot create a context for ${path}: ${message(error)}`, "provider_error", {
      retryable: false,
      cause: error,
    });
  }
}

/** Runs `fn` on the session after every call before it; an engine error becomes a ProviderError. */
export function serialise<T>(session: Session, fn: () => Promise<T>): Promise<T> {
  const result = session.tail.then(fn).catch((error: unknown) => {
    throw asProviderError(error);
  });
  session.tail = result.then(
    () => undefined,
    () => undefined,
  );
  return result;
}

/** Disposes a session's context once its calls are done, and releases its model. */
export async function closeSession(session: Session): Promise<void> {
  await session.tail;
  await session.context.dispose();
  await releaseModel(session.path);
}

export function contextTooLong(tokens: number, contextSize: number, what: string): ProviderError {
  return new ProviderError(
    `llama: context too long: ${tokens} tokens for a context of ${contextSize} (${what}); raise options.context_size or shorten the prompt`,
    "context_too_long",
    { retryable: false },
  );
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  const reason = abortReason(signal);
  if (reason !== undefined) throw reason;
}

function asProviderError(error: unknown): unknown {
  if (error instanceof ProviderError || error instanceof InputError) return error;
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return error;
  return new ProviderError(`llama: ${message(error)}`, "provider_error", { retryable: false, cause: error });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const revisions = new Map<string, Promise<string>>();

/** The SHA-256 of a weights file, streamed once and cached by path: which precision answered. */
export function fileRevision(path: string): Promise<string> {
  let known = revisions.get(path);
  if (!known) {
    known = new Promise<string>((resolvePromise, reject) => {
      const hash = createHash("sha256");
      createReadStream(path)
        .on("data", (chunk) => hash.update(chunk))
        .on("error", reject)
        .on("end", () => resolvePromise(`sha256:${hash.digest("hex")}`));
    });
    revisions.set(path, known);
  }
  return known;
}
