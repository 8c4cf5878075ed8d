/**
 * Where `parallax report` writes, and what it may overwrite. The trials page goes beside the
 * report: `trials.html` beside `report.html` (the default), `NAME.trials.html` beside any other
 * `NAME.html`, so two reports in one folder never share (and break) one trials page. An
 * existing file is replaced only when it carries the generator mark of a page the report
 * wrote (`GENERATOR_MARK` in html.ts), or with `force`.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { InputError } from "../core/errors.js";
import { GENERATOR_MARK } from "./html.js";

export interface ReportPaths {
  report: string;
  trials: string;
}

/** The trials page's path for a report at `reportPath`. */
export function trialsPathFor(reportPath: string): string {
  const name = basename(reportPath);
  if (name.toLowerCase() === "report.html") return join(dirname(reportPath), "trials.html");
  return join(dirname(reportPath), `${name.replace(/\.html?$/i, "")}.trials.html`);
}

export function reportPaths(reportPath: string): ReportPaths {
  return { report: reportPath, trials: trialsPathFor(reportPath) };
}

/**
 * The head of the pages written before the generator mark existed (Parallax 0.1): the exact
 * opening, then the report's own style sheet, whose `.msg-role` and `.trial-links` rules no
 * other page has. Recognised so that a study reported with an earlier version is re-reported.
 */
const LEGACY_HEAD =
  '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>';
const LEGACY_STYLE = [".msg-role { font-weight: 600;", ".trial-links a {"];

/** Whether the file at `path` is a page `parallax report` wrote (its head carries the mark). */
export function isReportOutput(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(16_384);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const head = buffer.subarray(0, read).toString("utf8");
    if (head.includes(GENERATOR_MARK)) return true;
    return head.startsWith(LEGACY_HEAD) && LEGACY_STYLE.every((rule) => head.includes(rule));
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses (exit 2, before anything is written) to replace a file that `parallax report` did
 * not write, unless `force`; a directory in the way is refused even then.
 */
export function checkReportTargets(paths: ReportPaths, force: boolean): void {
  const problems: string[] = [];
  for (const [what, path] of [
    ["report", paths.report],
    ["trials page", paths.trials],
  ] as const) {
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) {
      problems.push(`the ${what} would go to ${path}, which is a directory`);
    } else if (!force && !isReportOutput(path)) {
      problems.push(
        `the ${what} would overwrite ${path}, which parallax report did not write (it lacks the generator mark); ` +
          "choose another --out, or pass --force to overwrite it",
      );
    }
  }
  if (problems.length > 0) throw new InputError(problems.join("\n"));
}
