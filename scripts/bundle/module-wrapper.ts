/**
 * The CommonJS wrapper Node puts around a module's source. The build writes the bundle's
 * code-cached files already wrapped, so the loader hands V8 the file's text as it was read: a
 * wrapper added at load time is a second string that V8 must flatten, a copy of the whole file.
 */
export const WRAPPER_START = "(function (exports, require, module, __filename, __dirname) { ";
export const WRAPPER_END = "\n});";

/** A module's source as a wrapped function expression (a shebang line becomes a comment). */
export function wrapModule(source: string): string {
  return WRAPPER_START + source.replace(/^#!/, "//") + WRAPPER_END;
}
