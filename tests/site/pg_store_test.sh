#!/usr/bin/env bash
# The store tests and the durability test against a real PostgreSQL server (started by
# pg_test_server.sh), then `speedmatrix serve --db postgresql://...` end to end: a token, an
# upload, the leaderboard.
# Usage: pg_store_test.sh UNIT_TESTS SPEEDMATRIX SOURCE_DIR     (exit 77: PostgreSQL not installed)
set -euo pipefail
unit_tests=$1
bin=$2
here=$3

tmp=$(mktemp -d /tmp/sm-pg.XXXXXX)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  bash "$here/pg_test_server.sh" stop "$tmp" || true
  rm -rf "$tmp"
}
trap cleanup EXIT

set +e
dsn=$(bash "$here/pg_test_server.sh" start "$tmp")
status=$?
set -e
[ $status -eq 0 ] || exit $status
echo "pg_store_test: PostgreSQL at $dsn"

SPEEDMATRIX_TEST_PG_DSN=$dsn "$unit_tests" --gtest_filter='*/Postgres' 2>&1 | tee "$tmp/gtest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
if grep -q '\[  SKIPPED \]' "$tmp/gtest.log"; then
  echo "pg_store_test: a PostgreSQL test was skipped" >&2
  exit 1
fi
passed=$(grep -c '\[       OK \]' "$tmp/gtest.log" || true)
[ "$passed" -ge 10 ] || { echo "pg_store_test: only $passed PostgreSQL tests ran" >&2; exit 1; }

# The server on PostgreSQL, end to end, on a database of its own (the tests above leave runs behind).
psql -q "$dsn" -c "CREATE DATABASE speedmatrix_e2e" >/dev/null
dsn=${dsn%/*}/speedmatrix_e2e
made=$("$bin" serve token create --db "$dsn" --name pg-e2e --format json)
token=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])' <<<"$made")
token_id=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["token_id"])' <<<"$made")
"$bin" serve --db "$dsn" --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 50); do grep -q 'listening on' "$tmp/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$tmp/serve.out")
"$bin" calc --gpu "RTX 3090" --model Qwen3.5-4B --quant AWQ --engine vllm --contexts 0,16K --concurrency 1,2,4 \
  --prefill-contexts 32K --out "$tmp/predicted.json" >/dev/null
"$bin" upload "$tmp/predicted.json" --to "$url" --token "$token"
python3 - "$url" <<'PY'
import json, sys, urllib.request
url = sys.argv[1]
assert json.load(urllib.request.urlopen(url + "/api/v1/leaderboard"))["total"] == 0, "a prediction ranked as measured"
# A prediction of a matrix of its own (no standard profile): listed under Other runs, not ranked.
assert json.load(urllib.request.urlopen(url + "/api/v1/leaderboard?kind=predicted"))["total"] == 0, "own matrix ranked"
board = json.load(urllib.request.urlopen(url + "/api/v1/leaderboard?kind=predicted&profile=other"))
assert board["total"] == 1 and board["view"] == "other", board
run = board["runs"][0]
assert run["kind"] == "predicted" and run["prefill_32k_tok_s"] > 0 and run["best_total_concurrency"] == 4, run
health = json.load(urllib.request.urlopen(url + "/api/v1/health"))
assert health["store"] == "postgresql", health
page = urllib.request.urlopen(url + "/runs/" + run["run_id"]).read().decode()
assert 'id="decode-matrix"' in page
print("pg_store_test: serve on PostgreSQL: upload, leaderboard and run page ok")
PY
"$bin" serve token revoke --db "$dsn" "$token_id"
python3 - "$url" "$token" "$tmp/predicted.json" <<'PY'
import sys, urllib.error, urllib.request
url, token, path = sys.argv[1:4]
request = urllib.request.Request(url + "/api/v1/runs", data=open(path, "rb").read(),
                                 headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
try:
    urllib.request.urlopen(request)
    sys.exit("pg_store_test: a revoked token was accepted")
except urllib.error.HTTPError as e:
    assert e.code == 401, e.code
PY
echo "pg_store_test: ok"
