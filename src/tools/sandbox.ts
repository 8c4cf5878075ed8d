import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxLimits, ToolResult } from "../contracts/tool.js";
import { seccompFilter } from "./seccomp.js";

/**
 * One command run in a bubblewrap sandbox: no network (its own network namespace), the system
 * directories read-only, the trial's work dir the only writable place besides a private /tmp and
 * /dev/shm, a clean environment, no nested user namespaces, a seccomp filter, and CPU, wall-time,
 * output, process, memory and file-size limits. Every failure (non-zero exit, a limit, a spawn
 * error) is returned as data, never thrown.
 */

export const BWRAP_PATH = "/usr/bin/bwrap";
/** Environment variable that points Parallax at another bubblewrap (a wrapper, or a test's stand-in). */
export const BWRAP_ENV = "PARALLAX_BWRAP";
const INSTALL_HINT =
  "Install it with `apt-get install bubblewrap` (Debian/Ubuntu) or your distribution's bubblewrap package";
/** util-linux's prlimit, which sets the limits bwrap and the command inherit. */
export const PRLIMIT_PATH = "/usr/bin/prlimit";
/** Where the trial's work dir appears inside the sandbox (fixed, so observations do not carry host paths). */
export const SANDBOX_WORK_DIR = "/workspace";
const SANDBOX_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: SANDBOX_WORK_DIR,
  LANG: "C.UTF-8",
  PYTHONDONTWRITEBYTECODE: "1",
};
const MIB = 1024 * 1024;
/** Exit statuses of a process killed by a signal, as bwrap reports them (128 + signal). */
const EXIT_SIGXCPU = 128 + 24;
const EXIT_SIGXFSZ = 128 + 25;
const EXIT_SIGKILL = 128 + 9;
/** Messages by which a command reports a refused fork (RLIMIT_NPROC): bash, dash, python, coreutils. */
const FORK_REFUSED =
  /fork: (retry: )?Resource temporarily unavailable|Cannot fork|can't fork|BlockingIOError: \[Errno 11\]/;
/** Messages by which a command reports a refused allocation (RLIMIT_AS): python, bash, C, C++. */
const MEMORY_REFUSED = /MemoryError|Cannot allocate memory|cannot allocate|std::bad_alloc|[Oo]ut of memory/;
/** Messages by which a command reports a full work dir, /tmp or /dev/shm, or a file over RLIMIT_FSIZE. */
const DISK_REFUSED = /No space left on device|File too large|File size limit exceeded|Errno 28\]|Errno 27\]/;

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = {
  cpuSeconds: 30,
  wallSeconds: 60,
  outputBytes: 16_384,
  maxProcesses: 64,
  memoryMb: 2048,
  diskMb: 512,
  tmpMb: 256,
};

export interface SandboxRequest {
  /** Host path of the trial's work dir, bound read-write at `SANDBOX_WORK_DIR`. */
  workDir: string;
  argv: readonly string[];
  limits: SandboxLimits;
  /** Unprivileged uid the sandbox runs as when Parallax runs as root (see `sandboxUid`). */
  uid?: number;
  /** Text written to the command's stdin. */
  stdin?: string;
  /** bubblewrap's path (default `configuredBwrapPath()`). */
  bwrapPath?: string;
}

export interface SandboxRun {
  /** stdout and stderr interleaved as they arrived, cut at `outputBytes`. */
  output: string;
  exitCode: number | null;
  limitHit?: ToolResult["limitHit"];
  /** Set when bwrap could not be started at all. */
  spawnError?: string;
  /** Set when bwrap started but the sandbox failed before the command ran (bwrap's or prlimit's own error). */
  setupError?: string;
  durationMs: number;
}

