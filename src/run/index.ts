// Public API of the run layer: prepare, plan, run, export.
export { expandConditions } from "./conditions.js";
export {
  type BudgetLedger,
  cacheKey,
  executeTrials,
  RunBudget,
  StoreTrialSource,
  type TrialSource,
} from "./executor.js";
export { exportTable, toObservation } from "./export.js";
export { studyProvenance } from "./provenance.js";
export { callsContract, trialsContract } from "./table-contract.js";
export { planTrials, summarisePlan } from "./plan.js";
export { loadSpecPlugins, type ParallaxPlugin, type PluginApi, pluginApi } from "./plugins.js";
export { runStudy } from "./run-study.js";
export { type Judgements, readJudgements, rescoreStudy } from "./score.js";
export { openStore } from "./store/open.js";
export type { RunRecord, TrialRow, TrialStore } from "./store/types.js";
export { prepareStudy } from "./study.js";
