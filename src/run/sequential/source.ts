/**
 * The trials of one look of a sequential run: the unfinished trials of the items the look holds,
 * leaving out the compared conditions of contrasts already decided. Pages the store as
 * StoreTrialSource does (each trial handed out once per pass).
 */
import type { TrialSource } from "../execute/trial-source.js";
import type { TrialRow, TrialStore } from "../store/types.js";

const PAGE_SIZE = 500;

export class LookTrialSource implements TrialSource {
  private buffer: TrialRow[] = [];
  private afterId: string | undefined;
  private exhausted = false;

  constructor(
    private readonly store: Pick<TrialStore, "listTrials">,
    private readonly runId: string,
    private readonly wanted: (trial: TrialRow) => boolean,
  ) {}

  async claim(max: number): Promise<TrialRow[]> {
    while (this.buffer.length < max && !this.exhausted) await this.readPage();
    return this.buffer.splice(0, Math.max(0, max));
  }

  async acknowledge(): Promise<void> {}

  private async readPage(): Promise<void> {
    const page = await this.store.listTrials(this.runId, {
      status: ["pending", "errored"],
      limit: PAGE_SIZE,
      afterId: this.afterId,
    });
    if (page.length === 0) {
      this.exhausted = true;
      return;
    }
    this.afterId = page[page.length - 1].id;
    this.buffer.push(...page.filter(this.wanted));
  }
}