/** bubblewrap's path: `PARALLAX_BWRAP` when set, else `BWRAP_PATH`. */
export function configuredBwrapPath(env: NodeJS.ProcessEnv = process.env): string {
  return env[BWRAP_ENV] || BWRAP_PATH;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether bubblewrap and prlimit are installed; the message says how to install them when not. */
export function sandboxAvailability(bwrapPath = configuredBwrapPath()): { ok: true } | { ok: false; message: string } {
  if (!existsSync(bwrapPath)) {
    return {
      ok: false,
      message: `bubblewrap (${bwrapPath}) is not installed; the agent tools run every call in it. ${INSTALL_HINT}.`,
    };
  }
  if (!executable(bwrapPath)) {
    return {
      ok: false,
      message: `bubblewrap (${bwrapPath}) is not executable; the agent tools run every call in it. ${INSTALL_HINT}.`,
    };
  }
  if (!existsSync(PRLIMIT_PATH)) {
    return {
      ok: false,
      message: `prlimit (${PRLIMIT_PATH}, from util-linux) is not installed; it sets the sandbox's CPU and process limits. Install it with \`apt-get install util-linux\`.`,
    };
  }
  return { ok: true };
}

/**
 * Whether the sandbox works here: bubblewrap is installed and one trivial command runs in a sandbox
 * built exactly as a tool call's is (a container may forbid its namespaces, or AppArmor its user
 * namespace). The message names bubblewrap, what went wrong and how to install it.
 */
export async function probeSandbox(
  bwrapPath = configuredBwrapPath(),
): Promise<{ ok: true } | { ok: false; message: string }> {
  const availability = sandboxAvailability(bwrapPath);
  if (!availability.ok) return availability;
  const workDir = await fs.mkdtemp(join(tmpdir(), "parallax-sandbox-probe-"));
  // As a trial's would: as root, under an unprivileged uid that owns the work dir.
  const uid = runsAsRoot() ? sandboxUid() : undefined;
  try {
    if (uid !== undefined) await fs.chown(workDir, uid, uid);
    const run = await runSandboxed({ workDir, argv: ["true"], limits: DEFAULT_SANDBOX_LIMITS, bwrapPath, uid });
    const failure =
      run.spawnError ?? run.setupError ?? (run.exitCode === 0 ? undefined : `exit status ${run.exitCode}`);
    if (failure === undefined) return { ok: true };
    return {
      ok: false,
      message: `bubblewrap (${bwrapPath}) does not run a sandbox here: ${oneLine(failure)}. The agent tools run every call in it. ${INSTALL_HINT}; in a container, allow user namespaces (see docs/TOOLS.md).`,
    };
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, "; ");
}

/** Whether the sandbox must start as a per-trial uid (as root, RLIMIT_NPROC would not bind). */
export function runsAsRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/**
 * A uid for one trial's sandbox when running as root: RLIMIT_NPROC never binds for root, so each
 * trial runs as its own unprivileged uid (a random one in a range no real account uses), which
 * also owns the trial's work dir. The limit is set inside the sandbox's user namespace and counts
 * only its processes, so two trials that drew the same uid would still not share a budget.
 */
export function sandboxUid(): number {
  return 1_000_000 + Math.floor(Math.random() * 1_000_000);
}

/**
 * The bwrap argument list: namespaces (a user namespace too, so bwrap needs no privilege, in
 * which no further one can be made), mounts, environment. /dev is bwrap's minimal device tree,
 * read-only so that nothing can be stored in it; /tmp and /dev/shm are tmpfs of `tmpMb`.
 */
export function bwrapArgs(workDir: string, tmpMb = DEFAULT_SANDBOX_LIMITS.tmpMb): string[] {
  const systemDirs = ["/usr", "/etc"].flatMap((dir) => ["--ro-bind", dir, dir]);
  const usrMerged = ["bin", "lib", "lib64", "sbin"].flatMap((dir) =>
    existsSync(`/usr/${dir}`) ? ["--symlink", `usr/${dir}`, `/${dir}`] : [],
  );
  const env = Object.entries(SANDBOX_ENV).flatMap(([name, value]) => ["--setenv", name, value]);
  return [
    ...[
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--cap-drop",
      "ALL",
      "--die-with-parent",
      "--new-session",
    ],
    ...systemDirs,
    ...usrMerged,
    ...["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"],
    ...["--perms", "1777", "--size", String(tmpMb * MIB), "--tmpfs", "/dev/shm"],
    ...["--perms", "1777", "--size", String(tmpMb * MIB), "--tmpfs", "/tmp"],
    ...["--bind", workDir, SANDBOX_WORK_DIR, "--remount-ro", "/", "--chdir", SANDBOX_WORK_DIR],
    "--clearenv",
    ...env,
  ];
}

/** File descriptor on which bwrap reads the seccomp filter (the child's fourth stdio entry). */
const SECCOMP_FD = 3;
/** File descriptor on which the sandbox reports that the command is about to start (the fifth stdio entry). */
const STARTED_FD = 4;
/**
 * Run inside the sandbox once bwrap and prlimit have set it up: one byte on `STARTED_FD`, the
 * descriptor closed, then the command. Without that byte, the sandbox failed before the command
 * ran (an infrastructure failure, whatever the exit status), never the command's own failure.
 */
const STARTED_SCRIPT = `printf x >&${STARTED_FD}; exec ${STARTED_FD}>&-; exec "$@"`;

/**
 * The whole command line: bwrap, then prlimit inside it setting the CPU, process, address-space
 * and file-size limits the command inherits, then the started marker and the command. Set inside
 * the user namespace, the process limit counts only the processes in it (bwrap's init included),
 * not the uid's processes elsewhere; it binds because the uid is not root (see `sandboxUid`).
 */
export function sandboxCommand(
  workDir: string,
  argv: readonly string[],
  limits: SandboxLimits,
  bwrapPath = configuredBwrapPath(),
): string[] {
  const cpu = Math.max(1, Math.ceil(limits.cpuSeconds));
  // Soft CPU limit sends SIGXCPU (recognisable); the hard one a second later kills a process that ignores it.
  const prlimit = [
    PRLIMIT_PATH,
    `--cpu=${cpu}:${cpu + 1}`,
    `--nproc=${limits.maxProcesses}`,
    `--as=${limits.memoryMb * MIB}`,
    `--fsize=${limits.diskMb * MIB}`,
    "--",
  ];
  const seccomp = ["--seccomp", String(SECCOMP_FD)];
  const started = ["/bin/sh", "-c", STARTED_SCRIPT, "sh"];
  return [bwrapPath, ...bwrapArgs(workDir, limits.tmpMb), ...seccomp, "--", ...prlimit, ...started, ...argv];
}

/** Runs one command in the sandbox. Never throws. */
export function runSandboxed(request: SandboxRequest): Promise<SandboxRun> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const bwrapPath = request.bwrapPath ?? configuredBwrapPath();
  const availability = sandboxAvailability(bwrapPath);
  if (!availability.ok)
    return Promise.resolve({ output: "", exitCode: null, spawnError: availability.message, durationMs: 0 });
  const [command, ...args] = sandboxCommand(request.workDir, request.argv, request.limits, bwrapPath);
  // As root, the sandbox starts as the trial's own uid (RLIMIT_NPROC never binds for root).
  const identity = request.uid === undefined ? {} : { uid: request.uid, gid: request.uid };
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"],
      detached: true,
      env: {},
      ...identity,
    });
    const filterPipe = child.stdio[SECCOMP_FD] as NodeJS.WritableStream & { on(e: "error", f: () => void): void };
    filterPipe.on("error", () => {}); // bwrap that failed to start reads nothing
    filterPipe.end(seccompFilter());
    let commandStarted = false;
    child.stdio[STARTED_FD]?.on("data", () => {
      commandStarted = true;
    });
    const output = new OutputCap(request.limits.outputBytes);
    let limitHit: SandboxRun["limitHit"];
    const killAll = (reason: NonNullable<SandboxRun["limitHit"]>) => {
      limitHit ??= reason;
      killGroup(child.pid);
    };
    const wallTimer = setTimeout(() => killAll("wall"), request.limits.wallSeconds * 1000);
    const onData = (chunk: Buffer) => {
      if (!output.add(chunk)) killAll("output");
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.stdin.on("error", () => {}); // the command may exit without reading its stdin
    child.stdin.end(request.stdin ?? "");
    child.on("error", (error) => {
      clearTimeout(wallTimer);
      resolve({
        output: output.text(),
        exitCode: null,
        spawnError: `could not start bwrap: ${error.message}`,
        durationMs: elapsed(),
      });
    });
    child.on("close", (code, signal) => {
      clearTimeout(wallTimer);
      const exitCode = code ?? (signal === null ? null : 128 + signalNumber(signal));
      const text = output.text();
      if (!commandStarted) {
        resolve({ output: text, exitCode, setupError: setupErrorOf(text, exitCode, limitHit), durationMs: elapsed() });
        return;
      }
      resolve({
        output: text,
        exitCode,
        limitHit: limitHit ?? inferredLimit(exitCode, text, request.limits, elapsed()),
        durationMs: elapsed(),
      });
    });
  });
}

