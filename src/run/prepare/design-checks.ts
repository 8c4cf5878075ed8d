/**
 * Checks of a prepared study's design that need its items and conditions (so the spec loader
 * cannot make them): its size against `execution.max_trials`, a sequential design's contrasts,
 * and the grid rules file. `plan` and `run` both make them before anything is written, so a
 * design `plan` accepts is one `run` does not refuse later.
 */
import { InputError } from "../../core/errors.js";
import { formatPath, type PathSegment, SpecError, type SpecProblem } from "../../core/spec-loader.js";
import { contrastLayout } from "../plan/contrasts.js";
import { declaredRulesPath, hashRulesFile } from "./grid-rules.js";
import { plannedTrialCount } from "../plan/plan.js";
import type { PreparedStudy } from "./study.js";

/** Throws one SpecError (exit 2) naming every problem at its spec line; returns the design's trial count. */
export function refuseUnrunnableDesign(study: PreparedStudy): number {
  const trials = plannedTrialCount(study);
  const problems = [...sizeProblems(study, trials), ...sequentialProblems(study), ...rulesProblems(study)];
  if (problems.length > 0) throw new SpecError(study.specPath, problems);
  return trials;
}

/** What `plan` and `run` say of a design above LARGE_DESIGN_TRIALS (and within execution.max_trials). */
export function largeDesignWarning(trials: number, study: PreparedStudy): string {
  return (
    `the design has ${trials.toLocaleString("en-US")} trials (execution.max_trials ` +
    `${study.spec.execution.max_trials.toLocaleString("en-US")}); run stores each before the first is executed`
  );
}

function problemAt(study: PreparedStudy, path: PathSegment[], message: string): SpecProblem {
  const at = study.specSource?.locate(path) ?? { line: 1, col: 1 };
  return { ...at, message: `at YAML path ${formatPath(path)}: ${message}` };
}

function sizeProblems(study: PreparedStudy, trials: number): SpecProblem[] {
  const limit = study.spec.execution.max_trials;
  if (trials <= limit) return [];
  const { models, attempts } = study.spec;
  const items = [...study.items.values()].reduce((sum, byId) => sum + byId.size, 0);
  return [
    problemAt(
      study,
      ["execution", "max_trials"],
      `the design has ${trials.toLocaleString("en-US")} trials (${models.length} model(s) x ` +
        `${study.conditions.length} condition(s) x ${items} item(s) x ${attempts} attempt(s)), above ` +
        `execution.max_trials ${limit.toLocaleString("en-US")}` +
        `${study.specSource?.has(["execution", "max_trials"]) ? "" : " (its default)"}; shrink the design or raise execution.max_trials`,
    ),
  ];
}

/** A sequential run monitors the comparison facet's contrasts: a design without one cannot run. */
function sequentialProblems(study: PreparedStudy): SpecProblem[] {
  if (!study.spec.execution.sequential) return [];
  const at = ["execution", "sequential"];
  try {
    const layout = contrastLayout(study.spec, study.conditions);
    if (layout.contrasts.length > 0) return [];
    return [
      problemAt(
        study,
        at,
        `a sequential run monitors contrasts of the comparison facet '${layout.facet}', but the design has none ` +
          `(levels: ${study.spec.conditions.facets[layout.facet].length}, reference '${layout.reference}'); ` +
          "give the facet a second level, or remove execution.sequential",
      ),
    ];
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const facetPath = ["analysis", "comparison_facet"];
    return [problemAt(study, study.specSource?.has(facetPath) ? facetPath : at, error.message)];
  }
}

/** The grid rules file `run` stamps must exist and be YAML. */
function rulesProblems(study: PreparedStudy): SpecProblem[] {
  const path = declaredRulesPath(study.spec, study.specPath);
  if (!path) return [];
  try {
    hashRulesFile(path);
    return [];
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return [problemAt(study, ["analysis", "grid", "rules"], error.message.replace(/^analysis\.grid\.rules: /, ""))];
  }
}
