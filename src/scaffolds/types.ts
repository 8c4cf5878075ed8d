import type { ChatMessage, GenerateResult, GenerationParams, ToolCall, ToolSpec } from "../contracts/provider.js";
import type { SubCall } from "../contracts/sub-call.js";
import type { TaskInput } from "../contracts/task.js";
import type { Toolbox, ToolResult } from "../contracts/tool.js";
import type { z } from "zod";

/** Makes one sub-call; the runner records it (messages, response, usage, audit) under `role`. */
export type ScaffoldCall = (
  role: string,
  messages: ChatMessage[],
  params?: Partial<GenerationParams>,
  /** The tools offered to the model on this call (agent scaffolds). */
  tools?: ToolSpec[],
  /**
   * What the call does and what it shows (a decomposition, a critique of a draft, a chain step,
   * ...), sent with the request: the simulated panel answers each kind of sub-call by it.
   */
  does?: SubCall,
) => Promise<GenerateResult>;

/**
 * Runs one tool call in the trial's toolbox and records it as a sub-call of role "tool" (the
 * calling role, tool name, arguments, output, error, limit hit and duration in its note).
 */
export type ScaffoldToolCall = (callerRole: string, call: ToolCall) => Promise<ToolResult>;

export interface ScaffoldContext {
  task: TaskInput;
  /** Decoding parameters of the model for this trial (before the provider's policy). */
  params: GenerationParams;
  call: ScaffoldCall;
  /**
   * Attaches a note to the most recent sub-call (a parsed decomposition, a critic verdict, ...).
   * Optional: callers that do not store notes may leave it out.
   */
  annotate?: (note: Record<string, unknown>) => void;
  /** The trial's toolbox, for scaffolds that declare `tools` (the runner creates and disposes it). */
  tools?: Toolbox;
  /** Runs and records a tool call; present whenever `tools` is. */
  callTool?: ScaffoldToolCall;
  /** The task's attachments, by file name, as copied into the toolbox's work dir. */
  attachments?: readonly string[];
}

/** Parameters of the scaffold's facet value, e.g. {name: "react", max_iterations: 3}. */
export type ScaffoldSettings = Readonly<Record<string, string | number | boolean | null>>;

export interface ScaffoldRun {
  /** The text the scorer reads (the last answer of the scaffold). */
  finalText: string;
}

export interface Scaffold {
  name: string;
  /**
   * The settings a facet value may carry (everything but `name`), strict: the spec is refused
   * at load when a value has a setting this schema does not declare (`max_rounds` for `rounds`).
   */
  settingsSchema: z.ZodType;
  /** Expected sub-calls per trial (an upper bound for loops), for `plan`'s call and cost estimates. */
  expectedCalls(settings: ScaffoldSettings): number;
  run(context: ScaffoldContext, settings: ScaffoldSettings): Promise<ScaffoldRun>;
  /** The tools this scaffold offers (agent scaffolds): the runner then gives each trial a toolbox. */
  tools?: readonly string[];
}
