import { foldedText } from "../../core/folded-text.js";
import type { CallAuditor } from "./types.js";
import { flagShare } from "./aggregate.js";
import { templateShowsOptions } from "../templated-prompt.js";

/**
 * Every MC option text occurs in the call's messages (null: not an MC task, or a prompt template
 * that does not show the options by design, such as SafetyRepro's T1 and T2).
 */
export const optionsReachedAuditor: CallAuditor<boolean> = {
  name: "options_reached",
  check({ task, haystack }) {
    if (!task.options || task.options.length === 0 || !templateShowsOptions(task)) return null;
    return task.options.every((option) => haystack.includes(foldedText(option)));
  },
  callColumns: [{ name: "options_reached", type: "boolean", what: "every MC option text reached the call" }],
  callValues: (value) => ({ options_reached: value }),
  trialColumns: [{ name: "options_reached_share", type: "number", what: "share of the calls the options reached" }],
  trialValues: (values) => ({ options_reached_share: flagShare(values) }),
};