/** What bwrap (or prlimit) said when the sandbox failed before the command started. */
function setupErrorOf(output: string, exitCode: number | null, limitHit: SandboxRun["limitHit"]): string {
  const said = output.trim();
  const status = limitHit === undefined ? `exit status ${exitCode}` : `killed at its ${limitHit} limit`;
  return `the sandbox failed before the command started (${status})${said === "" ? "" : `: ${said}`}`;
}

/** Kills the sandbox's process group; bwrap's PID namespace takes every process inside with it. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  return signal === "SIGKILL" ? 9 : signal === "SIGXCPU" ? 24 : signal === "SIGXFSZ" ? 25 : 15;
}

/** The limit a finished command ran into, read from its exit status and output. */
function inferredLimit(
  exitCode: number | null,
  output: string,
  limits: SandboxLimits,
  durationMs: number,
): SandboxRun["limitHit"] {
  if (exitCode === EXIT_SIGXCPU) return "cpu";
  // A SIGKILL from the hard CPU limit (a process that ignored SIGXCPU) needs at least that much time.
  if (exitCode === EXIT_SIGKILL && durationMs >= limits.cpuSeconds * 1000) return "cpu";
  if (exitCode === EXIT_SIGXFSZ) return "disk";
  if (FORK_REFUSED.test(output)) return "processes";
  // A command that handled a refused allocation or write and succeeded hit no limit.
  if (exitCode === 0) return undefined;
  if (MEMORY_REFUSED.test(output)) return "memory";
  if (DISK_REFUSED.test(output)) return "disk";
  return undefined;
}

