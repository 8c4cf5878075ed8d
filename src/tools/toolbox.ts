import { spawnSync } from "node:child_process";
// fs.promises, not node:fs/promises: Node loads it (and readline with it) on first use, not with `plan`.
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import * as z from "zod";
import type { ToolCall, ToolSpec } from "../contracts/provider.js";
import type { SandboxLimits, Toolbox, ToolResult } from "../contracts/tool.js";
import { InputError } from "../core/errors.js";
import { staleEntries } from "../core/stale.js";
import { tools as registeredTools } from "./registry.js";
import { DEFAULT_SANDBOX_LIMITS, runSandboxed, runsAsRoot, sandboxUid, toolResultOf } from "./sandbox.js";
import type { AnyTool, ToolContext } from "./types.js";

import type { WebBackend } from "./web/types.js";

/** Prefix of a trial's work dir in its parent (the OS temp dir unless set). */
export const WORK_DIR_PREFIX = "parallax-trial-";
const MOUNT_PATH = "/usr/bin/mount";
const UMOUNT_PATH = "/usr/bin/umount";
const MIB = 1024 * 1024;

export interface ToolboxOptions {
  /** Names of the tools offered (default: every registered tool). */
  tools?: readonly string[];
  /** Limits of each sandboxed call; missing ones take `DEFAULT_SANDBOX_LIMITS`. */
  limits?: Partial<SandboxLimits>;
  /** Host paths of the task's files (GAIA: `metadata.attachment_path`), copied into the work dir. */
  attachments?: readonly string[];
  /** Backend of `web_search`/`web_fetch`; without one they answer that the web is unavailable. */
  webBackend?: WebBackend;
  /** Parent of the work dir (default: the OS temp dir). */
  parentDir?: string;
}

/** A fresh toolbox for one trial: its own work dir with the attachments, its own sandbox uid. */
export async function createToolbox(options: ToolboxOptions = {}): Promise<Toolbox> {
  const offered = new Map((options.tools ?? registeredTools.names()).map((name) => [name, registeredTools.get(name)]));
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const uid = runsAsRoot() ? sandboxUid() : undefined;
  const attachments = await checkedAttachments(options.attachments ?? []);
  const parentDir = options.parentDir ?? tmpdir();
  await removeStaleWorkDirs(parentDir);
  // Named after this process, so the next one can tell a killed run's work dirs from live ones.
  const workDir = await fs.mkdtemp(join(parentDir, `${WORK_DIR_PREFIX}${process.pid}-`));
  const ownFile = async (path: string) => {
    if (uid !== undefined) await fs.chown(path, uid, uid);
  };
  // The attachments come in on top of the work dir's own room.
  if (uid !== undefined) mountSizedWorkDir(workDir, limits.diskMb * MIB + attachments.bytes, uid);
  await fs.chmod(workDir, 0o700);
  await ownFile(workDir);
  for (const attachment of attachments.paths) {
    const copy = join(workDir, basename(attachment));
    await fs.copyFile(attachment, copy);
    await ownFile(copy);
  }
  const context: ToolContext = {
    workDir,
    limits,
    ownFile,
    web: options.webBackend,
    runInSandbox: async (argv, stdin) =>
      toolResultOf(await runSandboxed({ workDir, argv, limits, uid, stdin }), limits),
  };
  return {
    workDir,
    specs: (names) => (names ?? [...offered.keys()]).map((name) => toolSpec(offeredTool(offered, name))),
    invoke: (call) => invokeTool(offered, call, context),
    dispose: () => removeWorkDir(workDir),
  };
}

function offeredTool(offered: ReadonlyMap<string, AnyTool>, name: string): AnyTool {
  const tool = offered.get(name);
  if (tool === undefined)
    throw new InputError(`tool '${name}' is not in this toolbox; offered: ${[...offered.keys()].join(", ")}`);
  return tool;
}

/** The provider-neutral spec of a tool: its arguments schema as JSON Schema. */
export function toolSpec(tool: AnyTool): ToolSpec {
  const { $schema: _, ...parameters } = z.toJSONSchema(tool.argumentsSchema) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, parameters };
}

