import { flagShare } from "./aggregate.js";
import { sentenceShare } from "./text.js";
import type { CallAuditor } from "./types.js";

/** Every sentence of the benchmark's safety instructions occurs in the call (null: the benchmark has none). */
export const safetyReachedAuditor: CallAuditor<boolean> = {
  name: "safety_reached",
  check({ task, haystack }) {
    const share = sentenceShare(task.benchmarkInstructions, haystack);
    return share === null ? null : share === 1;
  },
  callColumns: [
    { name: "safety_reached", type: "boolean", what: "every safety-instruction sentence reached the call" },
  ],
  callValues: (value) => ({ safety_reached: value }),
  trialColumns: [
    { name: "safety_reached_share", type: "number", what: "share of the calls the safety instructions reached" },
  ],
  trialValues: (values) => ({ safety_reached_share: flagShare(values) }),
};
