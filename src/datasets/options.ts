/**
 * The `benchmarks[].options` every file loader reads (source.ts, rows.ts, shuffle.ts). A loader
 * with options of its own declares `optionsSchema: loaderOptions({...})`; the spec is checked
 * against it (or against the common schema) when it loads, so a misspelt option is an error.
 */
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";

function commonOptions(): z.ZodRawShape {
  return {
    files: z.array(z.string()).optional().describe("Files of a directory source to read"),
    sha256: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
    skip_bad_rows: z.boolean().optional(),
    shuffle: z.boolean().optional(),
    shuffle_seed: z.number().int().optional(),
  };
}

/** The common options plus a loader's own, strict. */
export function loaderOptions(own: z.ZodRawShape = {}): z.ZodObject {
  return z.object({ ...commonOptions(), ...own }).strict();
}

/** The schema of loaders that declare no options of their own. */
export const COMMON_LOADER_OPTIONS = lazySchema(() => loaderOptions());
