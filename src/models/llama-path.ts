/**
 * Where the llama provider finds a model's GGUF file, and the load-time check that it is there,
 * so `plan` and `run` refuse a missing file before anything is written.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ModelSpec } from "../contracts/spec.js";
import type { SpecEntryProblem } from "./types.js";

/** The directory relative model paths resolve against: options.baseDir, base_dir, else the working directory. */
export function llamaBaseDir(options: { baseDir?: unknown; base_dir?: unknown } | undefined): string {
  const dir = options?.baseDir ?? options?.base_dir;
  return typeof dir === "string" && dir.length > 0 ? dir : process.cwd();
}

export function llamaModelPath(model: string, options: { baseDir?: unknown; base_dir?: unknown } | undefined): string {
  return isAbsolute(model) ? model : resolve(llamaBaseDir(options), model);
}

/** A missing GGUF file, reported at the model entry's `model` field. */
export function llamaSpecProblems(spec: ModelSpec): SpecEntryProblem[] {
  const options = spec.options as { baseDir?: unknown; base_dir?: unknown } | undefined;
  const path = llamaModelPath(spec.model, options);
  if (existsSync(path) && statSync(path).isFile()) return [];
  const against = isAbsolute(spec.model)
    ? ""
    : ` (resolved against ${llamaBaseDir(options)}: options.base_dir, else the working directory)`;
  return [
    {
      path: ["model"],
      message: `expected an existing GGUF model file, found '${spec.model}': no file at ${path}${against}`,
    },
  ];
}
