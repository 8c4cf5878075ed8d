/**
 * `--scorer NAME` on a stored run (export): a scorer that scored nothing in the run is an
 * error naming the scorers that did, instead of a table of empty outcomes.
 */
import { InputError } from "../../core/errors.js";
import { scorers } from "../../scoring/registry.js";
import type { TrialStore } from "../store/types.js";

export async function refuseUnscoredScorer(
  store: TrialStore,
  runId: string,
  scorer: string,
  label: string,
): Promise<void> {
  if ((await store.listScores(runId, { scorer })).length > 0) return;
  const stored = [...new Set((await store.listScores(runId)).map((s) => s.scorer))].sort();
  const what = scorers.has(scorer) ? `scorer '${scorer}' scored nothing in this run` : `unknown scorer '${scorer}'`;
  const store1 = scorers.has(scorer) ? ` ('parallax score ${label} --scorer ${scorer}' stores its scores)` : "";
  throw new InputError(
    `${label}: ${what}${store1}; stored scorers: ${stored.join(", ") || "(none)"}, or omit --scorer for the run-time score; ` +
      `registered scorers: ${scorers.names().join(", ")}`,
  );
}
