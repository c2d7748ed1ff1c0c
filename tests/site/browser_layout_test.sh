#!/usr/bin/env bash
# The results site's layouts in headless Chromium (issue 15 parts 3 and 4), driven over the
# DevTools protocol by layout_check.py:
#   layout    the leaderboard, the run list and the other listing pages at 1,280, 390 and 360 px
#             wide (English and Japanese, with a 120-character model name): no horizontal
#             overflow; on phones (390 and 360 px) the listings' sort links reachable and their
#             compare checkboxes whole, the leaderboard's first rank on the first screen
#   japanese  a Japanese page's heading drawn with real glyphs, not tofu; needs a Japanese font
#             (Debian's fonts-noto-cjk, installed by scripts/setup): without one this skips
#             (exit 77), except under CI where it fails
# Screenshots go to OUT_DIR/screenshots.
# Usage: browser_layout_test.sh SPEEDMATRIX OUT_DIR SOURCE_DIR layout|japanese
set -euo pipefail
bin=$1
out=$2
here=$3
mode=$4

chrome=""
for c in chromium chromium-browser google-chrome; do
  command -v "$c" >/dev/null 2>&1 && { chrome=$(command -v "$c"); break; }
done
if [ -z "$chrome" ]; then
  if [ -n "${CI:-}" ]; then echo "browser_layout_test: Chromium is not installed (scripts/setup installs it)" >&2; exit 1; fi
  echo "browser_layout_test: Chromium is not installed; skipping" >&2
  exit 77
fi
if [ "$mode" = japanese ] && [ -z "$(fc-list :lang=ja 2>/dev/null)" ]; then
  if [ -n "${CI:-}" ]; then
    echo "browser_layout_test: no Japanese font (fc-list :lang=ja is empty; scripts/setup installs fonts-noto-cjk)" >&2
    exit 1
  fi
  echo "browser_layout_test: SKIPPED: no Japanese font on this machine (fc-list :lang=ja is empty)." >&2
  echo "  Japanese text would be drawn as tofu boxes; install Debian's fonts-noto-cjk (scripts/setup does) to run it." >&2
  exit 77
fi

tmp=$(mktemp -d /tmp/sm-layout.XXXXXX)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
shots="$out/screenshots"
mkdir -p "$shots"

db="sqlite:$tmp/results.db"
token=$("$bin" serve token create --db "$db" --name layout 2>/dev/null)
"$bin" serve --db "$db" --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
server_pid=$!
for _ in $(seq 50); do grep -q 'listening on' "$tmp/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$tmp/serve.out")
[ -n "$url" ] || { cat "$tmp/serve.err" >&2; exit 1; }

# Runs of every kind, one with a long model name and hardware name (truncated in the tables).
"$bin" calc --gpu "RTX 3090" --model Qwen3.5-4B --quant AWQ --engine vllm --out "$tmp/r1.json" >/dev/null
"$bin" calc --gpu "H100" --model Qwen3.5-4B --quant AWQ --engine sglang --contexts 0,32K --out "$tmp/r2.json" >/dev/null
PYTHONPATH="$here" python3 - "$tmp/r1.json" "$tmp" <<'PY'
import json, sys
from measured_like import as_measured
r = json.load(open(sys.argv[1]))
for i, kind in enumerate(["measured", "simulated", "measured"]):
    x = json.loads(json.dumps(r))
    x["run_id"] = f"layout-{i}"
    x["kind"] = kind
    if kind == "measured":
        as_measured(x)
    # Seconds 00-02 set the order; finished_at follows so it is never before started_at.
    x["started_at"] = x["started_at"][:17] + f"{i:02d}" + x["started_at"][19:]
    x["finished_at"] = x["started_at"]
    x["engine"]["model_path"] = ""
    x["engine"]["model"] = ("Very-Long-Model-Name-" * 6 + f"{i}") if i == 0 else f"Qwen3.5-4B-variant-{i}"
    x["hardware"]["source"] = "probed"
    # Two ranked runs (the long name among them) and a quick one under Other runs.
    x["settings"]["profile"] = "quick/1" if i == 1 else "standard/1"
    json.dump(x, open(f"{sys.argv[2]}/l{i}.json", "w"))
PY
"$bin" upload "$tmp/r1.json" "$tmp/r2.json" "$tmp/l0.json" "$tmp/l1.json" "$tmp/l2.json" --to "$url" --token "$token" >/dev/null
id1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/r1.json")
id2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/r2.json")

if [ "$mode" = layout ]; then
  python3 "$here/layout_check.py" layout "$chrome" "$shots" \
    "$url/" "$url/?kind=all&flagged=include" "$url/?kind=all&profile=other" "$url/runs" "$url/?kind=all&lang=ja" \
    "$url/?kind=all&profile=other&lang=ja" "$url/runs?lang=ja" \
    "$url/hardware?kind=all" "$url/models?kind=all" "$url/benchmarks" "$url/api" "$url/getting-started" \
    "$url/getting-started?lang=en" "$url/runs?lang=en" "$url/api?lang=en" \
    "$url/compare" "$url/calc"
  python3 "$here/layout_check.py" phone "$chrome" "$shots" \
    "$url/" "$url/?kind=all&flagged=include" "$url/?kind=all&lang=ja" "$url/runs" "$url/compare?lang=ja" "$url/?lang=en"
  # The compare view's permalink reproduces the comparison.
  link=$(python3 - "$url/compare?run=$id1&run=$id2" <<'PY'
import re, sys, urllib.request, html
page = urllib.request.urlopen(sys.argv[1]).read().decode()
m = re.search(r'id="permalink">[^<]*<a href="([^"]+)"', page)
print(html.unescape(m.group(1)) if m else "")
PY
)
  [ "$link" = "$url/compare?run=$id1&run=$id2" ] || { echo "browser_layout_test: permalink is '$link'" >&2; exit 1; }
else
  python3 "$here/layout_check.py" japanese "$chrome" "$shots" "$url/?lang=ja&kind=all"
fi
echo "browser_layout_test: $mode ok; screenshots in $shots"
