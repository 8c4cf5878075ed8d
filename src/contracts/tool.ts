import type { ToolCall, ToolSpec } from "./provider.js";

/**
 * The tool contract of the agent scaffolds (GAIA study): what a tool is, what one
 * call of it returns, and the per-trial toolbox a scaffold receives. Types only; the tools live
 * in `src/tools/` (one file each, behind a registry) and run in a bubblewrap sandbox.
 */

/** Limits of one sandboxed tool call (from the spec's `agents.sandbox`, with defaults). */
export interface SandboxLimits {
  /** CPU seconds (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Wall-clock seconds; the process group is killed after it. */
  wallSeconds: number;
  /** Bytes of stdout+stderr kept; the rest is cut and the cut is marked. */
  outputBytes: number;
  /** Processes the call may have at once (RLIMIT_NPROC). */
  maxProcesses: number;
  /** Address space of each process in the call, in MiB (RLIMIT_AS). */
  memoryMb: number;
  /** Size of the trial's work dir in MiB (a tmpfs of that size when Parallax runs as root), and of any one file (RLIMIT_FSIZE). */
  diskMb: number;
  /** Size of the call's private /tmp and /dev/shm in MiB (tmpfs, i.e. memory). */
  tmpMb: number;
}

/** What one tool call returned: always an observation for the model, never a thrown error. */
export interface ToolResult {
  /** The observation text given back to the model. */
  output: string;
  /** Set when the call failed (bad arguments, non-zero exit, time limit, unknown tool). */
  error?: string;
  /**
   * Set when the sandbox itself failed (bubblewrap missing or broken, bwrap or prlimit failing
   * before the command ran): the call says nothing about the model, and its trial errors.
   */
  infrastructureError?: string;
  /** The limit that stopped it, if any. */
  limitHit?: "cpu" | "wall" | "output" | "processes" | "memory" | "disk";
  /** The answer, for `submit_answer`. */
  answer?: string;
  /** The rater's verdict, for `submit_verdict`. */
  verdict?: { done: boolean; reason: string };
  durationMs: number;
}

/** The per-trial toolbox handed to an agent scaffold: the tools it may use, in a work dir of its own. */
export interface Toolbox {
  /** The tools offered, as provider-neutral specs (JSON Schema arguments). */
  specs(names?: readonly string[]): ToolSpec[];
  /** Runs one tool call in the sandbox; errors come back as `ToolResult.error`, never thrown. */
  invoke(call: ToolCall): Promise<ToolResult>;
  /** The trial's work dir (attachments copied in). */
  readonly workDir: string;
  /** Removes the work dir. */
  dispose(): Promise<void>;
}
