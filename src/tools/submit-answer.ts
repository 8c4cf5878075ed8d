import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import type { Tool } from "./types.js";

const SubmitAnswerArgs = lazySchema(() =>
  z.strictObject({
    answer: z.string().describe("The final answer, in the format the question asks for."),
  }),
);

/** The agent's final answer; the scaffold ends the attempt when it sees `ToolResult.answer`. */
export const submitAnswerTool: Tool<z.infer<typeof SubmitAnswerArgs>> = {
  name: "submit_answer",
  description: "Submit your final answer to the question. Call it once, with only the bare answer.",
  argumentsSchema: SubmitAnswerArgs,
  run: async ({ answer }) => ({ output: "Answer submitted.", answer }),
};
