/**
 * Where the llama provider finds a model's GGUF file, and the load-time check that it is there,
 * so `plan` and `run` refuse a missing file before anything is written.
 */
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ModelSpec } from "../../contracts/spec.js";
import { requireRegularFile, UnreadablePathError } from "../../core/guarded-read.js";
import type { SpecEntryProblem } from "../types.js";

type PathOptions = { baseDir?: unknown; base_dir?: unknown } | undefined;

/**
 * The directory relative model paths resolve against: options.baseDir or base_dir, else the
 * spec file's directory (as benchmark sources do), else the working directory.
 */
export function llamaBaseDir(options: PathOptions, specDir?: string): string {
  const dir = options?.baseDir ?? options?.base_dir;
  return typeof dir === "string" && dir.length > 0 ? dir : (specDir ?? process.cwd());
}

export function llamaModelPath(model: string, options: PathOptions, specDir?: string): string {
  return isAbsolute(model) ? model : resolve(llamaBaseDir(options, specDir), model);
}

/** A missing GGUF file, reported at the model entry's `model` field. */
export function llamaSpecProblems(spec: ModelSpec, context?: { specDir?: string }): SpecEntryProblem[] {
  // The model file and every quantization variant's file (the `quantization` facet).
  const files: [string, string[]][] = [
    [spec.model, ["model"]],
    ...Object.entries(spec.quantizations ?? {}).map(([name, file]): [string, string[]] => [
      file,
      ["quantizations", name],
    ]),
  ];
  return files.flatMap(([model, path]) => missingFileProblems(model, path, spec.options as PathOptions, context));
}

function missingFileProblems(
  model: string,
  at: string[],
  options: PathOptions,
  context?: { specDir?: string },
): SpecEntryProblem[] {
  const path = llamaModelPath(model, options, context?.specDir);
  if (existsSync(path)) return notRegularFileProblems(path, at);
  const against = isAbsolute(model)
    ? ""
    : ` (resolved against ${llamaBaseDir(options, context?.specDir)}: options.base_dir, else the spec's directory)`;
  return [
    {
      path: at,
      message: `expected an existing GGUF model file, found '${model}': no file at ${path}${against}`,
    },
  ];
}

/** A model path that exists must be a regular file: a folder, a device or a FIFO is no GGUF. */
function notRegularFileProblems(path: string, at: string[]): SpecEntryProblem[] {
  try {
    requireRegularFile(path);
    return [];
  } catch (error) {
    if (!(error instanceof UnreadablePathError)) throw error;
    return [{ path: at, message: `expected a GGUF model file, found ${error.message}` }];
  }
}
