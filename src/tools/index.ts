export { bwrapArgs, DEFAULT_SANDBOX_LIMITS, runSandboxed, SANDBOX_WORK_DIR, sandboxAvailability } from "./sandbox.js";
export { tools } from "./registry.js";
export { createToolbox, type ToolboxOptions, toolSpec } from "./toolbox.js";
export type { AnyTool, Tool, ToolContext } from "./types.js";
export type { SearchHit, WebBackend, WebPage } from "./web/types.js";
export { type WebBackendDescriptor, webBackends } from "./web/registry.js";
export { sandboxLimitsOf, toolboxOptionsOf } from "./from-spec.js";
