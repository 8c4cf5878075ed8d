// Public API of the run layer: prepare, plan, run, export.
export { expandConditions } from "./prepare/conditions.js";
export {
  type BudgetLedger,
  cacheKey,
  executeTrials,
  RunBudget,
  StoreTrialSource,
  type TrialSource,
} from "./execute/index.js";
export { exportTable, toObservation } from "./export/export.js";
export { studyProvenance } from "./export/provenance.js";
export { callsContract, trialsContract } from "./export/table-contract.js";
export { planTrials, summarisePlan } from "./plan/plan.js";
export { loadSpecPlugins, type ParallaxPlugin, type PluginApi, pluginApi } from "./prepare/plugins.js";
export { runStudy } from "./execute/run-study.js";
export { type Judgements, readJudgements, rescoreStudy } from "./score/index.js";
export { openStore } from "./store/open.js";
export type { RunRecord, TrialRow, TrialStore } from "./store/types.js";
export { prepareStudy } from "./prepare/study.js";
