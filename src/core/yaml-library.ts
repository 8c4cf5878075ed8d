/**
 * The `yaml` library, loaded on first use. Its parse keeps every node's source position, for
 * messages at file:line:col; a spec that reads and validates cleanly never needs it (the quick
 * parse in yaml-data.ts reads the data), so a short run does not pay to load it.
 */
import { createRequire } from "node:module";

type YamlLibrary = typeof import("yaml");

let loaded: YamlLibrary | undefined;

export function yamlLibrary(): YamlLibrary {
  loaded ??= createRequire(import.meta.url)("yaml") as YamlLibrary;
  return loaded;
}
