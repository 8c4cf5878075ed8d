/**
 * The grid's commit-stamped envelope rules (SafetyRepro §5.1, App. T): the YAML rules file the
 * spec names at `analysis.grid.rules` is hashed when `parallax run` records the run (the stamp
 * DIR/grid-rules.json) and hashed again at analysis, so an edit of the rules after the run is
 * refused, naming both hashes, instead of silently re-defining the envelope.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { sha256 } from "../../core/hash.js";
import { yamlLibrary } from "../../core/yaml-library.js";

export const GRID_RULES_STAMP = "grid-rules.json";

export interface GridRulesStamp {
  /** Absolute path of the rules file. */
  path: string;
  /** SHA-256 of its bytes (as text). */
  sha256: string;
  stampedAt: string;
}

/** The rules file the spec declares, resolved against the spec's directory; null when none. */
export function declaredRulesPath(spec: StudySpec, specPath: string): string | null {
  const grid = spec.analysis?.grid;
  if (!grid || typeof grid !== "object" || !grid.rules) return null;
  return resolve(dirname(resolve(specPath)), grid.rules);
}

/** SHA-256 of a rules file, checked to be YAML (an error names the file and the line). */
export function hashRulesFile(path: string): string {
  if (!existsSync(path)) throw new InputError(`analysis.grid.rules: ${path} does not exist`);
  const text = readFileSync(path, "utf8");
  try {
    yamlLibrary().parse(text);
  } catch (error) {
    throw new InputError(`analysis.grid.rules: ${path} is not valid YAML: ${(error as Error).message}`);
  }
  return sha256(text);
}

/**
 * Stamps the rules' hash into the study directory when the run is recorded. A directory already
 * stamped keeps its stamp, and a resumed run whose rules changed since is refused.
 */
export function stampGridRules(
  spec: StudySpec,
  specPath: string,
  outDir: string,
  now = new Date(),
): GridRulesStamp | null {
  const path = declaredRulesPath(spec, specPath);
  if (!path) return null;
  const hash = hashRulesFile(path);
  const existing = readGridRulesStamp(outDir);
  if (existing) {
    if (existing.sha256 !== hash) {
      throw new InputError(
        `analysis.grid.rules: ${path} changed since this run was stamped (stamped sha256 ${existing.sha256}, now ${hash}); restore it or use another --out directory`,
      );
    }
    return existing;
  }
  const stamp: GridRulesStamp = { path, sha256: hash, stampedAt: now.toISOString() };
  writeFileSync(join(outDir, GRID_RULES_STAMP), `${JSON.stringify(stamp, null, 2)}\n`);
  return stamp;
}

export function readGridRulesStamp(dir: string): GridRulesStamp | null {
  const path = join(dir, GRID_RULES_STAMP);
  if (!existsSync(path)) return null;
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as GridRulesStamp;
    if (typeof value.path !== "string" || typeof value.sha256 !== "string") throw new Error("missing path or sha256");
    return value;
  } catch (error) {
    throw new InputError(`${path} is not a grid rules stamp (${(error as Error).message})`);
  }
}

/**
 * The analysis-time check: the stamped rules file hashed again. A changed file is an InputError
 * naming both hashes; no stamp (a run recorded before the spec named rules) is reported as such.
 */
export function checkGridRules(dir: string): { path: string; sha256: string; status: string } | null {
  const stamp = readGridRulesStamp(dir);
  if (!stamp) return null;
  if (!existsSync(stamp.path)) {
    throw new InputError(
      `analysis.grid.rules: the stamped rules file ${stamp.path} is missing (stamped sha256 ${stamp.sha256})`,
    );
  }
  const now = hashRulesFile(stamp.path);
  if (now !== stamp.sha256) {
    throw new InputError(
      `analysis.grid.rules: ${stamp.path} changed since the run (stamped sha256 ${stamp.sha256}, now ${now}); the envelope rules may not be edited after the run`,
    );
  }
  return { path: stamp.path, sha256: stamp.sha256, status: `matches the run's stamp of ${stamp.stampedAt}` };
}
