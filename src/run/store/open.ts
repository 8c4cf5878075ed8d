/**
 * Opening a trial store from one string: a directory or file path means SQLite (the embedded
 * default, `<dir>/parallax.db`), a `postgres://` or `postgresql://` URL means PostgreSQL.
 * Dialect-specific setup (pragmas, pool, search_path) lives here so the store stays one code path.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { Kysely } from "kysely";
import type { KyselyTrialStore } from "./kysely-store.js";
import type { StoreDatabase } from "./schema.js";
import { reusingStatements } from "./statement-cache.js";
import type { TrialStore } from "./types.js";
import { isPostgresUrl, parsePostgresUrl } from "./url.js";
import { ParallaxError } from "../../core/errors.js";

export { isPostgresUrl, parsePostgresUrl } from "./url.js";

/** The SQLite file name inside a study directory. */
export const SQLITE_FILE_NAME = "parallax.db";

export interface OpenStoreOptions {
  /** Run migrations on open (default true); migrate() is idempotent. */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** How long SQLite waits for a lock held by another process, in ms (default 10,000). */
  busyTimeoutMs?: number;
  /**
   * Open for reading only (the viewer): SQLite opens the file read-only (the file must exist;
   * writes fail), PostgreSQL sessions default to read-only transactions. Implies no migration.
   */
  readOnly?: boolean;
  /**
   * SQLite's page cache in KiB (better-sqlite3 builds it at 16,000): a reader that passes over
   * the file once (`parallax report`) asks for a small one, so its memory stays flat in the
   * store's size. Applies when this open creates the process's connection to the file.
   */
  cacheKiB?: number;
}

/**
 * Opens (and by default migrates) the store at `target`: a PostgreSQL URL (an optional
 * `?schema=name` query parameter selects a schema, created if missing), `:memory:`, an
 * existing directory (its `parallax.db`), or a file path whose directory exists.
 */
