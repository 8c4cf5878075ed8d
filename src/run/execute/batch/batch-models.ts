/**
 * `execution.mode: batch`: the study's models whose provider has a batch API are given a
 * batching provider and the batch price; the others (sim, llama, a provider without one) run
 * synchronously as before. See docs/SCALE.md.
 */
import type { ExecutionSpec, Price } from "../../../contracts/spec.js";
import { batchPrice } from "../../../models/pricing.js";
import type { BatchStore } from "../../store/types.js";
import type { ModelRuntime } from "../types.js";
import { BatchingProvider } from "./batching-provider.js";
import { batchSettings } from "./settings.js";

export interface BatchedModels {
  models: Map<string, ModelRuntime>;
  /** Model ids that go through a batch API. */
  batched: string[];
  close(): Promise<void>;
}

export function batchModels(
  models: ReadonlyMap<string, ModelRuntime>,
  context: {
    store: BatchStore;
    runId: string;
    execution: ExecutionSpec;
    prices?: Readonly<Record<string, Price>>;
    signal?: AbortSignal;
  },
): BatchedModels {
  const settings = batchSettings(context.execution);
  const out = new Map<string, ModelRuntime>();
  const batching: BatchingProvider[] = [];
  const batched: string[] = [];
  for (const [id, runtime] of models) {
    const api = runtime.provider.batch;
    if (!api) {
      out.set(id, runtime);
      continue;
    }
    const provider = new BatchingProvider(
      { ...runtime.provider, batch: api, capabilities: runtime.provider.capabilities.bind(runtime.provider) },
      {
        store: context.store,
        runId: context.runId,
        provider: runtime.provider.name,
        modelId: id,
        settings,
        signal: context.signal,
      },
    );
    batching.push(provider);
    batched.push(id);
    out.set(id, { ...runtime, provider, price: batchPrice(runtime.spec, context.prices), syncPrice: runtime.price });
  }
  return {
    models: out,
    batched,
    close: async () => {
      await Promise.all(batching.map((p) => p.close()));
    },
  };
}

/** Trials in flight by default in batch mode: enough to fill one batch. */
export function batchConcurrency(execution: ExecutionSpec): number {
  return batchSettings(execution).maxRequests;
}
