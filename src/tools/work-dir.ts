import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { SANDBOX_WORK_DIR } from "./sandbox.js";

/**
 * Maps a path as the model writes it (`/workspace/a.txt` or `a.txt`) to the host path inside the
 * trial's work dir, or explains why it is refused: outside the work dir, directly or through a
 * symbolic link (the sandbox can create links to anywhere; the host side must not follow them out).
 */
export function hostPathIn(workDir: string, modelPath: string): { path: string } | { refused: string } {
  const relativePath = toWorkDirRelative(modelPath);
  if (relativePath === undefined) return { refused: `path '${modelPath}' is outside ${SANDBOX_WORK_DIR}` };
  const root = realpathSync(workDir);
  const candidate = resolve(root, relativePath);
  if (!inside(root, candidate)) return { refused: `path '${modelPath}' is outside ${SANDBOX_WORK_DIR}` };
  const real = realpathOfNearestExisting(candidate);
  if (real === undefined || !inside(root, real))
    return { refused: `path '${modelPath}' leads outside ${SANDBOX_WORK_DIR} (through a link)` };
  return { path: candidate };
}

/** The path relative to the work dir, or undefined when an absolute path lies elsewhere. */
function toWorkDirRelative(modelPath: string): string | undefined {
  if (!isAbsolute(modelPath)) return modelPath;
  const fromRoot = relative(SANDBOX_WORK_DIR, modelPath);
  return fromRoot.startsWith("..") || isAbsolute(fromRoot) ? undefined : fromRoot;
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/**
 * realpath of the path, or of its nearest existing ancestor joined with the rest; undefined for
 * a dangling link (writing through it would create its target, wherever that is).
 */
function realpathOfNearestExisting(path: string): string | undefined {
  let existing = path;
  while (!entryExists(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    return resolve(realpathSync(existing), relative(existing, path));
  } catch {
    return undefined;
  }
}

/** Whether a directory entry exists, without following a final link. */
function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The path as the model sees it inside the sandbox. */
export function sandboxPathOf(workDir: string, hostPath: string): string {
  const rel = relative(realpathSync(workDir), hostPath);
  return rel === "" ? SANDBOX_WORK_DIR : `${SANDBOX_WORK_DIR}/${rel.split(sep).join("/")}`;
}
