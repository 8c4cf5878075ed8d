import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import type { Tool } from "./types.js";

const BashArgs = lazySchema(() => z.strictObject({ cmd: z.string().min(1).describe("The bash command to run.") }));

/** A bash command in the sandbox, run from the work dir; each call is a fresh shell (files persist, shell state does not). */
export const bashTool: Tool<z.infer<typeof BashArgs>> = {
  name: "bash",
  description:
    "Run a bash command in a sandbox without network access. The working directory is /workspace (the task's files are there; files you write there persist between calls). Returns stdout and stderr.",
  argumentsSchema: BashArgs,
  run: ({ cmd }, context) => context.runInSandbox(["bash", "--noprofile", "--norc", "-c", cmd]),
};
