/**
 * Locates the shared test GGUF (stories260K) for the llama provider tests: $PARALLAX_SHARED_DIR
 * if set, else ../shared next to the repository. Tests skip with `skipReason` when absent, so
 * the suite still passes on a machine without the shared materials.
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const sharedDir = resolve(process.env.PARALLAX_SHARED_DIR ?? resolve(repoRoot, "..", "shared"));

/** Absolute path of a model in <shared>/models, or undefined when it is not there. */
export function sharedModel(name: string): string | undefined {
  const path = resolve(sharedDir, "models", name);
  return existsSync(path) ? path : undefined;
}

export function skipReason(name: string): string | false {
  return sharedModel(name) === undefined
    ? `${name} not found in ${resolve(sharedDir, "models")} (set PARALLAX_SHARED_DIR to the shared materials folder)`
    : false;
}
