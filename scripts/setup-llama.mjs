#!/usr/bin/env node
// Installs the local-model engine, node-llama-cpp, with the CPU build for this machine only.
//
// node-llama-cpp is an optional peer dependency: `npm ci` leaves it out, because its package
// pulls every prebuilt binary (CUDA, Vulkan, other architectures: about 680 MB) as optional
// dependencies. npm can omit optional dependencies only for a whole tree, and the main tree
// needs its own (esbuild's and Biome's binaries), so the engine gets a tree of its own,
// node_modules/.llama-engine, installed without optional dependencies plus the one CPU build,
// and node_modules/node-llama-cpp links to it. `npm ci` removes both; run this again after it.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const version = pkg.peerDependencies["node-llama-cpp"];

/** node-llama-cpp's CPU build for each platform-arch (its package names; macOS arm64 is Metal). */
const CPU_BUILDS = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "linux-arm": "linux-armv7l",
  "darwin-arm64": "mac-arm64-metal",
  "darwin-x64": "mac-x64",
  "win32-x64": "win-x64",
  "win32-arm64": "win-arm64",
};
const platform = `${process.platform}-${process.arch}`;
const build = CPU_BUILDS[platform];
if (!build) {
  console.error(`setup:llama: node-llama-cpp has no prebuilt CPU build for ${platform}`);
  process.exit(2);
}

const engineDir = join(root, "node_modules", ".llama-engine");
const link = join(root, "node_modules", "node-llama-cpp");
rmSync(engineDir, { recursive: true, force: true });
rmSync(link, { recursive: true, force: true });
mkdirSync(engineDir, { recursive: true });
writeFileSync(join(engineDir, "package.json"), `${JSON.stringify({ private: true }, null, 2)}\n`);

const packages = [`node-llama-cpp@${version}`, `@node-llama-cpp/${build}@${version}`];
console.log(`setup:llama: installing ${packages.join(" and ")} into node_modules/.llama-engine`);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const installed = spawnSync(
  npm,
  ["install", "--omit=optional", "--no-package-lock", "--no-audit", "--no-fund", ...packages],
  { cwd: engineDir, stdio: "inherit", shell: process.platform === "win32" },
);
if (installed.status !== 0) {
  console.error("setup:llama: npm install failed (see above); nothing was linked");
  process.exit(installed.status ?? 1);
}
symlinkSync(join(".llama-engine", "node_modules", "node-llama-cpp"), link, "junction");

// The engine must load its binary here, without downloading or building anything.
const lib = await import("node-llama-cpp");
const llama = await lib.getLlama({ gpu: false, build: "never", skipDownload: true, logLevel: lib.LlamaLogLevel.error });
console.log(`setup:llama: node-llama-cpp ${version} loads its ${llama.buildType} CPU build (${build})`);
await llama.dispose();
