import type { GoldenAdapter } from "./types.js";

/** Adapters for the regression-type fixtures (GLM, GLMM, ANOVA). */
export const modelProcedures: Record<string, GoldenAdapter> = {};
