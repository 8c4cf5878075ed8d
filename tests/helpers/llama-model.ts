/**
 * Locates the shared test GGUF (stories260K) for the llama provider tests: $PARALLAX_SHARED_DIR
 * if set, else ../shared next to the repository. Tests skip with `skipReason` when absent, so
 * the suite still passes on a machine without the shared materials.
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { LlamaContext, LlamaContextSequence, LlamaModel } from "node-llama-cpp";
import { needsLlamaEngine } from "./prerequisites.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const sharedDir = resolve(process.env.PARALLAX_SHARED_DIR ?? resolve(repoRoot, "..", "shared"));

/** Absolute path of a model in <shared>/models, or undefined when it is not there. */
export function sharedModel(name: string): string | undefined {
  const path = resolve(sharedDir, "models", name);
  return existsSync(path) ? path : undefined;
}

/** Why a test of the llama provider on `name` cannot run here: no engine, or no model file. */
export function skipReason(name: string): string | false {
  const engine = needsLlamaEngine();
  if (engine) return engine;
  return sharedModel(name) === undefined
    ? `${name} not found in ${resolve(sharedDir, "models")} (set PARALLAX_SHARED_DIR to the shared materials folder)`
    : false;
}

/** A scorer built directly on node-llama-cpp, independent of the provider's code, for checks. */
export interface LlamaReference {
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  dispose(): Promise<void>;
}

/** Loads the model straight through node-llama-cpp (CPU, one thread) with one context sequence. */
export async function openLlamaReference(modelPath: string, contextSize: number): Promise<LlamaReference> {
  const lib = await import("node-llama-cpp");
  const llama = await lib.getLlama({
    gpu: false,
    build: "never",
    skipDownload: true,
    maxThreads: 1,
    logLevel: lib.LlamaLogLevel.error,
  });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize, threads: 1 });
  return {
    model,
    context,
    sequence: context.getSequence(),
    dispose: async () => {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