/** Collects output up to a byte cap; `add` returns false once the cap is exceeded. */
class OutputCap {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private cut = false;

  constructor(private readonly cap: number) {}

  add(chunk: Buffer): boolean {
    if (this.cut) return false;
    const room = this.cap - this.kept;
    if (chunk.length > room) {
      this.chunks.push(chunk.subarray(0, room));
      this.kept = this.cap;
      this.cut = true;
      return false;
    }
    this.chunks.push(chunk);
    this.kept += chunk.length;
    return true;
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    return this.cut ? `${text}\n[output cut at ${this.cap} bytes]` : text;
  }
}

/** The observation for the model from one sandboxed run. */
export function toolResultOf(run: SandboxRun, limits: SandboxLimits): ToolResult {
  const base = { output: run.output, durationMs: run.durationMs };
  // The sandbox itself failed: the observation says nothing about the model's command.
  const infrastructure = run.spawnError ?? run.setupError;
  if (infrastructure !== undefined)
    return { ...base, output: infrastructure, error: infrastructure, infrastructureError: infrastructure };
  if (run.limitHit !== undefined) {
    const message = limitMessage(run.limitHit, limits);
    return { ...base, output: joinLines(run.output, message), error: message, limitHit: run.limitHit };
  }
  if (run.exitCode !== 0) {
    const message = `exit status ${run.exitCode}`;
    return { ...base, output: joinLines(run.output, `[${message}]`), error: message };
  }
  return base;
}

function limitMessage(limit: NonNullable<ToolResult["limitHit"]>, limits: SandboxLimits): string {
  switch (limit) {
    case "cpu":
      return `[killed: CPU time limit of ${limits.cpuSeconds} s reached]`;
    case "wall":
      return `[killed: wall time limit of ${limits.wallSeconds} s reached]`;
    case "output":
      return `[killed: output exceeded ${limits.outputBytes} bytes]`;
    case "processes":
      return `[process limit of ${limits.maxProcesses} reached: fork refused]`;
    case "memory":
      return `[memory limit of ${limits.memoryMb} MiB per process reached: allocation refused]`;
    case "disk":
      return `[disk limit reached: the work dir holds ${limits.diskMb} MiB, /tmp and /dev/shm ${limits.tmpMb} MiB each]`;
  }
}

function joinLines(text: string, line: string): string {
  return text === "" ? line : text.endsWith("\n") ? `${text}${line}` : `${text}\n${line}`;
}
