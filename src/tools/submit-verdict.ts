import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import type { Tool } from "./types.js";

const SubmitVerdictArgs = lazySchema(() =>
  z.strictObject({
    done: z.boolean().describe("True if the answer is correct and well-formatted; false if more work is needed."),
    reason: z.string().describe("When done is false, a short reason saying what is wrong."),
  }),
);

/** The rater's verdict in the Planner-Actor-Rater scaffold (paper App. C.1). */
export const submitVerdictTool: Tool<z.infer<typeof SubmitVerdictArgs>> = {
  name: "submit_verdict",
  description:
    "Submit your verdict on the most recent answer: done=true if it correctly addresses the question and matches the required format, done=false with a short reason if more work is needed.",
  argumentsSchema: SubmitVerdictArgs,
  run: async ({ done, reason }) => ({
    output: done ? "Verdict: done." : `Verdict: continue (${reason}).`,
    verdict: { done, reason },
  }),
};
