#!/usr/bin/env bash
# The results site in headless Chromium: the leaderboard loads, filters and ranks by efficiency,
# a run's page shows its matrix (and, with GPU telemetry, its tokens per joule and throttled
# cells), the calculator form returns a matrix, and a model named "<script>..." stays text.
# Filtering and the calculator are plain GET forms, so submitting one is loading a URL with its
# fields as query parameters: that URL is what is loaded here. Screenshots (light and dark) go
# to OUT_DIR/screenshots.
# Usage: browser_test.sh SPEEDMATRIX OUT_DIR SOURCE_DIR     (exit 77: no Chromium, outside CI)
set -euo pipefail
bin=$1
out=$2
here=$3

chrome=""
for c in chromium chromium-browser google-chrome; do
  command -v "$c" >/dev/null 2>&1 && { chrome=$(command -v "$c"); break; }
done
if [ -z "$chrome" ]; then
  if [ -n "${CI:-}" ]; then echo "browser_test: Chromium is not installed (scripts/setup installs it)" >&2; exit 1; fi
  echo "browser_test: Chromium is not installed; skipping" >&2
  exit 77
fi

tmp=$(mktemp -d /tmp/sm-browser.XXXXXX)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
shots="$out/screenshots"
mkdir -p "$shots"

db="sqlite:$tmp/results.db"
token=$("$bin" serve token create --db "$db" --name browser 2>/dev/null)
"$bin" serve --db "$db" --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 50); do grep -q 'listening on' "$tmp/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$tmp/serve.out")
[ -n "$url" ] || { cat "$tmp/serve.err" >&2; exit 1; }

# Runs to show: predictions for three setups, and one whose model name is a script.
"$bin" calc --gpu "RTX 3090" --model Qwen3.5-4B --quant AWQ --engine vllm --out "$tmp/r1.json" >/dev/null
"$bin" calc --gpu "RTX 4090" --model Qwen3.5-4B --quant AWQ --engine vllm --out "$tmp/r2.json" >/dev/null
"$bin" calc --gpu "H100" --model Qwen3.5-4B --quant AWQ --engine sglang --contexts 0,32K --out "$tmp/r3.json" >/dev/null
# Of the standard profile, so the leaderboard ranks them (docs/site.md, "Ranked like with like").
python3 - "$tmp/r1.json" "$tmp/r2.json" "$tmp/r3.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    r["settings"]["profile"] = "standard/1"
    json.dump(r, open(path, "w"))
PY
PYTHONPATH="$here" python3 - "$tmp/r1.json" "$tmp/evil.json" <<'PY'
import json, sys
from measured_like import as_measured
r = as_measured(json.load(open(sys.argv[1])))
r["run_id"] = "evil-run"
r["engine"]["model_path"] = ""  # the page then titles the run with the served model id, whole
r["engine"]["model"] = "<script>document.title='pwned'</script>"
r["notes"] = "<img src=x onerror=\"document.title='pwned'\">"
json.dump(r, open(sys.argv[2], "w"))
PY
# A measured run with GPU telemetry (as a run on this machine would record it), one cell power capped.
PYTHONPATH="$here" python3 - "$tmp/r2.json" "$tmp/telemetry.json" <<'PY'
import json, sys
from measured_like import as_measured
r = as_measured(json.load(open(sys.argv[1])))
r["run_id"] = "telemetry-run"
r["telemetry"] = {"interval_s": 0.5, "gpu_source": "nvml", "gpu_unavailable": "", "host": True, "server": True,
                  "client_side_only": False, "series_file": "telemetry.jsonl",
                  "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "sm_clock_max_mhz": 3105,
                            "mem_clock_max_mhz": 10501, "power_limit_w": 450, "pcie": "Gen4 x16"}]}
for i, c in enumerate(c for c in r["decode"] if c["status"] == "valid"):
    power = 250 + 10 * c["concurrency"] ** 0.5
    c.update(gpu_power_w=power, gpu_energy_j=power * 30, gpu_sm_clock_mhz=2520, gpu_temp_max_c=68,
             tokens_per_joule=c["total_tok_s"] / power, throttle="power_capped" if i == 3 else "ok")
json.dump(r, open(sys.argv[2], "w"))
PY
"$bin" upload "$tmp/r1.json" "$tmp/r2.json" "$tmp/r3.json" "$tmp/evil.json" "$tmp/telemetry.json" --to "$url" --token "$token"
# calc ids end with a hash of the prediction's settings: read them from the files
id1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/r1.json")
id2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/r2.json")

profile="$tmp/chromium-profile"
browse() {  # browse MODE OUTPUT URL; MODE is dom or a screenshot name
  local flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --no-default-browser-check
    --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage
    --hide-scrollbars --user-data-dir="$profile" --window-size=1280,2000)
  if [ "$1" = dom ]; then
    timeout 90 "$chrome" "${flags[@]}" --virtual-time-budget=3000 --dump-dom "$3" >"$2" 2>>"$tmp/chromium.log"
  elif [ "$1" = dark ]; then
    timeout 90 "$chrome" "${flags[@]}" --force-dark-mode --blink-settings=preferredColorScheme=0 \
      --screenshot="$2" "$3" >>"$tmp/chromium.log" 2>&1
  else
    timeout 90 "$chrome" "${flags[@]}" --blink-settings=preferredColorScheme=1 --screenshot="$2" "$3" >>"$tmp/chromium.log" 2>&1
  fi
}

gpu=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["gpu"])' <(python3 - "$url" <<'PY'
import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1] + "/api/v1/runs?engine=sglang").read().decode())
PY
))
gpu_q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$gpu")
calc_q="gpu=rtx4090&gpus=1&model=qwen3.5-4b&quant=awq-4bit&engine=vllm&contexts=0%2C16K%2C32K&concurrency=1%2C2%2C4%2C8&prefill=8K%2C32K&max_output=8192"

browse dom "$tmp/leaderboard.html" "$url/?kind=all"
browse dom "$tmp/measured.html" "$url/"
browse dom "$tmp/filtered.html" "$url/?kind=all&gpu=$gpu_q&sort=best_total"
browse dom "$tmp/run.html" "$url/runs/$id1"
browse dom "$tmp/evil.html" "$url/runs/evil-run"
browse dom "$tmp/calc.html" "$url/calc?$calc_q"
browse dom "$tmp/runs.html" "$url/runs"
browse dom "$tmp/efficiency.html" "$url/?sort=tokens_per_joule"
browse dom "$tmp/telemetry-run.html" "$url/runs/telemetry-run"

python3 "$here/check_pages.py" "$tmp" "$gpu"

for page in "leaderboard|/" "leaderboard-all|/?kind=all" "filtered|/?kind=all&gpu=$gpu_q&sort=best_total" "runs|/runs" "run|/runs/$id1" \
            "calc|/calc?$calc_q" "hardware|/hardware" "models|/models" "compare|/compare?run=$id1&run=$id2" \
            "getting-started|/getting-started" "api|/api" "efficiency|/?sort=tokens_per_joule" "telemetry-run|/runs/telemetry-run"; do
  name=${page%%|*}
  path=${page#*|}
  browse light "$shots/$name.png" "$url$path"
  browse dark "$shots/$name-dark.png" "$url$path"
  [ -s "$shots/$name.png" ] && [ -s "$shots/$name-dark.png" ] || { echo "browser_test: no screenshot of $name" >&2; tail -20 "$tmp/chromium.log" >&2; exit 1; }
done
echo "browser_test: ok; screenshots in $shots"
