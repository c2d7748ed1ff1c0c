#!/usr/bin/env bash
# Scale-out benchmark of the results site (not a CI test; docs/site.md, "Scale-out"): one
# PostgreSQL database (Debian's package, started like the tests start it) seeded with RUNS runs,
# two `speedmatrix serve` processes with their listing caches and two without (--listing-cache 0),
# then bench/site_load.py measures leaderboard and runs-list latency (p50/p95/p99), a page 50,000
# runs deep by cursor and by offset, and uploads a second through both cached servers.
# Afterwards the plans PostgreSQL chose for the listing statements are logged by auto_explain
# and the index each used is printed (the record docs/site.md keeps).
#
# Usage: bench/site_scale.sh [BUILD_DIR]     environment: RUNS (100000), OUT (a temporary folder)
#
# Seeding: rows are made by one INSERT ... SELECT generate_series in psql (seconds, not the
# minutes 100,000 uploads would take); their figures are pseudo-random (setseed), labelled
# "seeded" in submitted_by, and every row carries one real result JSON (a `speedmatrix calc`
# prediction) so rows are the size of real ones. They are benchmark data, never results.
set -euo pipefail
build=${1:-build}
bin=$(cd "$build" && pwd)/speedmatrix
here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-100000}
out=${OUT:-$(mktemp -d /tmp/sm-site-scale.XXXXXX)}
mkdir -p "$out"
pg="$out/pg"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  bash "$here/../tests/site/pg_test_server.sh" stop "$pg" || true
  rm -rf "$pg/data"  # 1.6 GB at 100,000 runs; the logs, plans and results stay
}
trap cleanup EXIT

