#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the store tests and prints
#   PARALLAX_TEST_PG_URL=postgres://postgres@127.0.0.1:<port>/parallax_test
# (also appended to the file named by $1, e.g. an env file that .ci/run sources).
#
# Idempotent: a second call reuses the cluster in $PARALLAX_TEST_PG_DIR (default
# ${TMPDIR:-/tmp}/parallax-test-pg) and prints the same URL. Runs the server as the
# `postgres` OS user when called as root, because initdb refuses to run as root.
# Trust authentication on 127.0.0.1 only, fsync off: for tests, never for data you keep.
# Stop it with scripts/stop-test-postgres.sh.
set -euo pipefail

PGDIR_ROOT="${PARALLAX_TEST_PG_DIR:-${TMPDIR:-/tmp}/parallax-test-pg}"
FIRST_PORT="${PARALLAX_TEST_PG_PORT:-54329}"
DB=parallax_test
OUT_FILE="${1:-}"

die() { echo "start-test-postgres: $*" >&2; exit 1; }

find_bindir() {
  if [[ -n "${PG_BINDIR:-}" ]]; then echo "$PG_BINDIR"; return; fi
  # Debian installs versioned binaries outside PATH; take the newest one present.
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -n "$dir" && -x "$dir/initdb" ]]; then echo "$dir"; return; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  die "initdb not found; install PostgreSQL (Debian: apt-get install -y postgresql) or set PG_BINDIR"
}

BIN=$(find_bindir)

# Run a command as the cluster owner: `postgres` when we are root, else ourselves.
if [[ $(id -u) -eq 0 ]]; then
  id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' user to own the cluster"
  OWNER=postgres
  as_owner() { (cd / && runuser -u postgres -- "$@"); }
else
  OWNER=$(id -un)
  as_owner() { "$@"; }
fi

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  local port=$FIRST_PORT
  while port_in_use "$port"; do
    port=$((port + 1))
    ((port < FIRST_PORT + 100)) || die "no free port in $FIRST_PORT..$((FIRST_PORT + 99))"
  done
  echo "$port"
}

DATA="$PGDIR_ROOT/data"
SOCK="$PGDIR_ROOT/sock"
LOG="$PGDIR_ROOT/server.log"

mkdir -p "$PGDIR_ROOT" "$SOCK"
chown "$OWNER" "$PGDIR_ROOT" "$SOCK"
chmod 700 "$PGDIR_ROOT"

if [[ ! -f "$DATA/PG_VERSION" ]]; then
  as_owner "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --no-sync >"$PGDIR_ROOT/initdb.log" 2>&1 ||
    die "initdb failed; see $PGDIR_ROOT/initdb.log"
fi

if as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  PORT=$(cat "$PGDIR_ROOT/port")
else
  PORT=$(pick_port)
  echo "$PORT" >"$PGDIR_ROOT/port"
  as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $SOCK -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    >/dev/null || die "server failed to start; see $LOG"
fi

psql_owner() { as_owner "$BIN/psql" -h "$SOCK" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtAc "$1"; }
if [[ "$(psql_owner "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != "1" ]]; then
  psql_owner "CREATE DATABASE $DB" || die "could not create database $DB"
fi

LINE="PARALLAX_TEST_PG_URL=postgres://postgres@127.0.0.1:$PORT/$DB"
echo "$LINE"
if [[ -n "$OUT_FILE" ]]; then echo "$LINE" >>"$OUT_FILE"; fi
