#!/usr/bin/env bash
# Stops the throwaway cluster started by scripts/start-test-postgres.sh and deletes its
# directory (pass --keep to keep the data for a later start). Safe to run when nothing runs.
set -euo pipefail

PGDIR_ROOT="${PARALLAX_TEST_PG_DIR:-${TMPDIR:-/tmp}/parallax-test-pg}"
DATA="$PGDIR_ROOT/data"

if [[ -n "${PG_BINDIR:-}" ]]; then
  BIN="$PG_BINDIR"
else
  BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [[ -n "$BIN" ]] || BIN=$(dirname "$(command -v pg_ctl || echo /nonexistent/pg_ctl)")
fi

if [[ $(id -u) -eq 0 ]]; then
  as_owner() { (cd / && runuser -u postgres -- "$@"); }
else
  as_owner() { "$@"; }
fi

if [[ -f "$DATA/PG_VERSION" ]] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
  echo "stopped test PostgreSQL in $PGDIR_ROOT"
fi

if [[ "${1:-}" != "--keep" && -d "$PGDIR_ROOT" ]]; then
  # Guard against deleting something that is not our cluster directory.
  if [[ -f "$DATA/PG_VERSION" || -f "$PGDIR_ROOT/port" || -f "$PGDIR_ROOT/initdb.log" || -z "$(ls -A "$PGDIR_ROOT")" ]]; then
    rm -rf "$PGDIR_ROOT"
  else
    echo "stop-test-postgres: $PGDIR_ROOT does not look like a test cluster; not deleting it" >&2
  fi
fi
