/**
 * The `benchmarks[].options` every file loader reads (source.ts, rows.ts, shuffle.ts). A loader
 * with options of its own declares `optionsSchema: loaderOptions({...})`; the spec is checked
 * against it (or against the common schema) when it loads, so a misspelt option is an error.
 */
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";

/** options.max_source_mb: the default is below V8's longest string (about 512 MiB), so a file within it decodes. */
export const DEFAULT_SOURCE_MB = 256;
export const MAX_SOURCE_MB = 512;

function commonOptions(): z.ZodRawShape {
  return {
    files: z.array(z.string()).optional().describe("Files of a directory source to read"),
    sha256: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
    skip_bad_rows: z.boolean().optional(),
    shuffle: z.boolean().optional(),
    shuffle_seed: z.number().int().optional(),
    max_source_mb: z
      .number()
      .positive()
      .max(MAX_SOURCE_MB)
      .optional()
      .describe(`MiB read at most of each source file (default ${DEFAULT_SOURCE_MB}); a larger file is refused`),
  };
}

/** The common options plus a loader's own, strict. */
export function loaderOptions(own: z.ZodRawShape = {}): z.ZodObject {
  return z.object({ ...commonOptions(), ...own }).strict();
}

/** The schema of loaders that declare no options of their own. */
export const COMMON_LOADER_OPTIONS = lazySchema(() => loaderOptions());
