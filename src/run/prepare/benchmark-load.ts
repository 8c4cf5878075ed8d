/**
 * A benchmark's (or an exemplar pool's) loader run for a spec: a local source outside the spec's
 * folder is loaded without quoting its content in any message (src/datasets/quote.ts), and what
 * the load refuses is reported at the spec field that names the source (FILE:LINE:COL), a path
 * that is no regular file or folder, or a file over its limit, as a problem of the spec.
 */
import type { BenchmarkSpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { isOutsideFolder, UnreadablePathError } from "../../core/guarded-read.js";
import { formatPath, type PathSegment, SpecError, type SpecSource } from "../../core/spec-loader.js";
import { withoutQuoting } from "../../datasets/quote.js";
import { datasetLoaders } from "../../datasets/registry.js";
import { isUrl } from "../../datasets/source.js";
import type { LoadContext, LoadedBenchmark } from "../../datasets/types.js";

/** Where a source is named: the spec and the YAML path of its `source` field. */
export interface SourceField {
  spec: { path: string; source: SpecSource };
  path: PathSegment[];
}

/** Loads `benchmark` with its loader; `check` runs on the result under the same quoting rule. */
export async function loadForSpec(
  benchmark: BenchmarkSpec,
  context: LoadContext,
  field: SourceField | undefined,
  check: (loaded: LoadedBenchmark) => void = () => {},
): Promise<LoadedBenchmark> {
  const load = async () => {
    const loaded = await datasetLoaders.get(benchmark.loader).load(benchmark, context);
    check(loaded);
    return loaded;
  };
  try {
    return await (outsideFolder(benchmark.source, context.baseDir) ? withoutQuoting(load) : load());
  } catch (error) {
    throw field ? locatedAt(error, field) : error;
  }
}

/** Whether a local source lies outside `folder` (symbolic links resolved); a URL or no source does not. */
export function outsideFolder(source: string | undefined, folder: string): boolean {
  if (source === undefined || source === "" || isUrl(source)) return false;
  return isOutsideFolder(source, folder);
}

function locatedAt(error: unknown, field: SourceField): unknown {
  if (error instanceof SpecError || !(error instanceof InputError)) return error;
  const at = field.spec.source.locate(field.path);
  if (error instanceof UnreadablePathError) {
    return new SpecError(field.spec.path, [
      { ...at, message: `at YAML path ${formatPath(field.path)}: ${error.message}` },
    ]);
  }
  return new InputError(`${field.spec.path}:${at.line}:${at.col}: ${formatPath(field.path)}: ${error.message}`);
}
