import type { AgentsSpec } from "../contracts/spec.js";
import type { SandboxLimits } from "../contracts/tool.js";
import type { ToolboxOptions } from "./toolbox.js";
import { webBackends } from "./web/registry.js";

/** The spec's `agents.sandbox` as the contract's limits. */
export function sandboxLimitsOf(sandbox: AgentsSpec["sandbox"]): SandboxLimits {
  return {
    cpuSeconds: sandbox.cpu_seconds,
    wallSeconds: sandbox.wall_seconds,
    outputBytes: sandbox.output_bytes,
    maxProcesses: sandbox.max_processes,
    memoryMb: sandbox.memory_mb,
    diskMb: sandbox.disk_mb,
    tmpMb: sandbox.tmp_mb,
  };
}

/**
 * The toolbox options a run shares across its trials (each trial adds its own attachments): the
 * offered tools, the limits, and the web backend built once (relative paths from the spec's dir).
 */
export function toolboxOptionsOf(
  agents: AgentsSpec | undefined,
  context: { specDir: string; env?: NodeJS.ProcessEnv },
): Omit<ToolboxOptions, "attachments"> {
  if (agents === undefined) return {};
  const { backend, ...settings } = agents.web ?? {};
  return {
    tools: agents.tools,
    limits: sandboxLimitsOf(agents.sandbox),
    webBackend: backend === undefined ? undefined : webBackends.get(backend).create(settings, context),
  };
}