dsn=$(bash "$here/../tests/site/pg_test_server.sh" start "$pg")
psql -q "$dsn" -c "CREATE DATABASE speedmatrix_bench" >/dev/null
dsn=${dsn%/*}/speedmatrix_bench
token=$("$bin" serve token create --db "$dsn" --name bench 2>/dev/null)  # also applies the migrations
"$bin" calc --gpu "RTX 3090" --model Qwen3.5-4B --quant AWQ --engine vllm --contexts 0,16K,32K --concurrency 1,2,4,8 \
  --prefill-contexts 32K --out "$out/base.json" >/dev/null

echo "site_scale: seeding $runs runs"
seed_start=$(date +%s.%N)
# Marked checked with this build's catalog: the site would otherwise check every seeded run again
# at start-up from its one result JSON (run_checks.h), and make them all that run's setup.
checked_with=$("$bin" serve checks-fingerprint)
psql -q -v ON_ERROR_STOP=1 -v base="$(cat "$out/base.json")" -v runs="$runs" -v checked_with="$checked_with" "$dsn" <<'SQL'
\o /dev/null
SELECT setseed(0.42);
\o
INSERT INTO runs (run_id, kind, gpu, model, engine, engine_version, quantization, submitted_by, started_at,
  uploaded_at, token_id, single_stream_tok_s, single_stream_context, best_total_tok_s, best_total_context,
  best_total_concurrency, prefill_32k_tok_s, valid_cells, decode_cells, best_tokens_per_joule,
  best_tokens_per_joule_context, best_tokens_per_joule_concurrency, gpu_telemetry, throttle_worst, throttled_cells,
  calc_gpu, calc_gpu_count, calc_model, calc_engine, implausible, synthetic_model, hidden, content_sha256,
  result_json, measurements_sha256, profile, checked_with)
SELECT 'seed-' || lpad(g::text, 6, '0'),
  CASE WHEN g % 10 = 0 THEN 'predicted' WHEN g % 10 = 1 THEN 'simulated' ELSE 'measured' END,
  (ARRAY['RTX 3090 24GB', 'RTX 4090 24GB', 'H100 80GB', 'A100 80GB', 'L40S 48GB', 'RTX 6000 Ada 48GB',
         '2× H100 80GB', 'MI300X 192GB', 'Apple M3 Max', 'unknown hardware', 'RTX 3060 12GB', 'H200 141GB'])[1 + (g * 7) % 12],
  'Model-' || ((g * 13) % 40),
  CASE WHEN g % 10 = 1 THEN 'sim' ELSE (ARRAY['vllm', 'sglang', 'llamacpp', 'tgi', 'ollama'])[1 + g % 5] END,
  '0.1', (ARRAY['AWQ 4-bit', 'FP8', 'BF16', 'Q4_K_M'])[1 + g % 4], 'seeded',
  to_char(timestamp '2026-01-01' + g * interval '4 minutes', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
  to_char(timestamp '2026-01-01' + g * interval '4 minutes' + interval '30 minutes', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  NULL,
  CASE WHEN g % 20 = 0 THEN NULL ELSE 10 + random() * 240 END, 0,
  CASE WHEN g % 20 = 0 THEN NULL ELSE 100 + random() * 9000 END, 16384, 64,
  CASE WHEN g % 5 = 0 THEN NULL ELSE 500 + random() * 30000 END, 20, 20,
  CASE WHEN g % 3 = 0 THEN 0.5 + random() * 6 ELSE NULL END, 16384, 32,
  CASE WHEN g % 3 = 0 THEN 'server' ELSE '' END, CASE WHEN g % 3 = 0 THEN 'ok' ELSE '' END,
  CASE WHEN g % 3 = 0 THEN 0 ELSE NULL END,
  '', 0, '', '', CASE WHEN g % 97 = 0 THEN 'seeded as implausible' ELSE '' END, 0, CASE WHEN g % 199 = 0 THEN 1 ELSE 0 END,
  md5(g::text), :'base', md5('measurements-' || g),
  CASE WHEN g % 10 = 3 THEN 'quick/1' WHEN g % 10 = 7 THEN '' ELSE 'standard/1' END,
  :'checked_with'
FROM generate_series(1, :runs) AS g;
ANALYZE runs;
SQL
seed_end=$(date +%s.%N)
python3 -c "import sys; print(f'site_scale: seeded {sys.argv[1]} runs in {float(sys.argv[3]) - float(sys.argv[2]):.1f} s')" \
  "$runs" "$seed_start" "$seed_end" | tee "$out/seed.txt"

# Started in this shell, not in a $(...) subshell, where `pids+=($!)` would be lost and the
# cleanup would leave the servers running.
start_server() {  # $1 name, then serve flags
  local name=$1
  shift
  "$bin" serve --db "$dsn" --listen 127.0.0.1:0 --threads 4 --rate-limit 1000000 "$@" >"$out/$name.out" 2>"$out/$name.err" &
  pids+=($!)
}
server_url() {  # $1 name; prints the URL once /api/v1/health answers
  local url
  for _ in $(seq 300); do
    url=$(grep -o 'http://[0-9.:]*' "$out/$1.out" || true)
    if [ -n "$url" ] && curl -fsS "$url/api/v1/health" >/dev/null 2>&1; then
      echo "$url"
      return 0
    fi
    sleep 0.1
  done
  echo "site_scale: server $1 did not become healthy" >&2
  return 1
}
start_server cached-a
start_server cached-b
start_server uncached-c --listing-cache 0
start_server uncached-d --listing-cache 0
a=$(server_url cached-a)
b=$(server_url cached-b)
c=$(server_url uncached-c)
d=$(server_url uncached-d)
# The row 50,000 runs deep in the newest-first order, for a deep page by cursor and by offset.
deep=$(psql -At "$dsn" -c "SELECT uploaded_at || '~' || run_id FROM runs WHERE hidden = 0
  ORDER BY uploaded_at DESC, run_id DESC OFFSET 49999 LIMIT 1")
python3 "$here/site_load.py" --cached "$a" "$b" --uncached "$c" "$d" --token "$token" --base "$out/base.json" \
  --deep-cursor "a0~50000~0~$deep" --runs "$runs" | tee "$out/results.md"

# The plans of the real statements, logged by auto_explain for a server started after it is on.
psql -q "$dsn" -c "ALTER DATABASE speedmatrix_bench SET session_preload_libraries = 'auto_explain'" \
  -c "ALTER DATABASE speedmatrix_bench SET auto_explain.log_min_duration = 0" \
  -c "ALTER DATABASE speedmatrix_bench SET auto_explain.log_analyze = on"
start_server explain --listing-cache 0
e=$(server_url explain)
log_from=$(wc -c <"$pg/server.log")
for path in "/" "/api/v1/leaderboard" "/api/v1/leaderboard?sort=best_total" "/api/v1/leaderboard?sort=tokens_per_joule" \
  "/api/v1/runs" "/api/v1/runs?sort=prefill_32k" "/api/v1/runs?cursor=a0~50000~0~$deep" "/api/v1/runs?offset=50000" \
  "/api/v1/runs?gpu=H100%2080GB&kind=measured&sort=best_total"; do
  curl -fsS "$e$path" >/dev/null
done
tail -c +"$((log_from + 1))" "$pg/server.log" >"$out/plans.log"
echo "| statement | plan | rows read | ms |" | tee "$out/plans.md"
echo "|---|---|---:|---:|" | tee -a "$out/plans.md"
python3 - "$out/plans.log" <<'PY' | tee -a "$out/plans.md"
import re, sys
text = open(sys.argv[1]).read()
# auto_explain: "duration: X ms  plan:\n Query Text: ...\n <plan lines>"
for block in text.split("LOG:  duration: ")[1:]:
    query = re.search(r"Query Text: (.*)", block)
    if not query or "FROM runs" not in query.group(1):
        continue
    q = query.group(1)
    if "ORDER BY" in q and "LIMIT" in q:
        what = "`ORDER BY " + re.search(r"ORDER BY (.*?) LIMIT", q).group(1) + "`"
        what += " after a cursor" if ") < ($" in q or ") > ($" in q else ""
        offset = re.search(r"\$13 = '(\d+)'", block)
        if offset and offset.group(1) != "0":
            what += f" at OFFSET {int(offset.group(1)):,}"
    elif q.startswith("SELECT COUNT(*) FROM runs"):
        what = "the count of matching runs (`total`)"
    elif q.startswith("SELECT 'gpu', gpu FROM runs"):
        what = "the filter menus (distinct values of 5 columns)"
    else:
        continue
    scans = re.findall(r"(Index Scan(?: Backward)? using \w+|Index Only Scan(?: Backward)? using \w+|"
                       r"Bitmap Index Scan on \w+|Seq Scan on runs|Parallel Seq Scan on runs|Sort|HashAggregate)", block)
    # Rows the first scan node read (log_analyze): a page's 51, or everything an OFFSET skips.
    read = re.search(r"(?:Scan)[^\n]*\(actual time=[\d.]+\.\.[\d.]+ rows=(\d+) loops=(\d+)\)", block)
    rows = int(read.group(1)) * int(read.group(2)) if read else 0
    ms = block.split(" ms", 1)[0]
    print(f"| {what} | {', '.join(dict.fromkeys(scans))} | {rows:,} | {ms} |")
PY
echo "site_scale: results in $out"
