// The executor's public surface; each part lives in its own module under execute/.
export {
  BudgetExhausted,
  RunBudget,
  type BudgetLedger,
  type BudgetLimits,
  type BudgetReport,
  type Spend,
} from "./budget.js";
export { cacheKey } from "./cache-key.js";
export { executeTrials } from "./execute-trials.js";
export { StoreTrialSource, type TrialSource } from "./trial-source.js";
export type { ExecuteOptions, ExecuteSummary, ModelRuntime, TrialEvent } from "./types.js";
