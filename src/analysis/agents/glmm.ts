/**
 * The H2 test (GAIA comparison 4.1.4, App. J): a logistic GLMM with a random intercept per
 * question, `success ~ scaffold + model + level + (1 | question)` against the same with the
 * scaffold x model interaction, compared by a likelihood-ratio test, with lme4-style fit metadata.
 */
import {
  glmmCoefficientTable,
  type GlmmFit,
  glmmRegression,
  type LikelihoodRatioTest,
  likelihoodRatioTest,
  sortedLevels,
} from "../../stats/index.js";
import type { AgentUnit } from "./units.js";

/** lme4's default tolerance of its gradient convergence check (check.conv.grad). */
export const GRADIENT_TOLERANCE = 0.002;

export interface GlmmCoefficient {
  name: string;
  estimate: number;
  se: number;
  ciLower: number;
  ciUpper: number;
  p: number;
}

export interface GlmmFitReport {
  formula: string;
  nObs: number;
  nIds: number;
  /** The optimizer met its step tolerance and max |gradient| <= GRADIENT_TOLERANCE. */
  converged: boolean;
  maxAbsGradient: number | null;
  logLik: number | null;
  aic: number | null;
  bic: number | null;
  randomInterceptSd: number | null;
  coefficients: GlmmCoefficient[];
  /** Why the model could not be fitted. */
  error?: string;
}

export interface GlmmComparison {
  baseline: GlmmFitReport;
  full: GlmmFitReport;
  lrt: LikelihoodRatioTest | null;
  referenceScaffold: string;
  referenceModel: string;
}

function report(formula: string, n: { obs: number; ids: number }, fit: GlmmFit | { error: string }): GlmmFitReport {
  if ("error" in fit)
    return {
      formula,
      nObs: n.obs,
      nIds: n.ids,
      converged: false,
      maxAbsGradient: null,
      logLik: null,
      aic: null,
      bic: null,
      randomInterceptSd: null,
      coefficients: [],
      error: fit.error,
    };
  return {
    formula,
    nObs: fit.nObs,
    nIds: fit.nGroups,
    converged: fit.maxAbsGradient <= GRADIENT_TOLERANCE,
    maxAbsGradient: fit.maxAbsGradient,
    logLik: fit.logLik,
    aic: fit.aic,
    bic: fit.bic,
    randomInterceptSd: fit.theta,
    coefficients: glmmCoefficientTable(fit).map((c) => ({
      name: c.name,
      estimate: c.estimate,
      se: c.se,
      ciLower: c.ciLower,
      ciUpper: c.ciUpper,
      p: c.p,
    })),
  };
}

function tryFit(fit: () => GlmmFit): GlmmFit | { error: string } {
  try {
    return fit();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Levels with the reference first (the reference when present, else the first in sort order). */
function withReference(values: readonly string[], reference: string | undefined): string[] {
  const levels = sortedLevels(values);
  const ref = reference !== undefined && levels.includes(reference) ? reference : levels[0];
  return [ref, ...levels.filter((l) => l !== ref)];
}

/** Baseline vs interaction GLMM on the units of one slice (all levels pooled; level numeric when several). */
export function scaffoldModelGlmm(
  units: readonly AgentUnit[],
  references: { scaffold?: string; model?: string },
): GlmmComparison | { skipped: string } {
  const scaffolds = withReference(
    units.map((u) => u.scaffold),
    references.scaffold,
  );
  const models = withReference(
    units.map((u) => u.model),
    references.model,
  );
  if (scaffolds.length < 2 || models.length < 2) return { skipped: "needs at least two scaffolds and two models" };
  const levels = [...new Set(units.map((u) => u.level))];
  const numericLevels = levels.every((l) => Number.isFinite(Number(l)));
  const withLevel = levels.length > 1 && numericLevels;
  const table = {
    success: Float64Array.from(units, (u) => (u.correct ? 1 : 0)),
    scaffold: units.map((u) => u.scaffold),
    model: units.map((u) => u.model),
    level: Float64Array.from(units, (u) => (numericLevels ? Number(u.level) : 0)),
    question: units.map((u) => u.cluster),
  };
  const fixed = `scaffold + model${withLevel ? " + level" : ""}`;
  const baselineFormula = `success ~ ${fixed} + (1 | question)`;
  const fullFormula = `success ~ ${fixed} + scaffold:model + (1 | question)`;
  const factors = { scaffold: { levels: scaffolds }, model: { levels: models } };
  const n = { obs: units.length, ids: new Set(units.map((u) => u.cluster)).size };
  const baseline = tryFit(() => glmmRegression(table, baselineFormula, { factors }));
  const full = tryFit(() => glmmRegression(table, fullFormula, { factors }));
  const lrt =
    "error" in baseline || "error" in full
      ? null
      : likelihoodRatioTest(
          { logLik: baseline.logLik, nParameters: baseline.nParameters },
          { logLik: full.logLik, nParameters: full.nParameters },
        );
  return {
    baseline: report(baselineFormula, n, baseline),
    full: report(fullFormula, n, full),
    lrt,
    referenceScaffold: scaffolds[0],
    referenceModel: models[0],
  };
}
