/**
 * The plugins of a run in a shared store. `parallax run` stores each plugin module it loads
 * (its spec entry, the file, the file's SHA-256 and content); a worker joining by URL loads the
 * same code: the file it reaches from the run's spec folder must have the recorded hash (a
 * changed file is refused, naming both hashes), and where no file is reachable (another
 * machine) the stored content is written to a private temporary folder and loaded from there.
 * The stored module must then stand alone: its own relative imports are not stored.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { type PluginRef, registerPluginFile, resolvePlugin } from "../prepare/plugins.js";
import type { StoredPlugin } from "./types.js";

/** The plugin modules a spec loads, resolved from its folder, with their hashes and content. */
export function pluginsToStore(spec: StudySpec, specDir: string): StoredPlugin[] {
  return pluginRefsOf(spec, "spec").map((ref) => {
    const file = resolvePlugin(ref, specDir);
    const bytes = readFileSync(file);
    return { specifier: ref.specifier, file, sha256: sha256Of(bytes), content: bytes.toString("utf8") };
  });
}

/**
 * A resumed run must load the plugin code it started with: a plugin whose file changed since is
 * refused, naming both hashes (a run recorded before the store kept plugins has none to compare).
 */
export function refuseChangedPlugins(
  runId: string,
  stored: readonly StoredPlugin[],
  current: readonly StoredPlugin[],
): void {
  if (stored.length === 0) return;
  for (const [index, plugin] of current.entries()) {
    const recorded = stored[index];
    if (recorded && recorded.specifier === plugin.specifier && recorded.sha256 !== plugin.sha256) {
      throw new InputError(
        `spec: plugins[${index}]: plugin '${plugin.specifier}' at ${plugin.file} has SHA-256 ${plugin.sha256}, but run ` +
          `'${runId}' started with SHA-256 ${recorded.sha256}: restore the run's version of it, or start a new run`,
      );
    }
  }
}

/**
 * Registers a run's stored plugins in this process. `specDir` is the run's spec folder (relative
 * entries resolve from it, as for `run`); `onNote` hears which stored modules stood in for files.
 */
export async function loadStoredPlugins(
  runId: string,
  stored: readonly StoredPlugin[],
  specDir: string,
  onNote?: (message: string) => void,
): Promise<void> {
  for (const [index, plugin] of stored.entries()) {
    const ref: PluginRef = { specifier: plugin.specifier, where: `run '${runId}': plugins[${index}]` };
    const local = reachableFile(ref, specDir);
    if (local) {
      const found = sha256Of(readFileSync(local));
      if (found !== plugin.sha256) {
        throw new InputError(
          `${ref.where}: plugin '${plugin.specifier}' at ${local} has SHA-256 ${found}, but the run loaded ` +
            `SHA-256 ${plugin.sha256} (${plugin.file}): the file changed since the run started; ` +
            "restore the run's version of it, or start a new run",
        );
      }
      await registerPluginFile(ref, local);
      continue;
    }
    onNote?.(`plugin '${plugin.specifier}' is not reachable here; loading the run's copy (SHA-256 ${plugin.sha256})`);
    const copy = materialise(plugin);
    try {
      await registerPluginFile(ref, copy);
    } finally {
      // Imported modules stay in memory: the private copy is not needed once registered.
      rmSync(dirname(copy), { recursive: true, force: true });
    }
  }
}

/** The spec's `plugins` entries; `where` names the list in messages. */
function pluginRefsOf(spec: StudySpec, where: string): PluginRef[] {
  return (spec.plugins ?? []).map((specifier, index) => ({ specifier, where: `${where}: plugins[${index}]` }));
}

/** The file a plugin entry resolves to from `specDir`, or undefined when there is none. */
function reachableFile(ref: PluginRef, specDir: string): string | undefined {
  try {
    const file = resolvePlugin(ref, specDir);
    return existsSync(file) ? file : undefined;
  } catch (error) {
    if (error instanceof InputError) return undefined;
    throw error;
  }
}

/**
 * Writes the stored module to a private folder of this process (mkdtemp: readable by its owner
 * only, so no other user can swap it between the check and the import); returns its path.
 */
function materialise(plugin: StoredPlugin): string {
  const file = join(mkdtempSync(join(tmpdir(), "parallax-plugin-")), basename(plugin.file));
  writeFileSync(file, plugin.content, { mode: 0o600 });
  const written = sha256Of(readFileSync(file));
  if (written !== plugin.sha256) {
    rmSync(dirname(file), { recursive: true, force: true });
    throw new InputError(
      `plugin '${plugin.specifier}': the stored copy has SHA-256 ${written}, not the recorded ${plugin.sha256} (it is not UTF-8 text); put the file at ${plugin.file}`,
    );
  }
  return file;
}

function sha256Of(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
