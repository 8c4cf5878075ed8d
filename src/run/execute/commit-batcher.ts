/**
 * Group commit for trial completions. Workers hand over a finished trial and wait; completions
 * that arrive in the same turn of the event loop are written in one store transaction. Each
 * trial's calls and outcome still land together or not at all, and a worker only reports a
 * trial as done after its transaction committed, so a crash loses nothing that was reported.
 */
import type { TrialCompletion, TrialStore } from "../store/types.js";

interface Waiting {
  entry: TrialCompletion;
  resolve: (written: boolean) => void;
  reject: (error: unknown) => void;
}

export class CommitBatcher {
  private waiting: Waiting[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: TrialStore,
    private readonly maxBatch = 64,
  ) {}

  /** Resolves to whether the trial was written (false when it was already finished). */
  complete(entry: TrialCompletion): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ entry, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    // Let the other workers finishing in this turn join the batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      try {
        const written = await this.store.completeTrials(batch.map((w) => w.entry));
        for (const [i, w] of batch.entries()) w.resolve(written[i]);
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.flushing = undefined;
  }
}
