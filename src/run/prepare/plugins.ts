/**
 * User plugins: modules named in a spec's `plugins` list that register loaders, scaffolds, scorers,
 * judge rubrics or providers (docs/EXTENDING.md). A plugin exports `register(api)` and receives
 * the registries of the running Parallax, so it never registers into a second copy of them (a
 * plugin importing `parallax-eval/scaffolds` from dist while the CLI runs from src). Plugins are
 * loaded before the spec is validated against the registries: `prepareStudy` and the commands
 * that read a spec call `loadSpecPlugins` first.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InputError } from "../../core/errors.js";
import { requireRegularFile, UnreadablePathError } from "../../core/guarded-read.js";
import { readSpecFile, type SpecFile } from "../../core/spec-loader.js";
import { PARALLAX_VERSION } from "../../core/version.js";
import { datasetLoaders } from "../../datasets/registry.js";
import { providers } from "../../models/registry.js";
import { scaffolds } from "../../scaffolds/registry.js";
import { judgeRubrics } from "../../scoring/judge/rubrics.js";
import { scorers } from "../../scoring/registry.js";

/** What a plugin's `register(api)` receives: the registries of the running Parallax. */
export interface PluginApi {
  /** The running Parallax's version (a plugin may refuse versions it does not support). */
  readonly version: string;
  readonly loaders: typeof datasetLoaders;
  readonly scaffolds: typeof scaffolds;
  readonly scorers: typeof scorers;
  readonly rubrics: typeof judgeRubrics;
  readonly providers: typeof providers;
}

/** The module shape of a plugin. */
export interface ParallaxPlugin {
  register(api: PluginApi): void | Promise<void>;
}

export const pluginApi: PluginApi = {
  version: PARALLAX_VERSION,
  loaders: datasetLoaders,
  scaffolds,
  scorers,
  rubrics: judgeRubrics,
  providers,
};

/** One entry of a spec's `plugins` list, with where it is written. */
export interface PluginRef {
  specifier: string;
  /** `FILE:LINE:COL: plugins[i]` for messages. */
  where: string;
}

/** Files already registered in this process (registering twice would be a duplicate-name error). */
const loaded = new Set<string>();

/**
 * Imports and registers the plugins a spec file (a path, or the file already read) names,
 * resolved relative to the spec's folder (bare names as packages from there). Reads only the `plugins` list: the full validation comes
 * after, when the registries hold the plugins' names. Unreadable specs are left to the loader.
 */
export async function loadSpecPlugins(spec: string | SpecFile): Promise<void> {
  const file = typeof spec === "string" ? readableSpecFile(spec) : spec;
  if (!file) return;
  const refs = pluginRefs(file);
  if (refs.length === 0) return;
  const before = new Set(datasetLoaders.names());
  for (const ref of refs) await loadPlugin(ref, dirname(resolve(file.path)));
  checkLoaderMeta(datasetLoaders.names().filter((name) => !before.has(name)));
}

/**
 * A plugin loader's metadata names scorers and a rubric by string: each must be registered (by
 * Parallax or by one of the plugins), or every trial of its benchmark would fail at run time.
 */
function checkLoaderMeta(loaderNames: readonly string[]): void {
  for (const name of loaderNames) {
    const { meta } = datasetLoaders.get(name);
    const problems: string[] = [];
    for (const [path, scorer] of Object.entries(meta.scorers ?? {})) {
      if (!scorers.has(scorer)) {
        problems.push(
          `meta.scorers.${path} '${scorer}' is not a registered scorer (known: ${scorers.names().join(", ")})`,
        );
      }
    }
    if (meta.scorers === undefined)
      problems.push("meta.scorers is missing (expected { mc, open, logprob } scorer names)");
    if (meta.judgeRubric !== null && !judgeRubrics.has(meta.judgeRubric)) {
      problems.push(
        `meta.judgeRubric '${meta.judgeRubric}' is not a registered rubric (known: ${judgeRubrics.names().join(", ")}; null: not judged)`,
      );
    }
    if (problems.length > 0) throw new InputError(`plugin loader '${name}': ${problems.join("; ")}`);
  }
}

/** Imports one plugin module (once per process) and calls its register(api). */
async function loadPlugin(ref: PluginRef, baseDir: string): Promise<void> {
  await registerPluginFile(ref, resolvePlugin(ref, baseDir));
}

/** Imports a plugin module from `file` (once per process) and calls its register(api). */
export async function registerPluginFile(ref: PluginRef, file: string): Promise<void> {
  if (loaded.has(file)) return;
  refuseSpecialFile(ref, file);
  let module: Partial<ParallaxPlugin> & { default?: unknown };
  try {
    module = await import(pathToFileURL(file).href);
  } catch (error) {
    const hint = existsSync(file)
      ? ""
      : " (a relative path is resolved from the spec's folder; for a study directory, pass --spec with the study's spec)";
    throw new InputError(`${ref.where}: cannot import plugin '${ref.specifier}' (${file}): ${messageOf(error)}${hint}`);
  }
  const register = module.register ?? registerOf(module.default);
  if (typeof register !== "function") {
    throw new InputError(
      `${ref.where}: plugin '${ref.specifier}' (${file}) must export a function register(api); found exports: ${Object.keys(module).join(", ") || "(none)"}`,
    );
  }
  try {
    await register(pluginApi);
  } catch (error) {
    throw new InputError(`${ref.where}: plugin '${ref.specifier}' failed to register: ${messageOf(error)}`);
  }
  loaded.add(file);
}

/** A plugin that exists must be a regular file: importing a FIFO or a device would hang or never end. */
function refuseSpecialFile(ref: PluginRef, file: string): void {
  if (!existsSync(file)) return; // the import's error says so, with the hint on where paths resolve
  try {
    requireRegularFile(file);
  } catch (error) {
    if (!(error instanceof UnreadablePathError)) throw error;
    throw new InputError(`${ref.where}: cannot import plugin '${ref.specifier}': ${error.message}`);
  }
}

function registerOf(value: unknown): unknown {
  if (typeof value === "function") return value;
  return typeof value === "object" && value !== null ? (value as Partial<ParallaxPlugin>).register : undefined;
}

/** A path (relative to the spec's folder, or absolute) or a package name resolved from there. */
export function resolvePlugin(ref: PluginRef, baseDir: string): string {
  const { specifier } = ref;
  if (specifier.startsWith(".") || isAbsolute(specifier)) return resolve(baseDir, specifier);
  try {
    return createRequire(resolve(baseDir, "spec.yaml")).resolve(specifier);
  } catch (error) {
    throw new InputError(
      `${ref.where}: cannot find plugin package '${specifier}' from ${baseDir} (a path must start with ./ or /): ${messageOf(error)}`,
    );
  }
}

/** The spec file, or undefined when it cannot be read (the spec loader reports that). */
function readableSpecFile(specPath: string): SpecFile | undefined {
  try {
    return readSpecFile(specPath);
  } catch (error) {
    if (error instanceof InputError) return undefined;
    throw error;
  }
}

/** The `plugins` entries of a spec file with their positions; [] when there are none. */
function pluginRefs(file: SpecFile): PluginRef[] {
  if ("problems" in file.yaml) return [];
  const source = file.yaml;
  const list = (source.data as { plugins?: unknown }).plugins;
  if (!Array.isArray(list)) return [];
  return list.flatMap((specifier, index) => {
    if (typeof specifier !== "string" || specifier === "") return [];
    const { line, col } = source.locate(["plugins", index]);
    return [{ specifier, where: `${file.path}:${line}:${col}: plugins[${index}]` }];
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
