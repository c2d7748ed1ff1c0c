#!/usr/bin/env bash
# Heavy-page benchmark of the results site (not a CI test; docs/site.md, "Heavy pages"): one
# SQLite store holding one run of 1,000 decode cells (a `speedmatrix calc` prediction over 40
# contexts × 25 concurrencies, 1.2 MB of JSON), `serve --threads 4`, and bench/site_heavy.py:
# 16 clients requesting that run's page and JSON back to back while a probe measures
# /api/v1/health and the leaderboard every 10 ms for SECONDS (p50/p95/p99). Cases: the default split (heavy requests on
# --heavy-threads 2 workers), no split (--heavy-threads 0: every request on the I/O threads, as
# before the split), and BEFORE_BIN when given (an older speedmatrix, without the flag).
#
# Usage: bench/site_heavy.sh [BUILD_DIR]     environment: SECONDS_PER_CASE (20), BEFORE_BIN, OUT
set -euo pipefail
build=${1:-build}
bin=$(cd "$build" && pwd)/speedmatrix
here=$(cd "$(dirname "$0")" && pwd)
seconds=${SECONDS_PER_CASE:-20}
out=${OUT:-$(mktemp -d /tmp/sm-site-heavy.XXXXXX)}
mkdir -p "$out"
pid=""
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; fi; pid=""; }
trap cleanup EXIT

contexts=$(seq -s, 0 1024 39936)   # 40 rows: 0, 1K, ... 39K
concurrency=$(seq -s, 1 25)        # 25 columns
"$bin" calc --gpu "RTX 3090" --model Qwen3.5-4B --quant AWQ --engine vllm --contexts "$contexts" \
  --concurrency "$concurrency" --prefill-contexts 32K --out "$out/base.json" >/dev/null
run_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$out/base.json")
db="sqlite:$out/site.db"
token=$("$bin" serve token create --db "$db" --name bench 2>/dev/null)

# Starts `serve` (binary $1, flags after it) and sets $url once it listens.
start_serve() {
  local b=$1
  shift
  : >"$out/serve.out"
  "$b" serve --db "$db" --listen 127.0.0.1:0 --threads 4 "$@" >"$out/serve.out" 2>>"$out/serve.err" &
  pid=$!
  url=""
  for _ in $(seq 1 200); do
    url=$(sed -n 's/^speedmatrix serve: listening on //p' "$out/serve.out")
    [ -n "$url" ] && return 0
    sleep 0.05
  done
  echo "site_heavy: serve did not start; see $out/serve.err" >&2
  exit 1
}

start_serve "$bin"
"$bin" upload "$out/base.json" --to "$url" --token "$token" >/dev/null
cleanup

measure() {  # label, binary, serve flags...
  local label=$1 b=$2
  shift 2
  start_serve "$b" "$@"
  echo "site_heavy: $label"
  python3 "$here/site_heavy.py" --url "$url" --heavy "/runs/$run_id" "/api/v1/runs/$run_id" \
    --seconds "$seconds" --label "$label" | tee "$out/$(echo "$label" | tr -c 'a-z0-9\n' '-').md"
  cleanup
  echo
}

measure "split: --heavy-threads 2" "$bin"
measure "no split: --heavy-threads 0" "$bin" --heavy-threads 0
if [ -n "${BEFORE_BIN:-}" ]; then measure "before the split" "$BEFORE_BIN"; fi
echo "site_heavy: tables in $out"
