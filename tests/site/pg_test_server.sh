#!/usr/bin/env bash
# A throwaway PostgreSQL server for the store tests, from Debian's postgresql package: initdb in
# a temporary folder, listening on 127.0.0.1 only, trust authentication, removed at stop.
# PostgreSQL refuses to run as root, so as root it runs as the `postgres` user the package
# creates (the folder is handed to that user).
#
#   dsn=$(tests/site/pg_test_server.sh start /tmp/sm-pg.XXXX)   # prints postgresql://...
#   ... SPEEDMATRIX_TEST_PG_DSN=$dsn ...
#   tests/site/pg_test_server.sh stop /tmp/sm-pg.XXXX
#
# Exit 77 (CTest's skip) when PostgreSQL is not installed, unless $CI is set: in CI its absence
# is a failure (scripts/setup installs it).
set -euo pipefail

action=${1:?usage: pg_test_server.sh start|stop DIR}
dir=${2:?usage: pg_test_server.sh start|stop DIR}

bin=""
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/initdb" ] && bin=$d
done
if [ -z "$bin" ]; then
  if [ -n "${CI:-}" ]; then
    echo "pg_test_server: PostgreSQL is not installed (scripts/setup installs it)" >&2
    exit 1
  fi
  echo "pg_test_server: PostgreSQL is not installed; skipping (apt-get install postgresql)" >&2
  exit 77
fi

as_db_user() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "$action" in
  start)
    mkdir -p "$dir"
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_db_user "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    # -k: the Unix socket goes into the temporary folder too; listen_addresses: loopback only.
    as_db_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -h 127.0.0.1 -p $port -c max_connections=100" start >"$dir/pg_ctl.log" 2>&1 ||
      { cat "$dir/pg_ctl.log" "$dir/server.log" >&2; exit 1; }
    echo "$port" >"$dir/port"
    as_db_user "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres speedmatrix_test
    echo "postgresql://postgres@127.0.0.1:$port/speedmatrix_test"
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_db_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    ;;
  *)
    echo "usage: pg_test_server.sh start|stop DIR" >&2
    exit 2
    ;;
esac
