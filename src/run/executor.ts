// The executor's public surface; each part lives in its own module under execute/.
export {
  BudgetExhausted,
  RunBudget,
  type BudgetLedger,
  type BudgetLimits,
  type BudgetReport,
  type Spend,
} from "./execute/budget.js";
export { cacheKey } from "./execute/cache-key.js";
export { executeTrials } from "./execute/execute-trials.js";
export { StoreTrialSource, type TrialSource } from "./execute/trial-source.js";
export type { ExecuteOptions, ExecuteSummary, ModelRuntime, TrialEvent } from "./execute/types.js";
