#!/usr/bin/env bash
# speedmatrix run --launch against a real llama-server with a synthetic model, then checks the
# result (check_llama_result.py). Usage: llama_server_matrix.sh BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
binary=$1 source_dir=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)

server=$("$source_dir/scripts/get-llama-server")
model="$work/e2e-small.gguf"
"$binary" synth-model --shape small --seed 3 --out "$model" >/dev/null

port=$(python3 "$here/free_port.py")
out="$work/e2e-run"
rm -rf "$out"
# -t 1: ggml's spinning worker threads collapse on a shared 2-core machine (docs/llama-server-notes.md).
launch="$server -m $model --host 127.0.0.1 --port $port -c 16384 -np 4 -t 1 --metrics"
"$binary" run --launch "$launch" \
  --contexts 0,1K,2K --concurrency 1,2,4,8 --prefill-contexts 512,1K,2K \
  --duration 3 --max-output 128 --out "$out" --quiet
python3 "$here/check_llama_result.py" "$out"

# Issue 4: compare works on two real runs. A second, smaller run with 2 slots instead of 4; at
# 4 simultaneous requests it can only generate 2 at a time, so its total tok/s there is lower.
out2="$work/e2e-run-2slots"
rm -rf "$out2"
launch2="$server -m $model --host 127.0.0.1 --port $port -c 8192 -np 2 -t 1 --metrics"
"$binary" run --launch "$launch2" --no-selftest \
  --contexts 0,1K --concurrency 1,4 --prefill-contexts 512 \
  --duration 3 --max-output 128 --out "$out2" --quiet
"$binary" compare "$out/result.json" "$out2/result.json" --format md >"$work/compare.md"
"$binary" compare "$out/result.json" "$out2/result.json" --format html >"$work/compare.html"
NO_COLOR=1 "$binary" compare "$out/result.json" "$out2/result.json" --format term >"$work/compare.txt"
python3 "$here/check_llama_compare.py" "$work/compare.md" "$work/compare.html" "$work/compare.txt" "$out2/result.json"