export async function openStore(target: string, options: OpenStoreOptions = {}): Promise<TrialStore> {
  const store = isPostgresUrl(target)
    ? await openPostgres(target, options)
    : openSqlite(target, options, await drivers());
  if (!options.readOnly && (options.migrate ?? true)) {
    try {
      await store.migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  return store;
}

/** The SQLite file a non-URL target names; throws when its directory does not exist. */
export function resolveSqlitePath(target: string): string {
  if (target === ":memory:") return target;
  const path = resolve(target);
  if (existsSync(path)) return statSync(path).isDirectory() ? join(path, SQLITE_FILE_NAME) : path;
  // A path that does not exist yet must be a new file in an existing directory.
  const dir = dirname(path);
  if (!/\.(db|sqlite3?)$/i.test(basename(path))) {
    throw new Error(`store directory ${path} does not exist (create the study directory first)`);
  }
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new Error(`cannot create store ${path}: directory ${dir} does not exist`);
  }
  return path;
}

/**
 * One connection per SQLite file per process, shared by every store opened on it. Two
 * connections in one process would deadlock: better-sqlite3 waits for a lock synchronously,
 * blocking the event loop the lock holder needs to commit. Sharing one kysely instance
 * serialises transactions through its connection mutex instead.
 */
const sqliteConnections = new Map<string, { db: Kysely<StoreDatabase>; refs: number }>();

/**
 * The database drivers, kysely and the store, imported on first open rather than with this
 * module: commands that never open a store (`plan`, `--version`) do not pay for loading them.
 */
async function drivers() {
  const [sqlite, kysely, store, scrub] = await Promise.all([
    import("better-sqlite3"),
    import("kysely"),
    import("./kysely-store.js"),
    import("./scrub-plugin.js"),
  ]);
  return {
    Database: sqlite.default,
    kysely,
    KyselyTrialStore: store.KyselyTrialStore,
    ScrubSecretsPlugin: scrub.ScrubSecretsPlugin,
  };
}

type Drivers = Awaited<ReturnType<typeof drivers>>;

// Synchronous once the drivers are loaded, so two opens of one file cannot race to connect.
function openSqlite(target: string, options: OpenStoreOptions, lib: Drivers): KyselyTrialStore {
  const file = resolveSqlitePath(target);
  // A read-only connection is never shared with a writer of the same file.
  const key = options.readOnly ? `${file}\0read-only` : file;
  const shared = file === ":memory:" ? undefined : sqliteConnections.get(key);
  const entry = shared ?? { db: connectSqlite(file, options, lib), refs: 0 };
  if (!shared && file !== ":memory:") sqliteConnections.set(key, entry);
  entry.refs += 1;
  const release = async () => {
    entry.refs -= 1;
    if (entry.refs > 0) return;
    if (sqliteConnections.get(key) === entry) sqliteConnections.delete(key);
    await entry.db.destroy();
  };
  return new lib.KyselyTrialStore(entry.db, "sqlite", { release });
}

function connectSqlite(file: string, options: OpenStoreOptions, lib: Drivers): Kysely<StoreDatabase> {
  let database: BetterSqlite3.Database | undefined;
  try {
    const readonly = options.readOnly === true;
    database = new lib.Database(file, { timeout: options.busyTimeoutMs ?? 10_000, readonly, fileMustExist: readonly });
    // WAL: readers never block the writer; NORMAL sync is crash-safe for the app in WAL mode.
    if (!readonly) database.pragma("journal_mode = WAL");
    database.pragma("synchronous = NORMAL");
    database.pragma("foreign_keys = ON");
    if (options.cacheKiB !== undefined) database.pragma(`cache_size = -${Math.max(1, Math.round(options.cacheKiB))}`);
    // Connect the search index's FTS5 table now, outside any transaction: connecting reads its
    // config, which inside a deferred write transaction would pin a stale snapshot (SQLITE_BUSY_SNAPSHOT).
    if (database.prepare("select 1 from sqlite_master where name = 'trial_search'").get())
      database.prepare("select rowid from trial_search where 0").all();
  } catch (error) {
    database?.close();
    throw new Error(`cannot open SQLite store ${file}: ${(error as Error).message}`, { cause: error });
  }
  return new lib.kysely.Kysely<StoreDatabase>({
    dialect: new lib.kysely.SqliteDialect({ database: reusingStatements(database) }),
    plugins: [new lib.ScrubSecretsPlugin()],
  });
}

async function openPostgres(target: string, options: OpenStoreOptions): Promise<KyselyTrialStore> {
  const { connectionString, schema, host, port, database } = parsePostgresUrl(target);
  const [{ kysely, KyselyTrialStore, ScrubSecretsPlugin }, { default: pg }] = await Promise.all([
    drivers(),
    import("pg"),
  ]);
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 15_000,
    // Every connection resolves table names in the chosen schema, so queries stay unqualified.
    ...pgSessionOptions(schema, options.readOnly === true),
  });
  // An idle client losing its connection emits 'error' on the pool; without a listener that
  // kills the process. The next query on a fresh client reports any lasting problem.
  pool.on("error", () => {});
  let migrationSchema: string;
  try {
    const result = await pool.query<{ schema: string | null }>("select current_schema() as schema");
    migrationSchema = schema ?? result.rows[0]?.schema ?? "public";
  } catch (error) {
    await pool.end().catch(() => {});
    throw new StoreUnavailableError(
      `cannot connect to PostgreSQL (host ${host}, port ${port}, database ${database}): ${oneLine(errorText(error))}`,
    );
  }
  const db = new kysely.Kysely<StoreDatabase>({
    dialect: new kysely.PostgresDialect({ pool }),
    plugins: [new ScrubSecretsPlugin()],
  });
  return new KyselyTrialStore(db, "postgres", { migrationSchema });
}

/** Every connection resolves table names in the chosen schema; a read-only store refuses writes server-side. */
function pgSessionOptions(schema: string | undefined, readOnly: boolean): { options?: string } {
  const settings = [
    ...(schema ? [`-c search_path=${schema}`] : []),
    ...(readOnly ? ["-c default_transaction_read_only=on"] : []),
  ];
  return settings.length > 0 ? { options: settings.join(" ") } : {};
}

/** Node reports a refused dual-stack connect as an AggregateError with an empty message. */
/** The store could not be reached or refused the connection: exit 2, one line, no stack. */
export class StoreUnavailableError extends ParallaxError {
  constructor(message: string) {
    super(message, 2);
    this.name = "StoreUnavailableError";
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, "; ").trim();
}

function errorText(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map(errorText).join("; ");
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}
