#!/usr/bin/env bash
# Soak benchmark (not a CI test): `speedmatrix run` at 256 simultaneous streams against
# `speedmatrix sim` for an hour, sampling the client's resident memory every SAMPLE_S seconds.
# The hour is many decode cells back to back (each CELL_S long, each at a different context), so
# it exercises what a long run does: requests finishing and restarting, connections reused,
# cells' records made and freed, result.json rewritten after every cell. Memory must level off
# after the first cell and stay there.
#
# Usage: bench/soak.sh [BUILD_DIR]     environment: SOAK_S (3600), CELL_S (60), STREAMS (256),
#                                                   SAMPLE_S (10), OUT (a temporary folder)
# Prints one line per sample (seconds, client RSS MiB, sim RSS MiB) and a summary; the run
# folder and rss.csv stay in OUT.
set -euo pipefail
build=${1:-build}
bin=$(cd "$build" && pwd)/speedmatrix
soak_s=${SOAK_S:-3600}
cell_s=${CELL_S:-60}
streams=${STREAMS:-256}
sample_s=${SAMPLE_S:-10}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" sim --listen "127.0.0.1:$port" 2>"$out/sim.log" &
sim_pid=$!
trap 'kill $sim_pid 2>/dev/null || true; [ -n "${run_pid:-}" ] && kill $run_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1 && break
  sleep 0.1
done

# One cell per context: 1K, 1K+1, ... (distinct prompts, same cost), enough cells to fill SOAK_S.
cells=$(( (soak_s + cell_s - 1) / cell_s ))
contexts=$(seq -s, 1024 $((1024 + cells - 1)))
"$bin" run --url "http://127.0.0.1:$port" --no-selftest --contexts "$contexts" --concurrency "$streams" \
  --prefill-contexts none --duration "$cell_s" --max-output 512 --out "$out/run" >"$out/run.log" 2>&1 &
run_pid=$!

rss_mib() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo 0; }
echo "seconds,client_rss_mib,sim_rss_mib" >"$out/rss.csv"
start=$(date +%s)
printf '%8s %16s %14s\n' seconds "client RSS MiB" "sim RSS MiB"
while kill -0 "$run_pid" 2>/dev/null; do
  t=$(( $(date +%s) - start ))
  c=$(rss_mib "$run_pid"); s=$(rss_mib "$sim_pid")
  echo "$t,$c,$s" >>"$out/rss.csv"
  printf '%8d %16s %14s\n' "$t" "$c" "$s"
  sleep "$sample_s"
done
wait "$run_pid" && rc=0 || rc=$?
run_pid=

# Growth: the last quarter's mean against the mean of the samples after the first cell.
python3 - "$out/rss.csv" "$cell_s" "$rc" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))]
cell_s, rc = float(sys.argv[2]), int(sys.argv[3])
rows = [r for r in rows if float(r["client_rss_mib"]) > 0]
settled = [r for r in rows if float(r["seconds"]) >= 2 * cell_s] or rows
if not settled:
    sys.exit("soak: no samples")
n = len(settled)
early = settled[: max(1, n // 4)]
late = settled[-max(1, n // 4):]
mean = lambda rs: sum(float(r["client_rss_mib"]) for r in rs) / len(rs)
peak = max(float(r["client_rss_mib"]) for r in rows)
print(f"\nrun exit code {rc}; {len(rows)} samples over {rows[-1]['seconds']} s")
print(f"client RSS after the first cells: first quarter mean {mean(early):.1f} MiB, last quarter mean "
      f"{mean(late):.1f} MiB, growth {mean(late) - mean(early):+.1f} MiB; peak {peak:.1f} MiB")
PY
echo "samples: $out/rss.csv  run: $out/run"