/** One call: arguments parsed and checked, the tool run; every failure becomes an observation. */
async function invokeTool(
  offered: ReadonlyMap<string, AnyTool>,
  call: ToolCall,
  context: ToolContext,
): Promise<ToolResult> {
  const started = performance.now();
  const done = (result: Omit<ToolResult, "durationMs">): ToolResult => ({
    ...result,
    durationMs: performance.now() - started,
  });
  const tool = offered.get(call.name);
  if (tool === undefined) {
    return done(failure(`unknown tool '${call.name}'; available tools: ${[...offered.keys()].join(", ")}`));
  }
  const args = parseArguments(tool, call.arguments);
  if ("problem" in args) return done(failure(args.problem));
  try {
    return done(await tool.run(args.value, context));
  } catch (error) {
    return done(failure(`${tool.name} failed: ${(error as Error).message}`));
  }
}

function parseArguments(tool: AnyTool, text: string): { value: unknown } | { problem: string } {
  let json: unknown;
  try {
    json = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    return { problem: `the arguments of ${tool.name} are not valid JSON (${(error as Error).message})` };
  }
  const parsed = tool.argumentsSchema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(arguments)"}: ${issue.message}`,
  );
  return { problem: `bad arguments for ${tool.name}: ${issues.join("; ")}` };
}

function failure(message: string): Omit<ToolResult, "durationMs"> {
  return { output: `Error: ${message}`, error: message };
}

async function checkedAttachments(paths: readonly string[]): Promise<{ paths: string[]; bytes: number }> {
  const names = new Set<string>();
  let bytes = 0;
  for (const path of paths) {
    const stats = await fs.stat(path).catch(() => undefined);
    if (!stats?.isFile()) throw new InputError(`attachment '${path}' is not a readable file`);
    if (names.has(basename(path)))
      throw new InputError(`two attachments are named '${basename(path)}'; the work dir holds one file per name`);
    names.add(basename(path));
    bytes += stats.size;
  }
  return { paths: [...paths], bytes };
}

/**
 * As root, the work dir is a tmpfs of the disk limit's size, owned by the trial's uid: what the
 * sandbox writes cannot outgrow it, and it is gone with the trial. Where mounting is refused (a
 * container without CAP_SYS_ADMIN), the work dir stays a plain directory and only the per-file
 * limit (RLIMIT_FSIZE) holds.
 */
function mountSizedWorkDir(workDir: string, bytes: number, uid: number): void {
  const options = `size=${bytes},mode=0700,uid=${uid},gid=${uid},nosuid,nodev`;
  spawnSync(MOUNT_PATH, ["-t", "tmpfs", "-o", options, "parallax-trial", workDir], { stdio: "ignore" });
}

const sweptParents = new Set<string>();

/** Once per process and parent: removes the work dirs of processes that are gone (a killed run's). */
async function removeStaleWorkDirs(parentDir: string): Promise<void> {
  if (sweptParents.has(parentDir)) return;
  sweptParents.add(parentDir);
  for (const stale of staleEntries(parentDir, WORK_DIR_PREFIX)) await removeWorkDir(stale);
}

/** Whether the path is a mount point (its device differs from its parent's). */
async function isMountPoint(path: string): Promise<boolean> {
  const [own, parent] = await Promise.all([fs.stat(path).catch(() => undefined), fs.stat(dirname(path))]);
  return own !== undefined && own.dev !== parent.dev;
}

/** Removes the work dir (unmounting its tmpfs first), even when the sandboxed code made parts of it unwritable. */
export async function removeWorkDir(workDir: string): Promise<void> {
  if (await isMountPoint(workDir)) spawnSync(UMOUNT_PATH, ["--lazy", workDir], { stdio: "ignore" });
  try {
    await fs.rm(workDir, { recursive: true, force: true });
  } catch {
    spawnSync("chmod", ["-R", "u+rwX", workDir]);
    await fs.rm(workDir, { recursive: true, force: true });
  }
}
