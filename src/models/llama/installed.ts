/**
 * The local-model engine (node-llama-cpp) is an optional part of Parallax: an install for API
 * models leaves it out, with its prebuilt binaries. A spec that uses `provider: llama` without
 * it is refused at load, naming the command that installs the CPU build.
 */
import { createRequire } from "node:module";
import type { SpecEntryProblem } from "../types.js";

/** The command that installs the engine's CPU build into this checkout (scripts/setup-llama.mjs). */
export const LLAMA_ENGINE_INSTALL = "npm run setup:llama";

type Resolve = (specifier: string) => string;

/** True when node-llama-cpp resolves from here (the checkout's node_modules, or the user's). */
export function llamaEngineInstalled(resolve: Resolve = createRequire(import.meta.url).resolve): boolean {
  try {
    resolve("node-llama-cpp");
    return true;
  } catch {
    return false;
  }
}

export function llamaEngineMissingMessage(): string {
  return `the llama provider needs the local-model engine node-llama-cpp, which is not installed: run \`${LLAMA_ENGINE_INSTALL}\` (the CPU build), or \`npm install node-llama-cpp\` in a project that uses Parallax as a package`;
}

/** The missing engine, reported at the model entry's `provider` field. */
export function llamaEngineProblems(resolve?: Resolve): SpecEntryProblem[] {
  return llamaEngineInstalled(resolve) ? [] : [{ path: ["provider"], message: llamaEngineMissingMessage() }];
}
