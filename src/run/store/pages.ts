import type { TrialStatus } from "../../contracts/trial.js";
import type { TrialRow, TrialStore } from "./types.js";

/**
 * A run's trials in id order, a page at a time (keyset paging), so a large run is read with
 * flat memory. Paging moves strictly forward: a trial whose status changes while it is being
 * read is not fetched again.
 */
export async function* trialPages(
  store: TrialStore,
  runId: string,
  options: { status?: TrialStatus[]; pageSize?: number } = {},
): AsyncGenerator<TrialRow[]> {
  let afterId: string | undefined;
  for (;;) {
    const page = await store.listTrials(runId, { status: options.status, limit: options.pageSize ?? 1_000, afterId });
    if (page.length === 0) return;
    yield page;
    afterId = page[page.length - 1].id;
  }
}

/** The same trials one by one. */
export async function* eachTrial(
  store: TrialStore,
  runId: string,
  options: { status?: TrialStatus[]; pageSize?: number } = {},
): AsyncGenerator<TrialRow> {
  for await (const page of trialPages(store, runId, options)) yield* page;
}
