export type { RunRecord, TrialRow, TrialStore } from "./types.js";
export { KyselyTrialStore, type KyselyTrialStoreOptions, type StoreDialect } from "./kysely-store.js";
export {
  isPostgresUrl,
  type OpenStoreOptions,
  openStore,
  parsePostgresUrl,
  resolveSqlitePath,
  SQLITE_FILE_NAME,
} from "./open.js";
export { migrations, type StoreDatabase } from "./schema.js";
export { eachTrial, trialPages } from "./pages.js";
