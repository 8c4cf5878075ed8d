// Regression-type models (GLM, GLMM, ANOVA, generalizability, specification curve).
export {};
