import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import type { Tool } from "./types.js";

const PythonArgs = lazySchema(() => z.strictObject({ code: z.string().min(1).describe("The Python code to run.") }));

/** Python code run by python3 in the sandbox; the code comes on stdin, so no quoting reaches a shell. */
export const pythonTool: Tool<z.infer<typeof PythonArgs>> = {
  name: "python",
  description:
    "Run Python 3 code in a sandbox without network access, from /workspace (the task's files are there). Each call is a fresh interpreter: use print() to see values.",
  argumentsSchema: PythonArgs,
  run: ({ code }, context) => context.runInSandbox(["python3", "-"], code),
};
