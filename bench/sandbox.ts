/**
 * npm run bench:sandbox — the cost of running a tool call in the bubblewrap sandbox.
 * Interleaves, N times (default 30, `-- --runs N`): a trivial `bash` call and a `python` call
 * through a toolbox (sandboxed, as a trial makes them), the same commands spawned bare (no
 * sandbox) from Node, bwrap alone running `true` (namespaces and mounts, without the prlimit
 * and setpriv steps), and a host-side `text_editor` view. Reports median/min/max wall ms per case
 * and the sandbox overhead (median sandboxed - median bare). Wall times on a shared machine follow
 * its load, so the load average before and after is printed with them. Prints Markdown.
 */
import { spawn } from "node:child_process";
import { chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Toolbox } from "../src/contracts/tool.js";
import { BWRAP_PATH, bwrapArgs, runsAsRoot, sandboxUid } from "../src/tools/sandbox.js";
import { createToolbox } from "../src/tools/toolbox.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "30" } } });
const runs = Number(values.runs);
const PYTHON = "/usr/bin/python3";

function spawnBare(argv: string[], uid?: number): Promise<void> {
  const identity = uid === undefined ? {} : { uid, gid: uid };
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], env: {}, ...identity });
    child.stdin.end();
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${argv.join(" ")} exited ${code}`))));
  });
}

async function invoked(box: Toolbox, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await box.invoke({ id: "bench", name, arguments: JSON.stringify(args) });
  if (result.error !== undefined) throw new Error(`${name}: ${result.output}`);
}

const box = await createToolbox({ tools: ["bash", "python", "text_editor"] });
// bwrap alone needs a work dir and (as root) a uid of its own, as the toolbox gives its sandbox.
const bareUid = runsAsRoot() ? sandboxUid() : undefined;
const bareDir = mkdtempSync(join(tmpdir(), "parallax-bench-sandbox-"));
if (bareUid !== undefined) chownSync(bareDir, bareUid, bareUid);
await invoked(box, "text_editor", { command: "create", path: "notes.txt", file_text: "one\ntwo\nthree\n" });
const cases: Record<string, () => Promise<void>> = {
  "bash `true`, bare": () => spawnBare(["bash", "-c", "true"]),
  "bwrap alone, `true`": () => spawnBare([BWRAP_PATH, ...bwrapArgs(bareDir), "--", "true"], bareUid),
  "bash `true`, sandboxed": () => invoked(box, "bash", { cmd: "true" }),
  "python `pass`, bare": () => spawnBare([PYTHON, "-c", "pass"]),
  "python `pass`, sandboxed": () => invoked(box, "python", { code: "pass" }),
  "text_editor view (host side)": () => invoked(box, "text_editor", { command: "view", path: "notes.txt" }),
};
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const loadBefore = load();
const times = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
for (let run = 0; run < runs; run++) {
  for (const [name, once] of Object.entries(cases)) {
    const started = performance.now();
    await once();
    times.get(name)?.push(performance.now() - started);
  }
}
const loadAfter = load();
await box.dispose();
rmSync(bareDir, { recursive: true, force: true });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x: number) => x.toFixed(1);
console.log(
  `Sandbox overhead per tool call, ${runs} interleaved runs per case; load average ${loadBefore} before, ${loadAfter} after.\n`,
);
console.log("| case | median ms | min ms | max ms |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, xs] of times) {
  console.log(`| ${name} | ${fmt(median(xs))} | ${fmt(Math.min(...xs))} | ${fmt(Math.max(...xs))} |`);
}
const overhead = (tool: string) =>
  median(times.get(`${tool}, sandboxed`) ?? []) - median(times.get(`${tool}, bare`) ?? []);
console.log(
  `\nSandbox overhead (median sandboxed - median bare): bash ${fmt(overhead("bash `true`"))} ms, python ${fmt(overhead("python `pass`"))} ms.`,
);
