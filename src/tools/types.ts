import type { z } from "zod";
import type { SandboxLimits, ToolResult } from "../contracts/tool.js";
import type { WebBackend } from "./web/types.js";

/** What a tool's run receives: the trial's work dir and the means to run commands in its sandbox. */
export interface ToolContext {
  /** Host path of the trial's work dir (seen as `/workspace` inside the sandbox). */
  workDir: string;
  limits: SandboxLimits;
  /** Runs a command in the trial's sandbox and turns the run into an observation. */
  runInSandbox(argv: readonly string[], stdin?: string): Promise<ToolResult>;
  /** Gives files the tool writes from the host to the trial's sandbox user. */
  ownFile(hostPath: string): Promise<void>;
  /** The web backend of `web_search`/`web_fetch`; undefined when the toolbox has none. */
  web?: WebBackend;
}

/** One tool, one file: it describes itself (name, description, arguments schema) and runs. */
export interface Tool<Args = unknown> {
  name: string;
  /** Shown to the model. */
  description: string;
  /** Strict zod schema of the arguments object; its JSON Schema is the spec's `parameters`. */
  argumentsSchema: z.ZodType<Args>;
  /** Runs one call with validated arguments; returns an observation, never throws for a tool failure. */
  run(args: Args, context: ToolContext): Promise<Omit<ToolResult, "durationMs">>;
}

/** A tool with its argument type erased, for the registry. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of different argument types
export type AnyTool = Tool<any>;
