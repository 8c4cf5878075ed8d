/**
 * The one test of whether a store target is a PostgreSQL URL, and its parsing. Kept apart from
 * open.ts so callers that only need to tell a URL from a directory load no database driver.
 */

export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

export interface PgTarget {
  connectionString: string;
  schema: string | undefined;
  /** host:port/database as user, for messages; never includes the password. */
  description: string;
  host: string;
  port: string;
  database: string;
}

/**
 * The store target as a shell argument for a printed command: a PostgreSQL URL without its
 * password (libpq's PGPASSWORD or ~/.pgpass supplies it), single-quoted; a path quoted when it
 * needs to be.
 */
export function storeArgument(target: string): string {
  let argument = target;
  if (isPostgresUrl(target)) {
    const url = new URL(target);
    url.password = "";
    argument = url.toString();
  }
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replaceAll("'", "'\\''")}'`;
}

/** Splits our `schema` parameter off the URL and describes the target without its password. */
export function parsePostgresUrl(target: string): PgTarget {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new Error("invalid PostgreSQL URL (expected postgres://user@host:port/database)");
  }
  const schema = url.searchParams.get("schema") ?? undefined;
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) {
    throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)} (letters, digits, _)`);
  }
  url.searchParams.delete("schema");
  const host = url.hostname || "localhost";
  const port = url.port || "5432";
  const database = decodeURIComponent(url.pathname.replace(/^\//, "")) || "(default)";
  const user = url.username ? ` as ${decodeURIComponent(url.username)}` : "";
  return {
    connectionString: url.toString(),
    schema,
    description: `${host}:${port}/${database}${user}`,
    host,
    port,
    database,
  };
}
