/**
 * What the executor reports when a trial's outcome is settled. Its own module because the trial
 * sources (store paging, leases) and the executor's types both name it: kept apart, none of them
 * imports the others back.
 */
import type { FailureBucket } from "../../contracts/failure.js";

export interface TrialEvent {
  trialId: string;
  status: "finished" | "errored" | "abandoned";
  /** An errored trial's failure bucket and message. */
  failure?: { bucket: FailureBucket; message: string };
  costUsd: number;
  calls: number;
}
