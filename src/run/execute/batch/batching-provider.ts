/**
 * A model's provider in batch mode: `generate` joins a batch (one collector per provider model
 * id, since a batch serves one model), everything else is the provider's own. Log-prob scoring
 * (continuationLogprobs) stays synchronous: no provider batches the legacy completions echo.
 */
import type { GenerateRequest, GenerateResult, Provider, ProviderBatchApi } from "../../../contracts/provider.js";
import { BatchCollector, type BatchCollectorOptions } from "./collector.js";

export class BatchingProvider implements Provider {
  readonly name: string;
  readonly simulated: boolean;
  private readonly collectors = new Map<string, BatchCollector>();

  constructor(
    private readonly inner: Provider & { batch: ProviderBatchApi },
    private readonly options: Omit<BatchCollectorOptions, "api">,
  ) {
    this.name = inner.name;
    this.simulated = inner.simulated;
    if (inner.continuationLogprobs) this.continuationLogprobs = inner.continuationLogprobs.bind(inner);
    if (inner.modelRevision) this.modelRevision = inner.modelRevision.bind(inner);
  }

  continuationLogprobs?: Provider["continuationLogprobs"];
  modelRevision?: Provider["modelRevision"];

  capabilities(model: string) {
    return this.inner.capabilities(model);
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    let collector = this.collectors.get(request.model);
    if (!collector) {
      collector = new BatchCollector({ ...this.options, api: this.inner.batch });
      this.collectors.set(request.model, collector);
    }
    return collector.generate(request);
  }

  /** Stops the collectors' timers; the wrapped provider is closed by its owner. */
  async close(): Promise<void> {
    await Promise.all([...this.collectors.values()].map((collector) => collector.close()));
  }
}
