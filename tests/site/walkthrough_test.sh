#!/usr/bin/env bash
# The Getting started walkthrough, end to end, as a newcomer would type it: serve, create a
# token, run a (small) matrix against `speedmatrix sim` with --upload, see the run on the
# leaderboard (its Other runs: a matrix of its own is not ranked). Then the failure path: a run whose upload fails stays marked pending and
# `speedmatrix upload --pending` sends it once the site is back.
# Usage: walkthrough_test.sh SPEEDMATRIX
set -euo pipefail
bin=$1

tmp=$(mktemp -d /tmp/sm-walk.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for URL
  python3 - "$1" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1)
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit("not up: " + sys.argv[1])
PY
}
start_site() {
  "$bin" serve --db sqlite:results.db --listen "127.0.0.1:$site_port" >serve.out 2>serve.err &
  site_pid=$!
  pids+=("$site_pid")
  wait_for "$site/api/v1/health"
}

# 1. Serve.
site_port=$(free_port)
site="http://127.0.0.1:$site_port"
start_site
# 2. A token.
token=$("$bin" serve token create --db sqlite:results.db --name walkthrough 2>/dev/null)
[[ $token == smt_* ]] || { echo "walkthrough: no token" >&2; exit 1; }
# 3. Something to measure: the simulated engine.
sim_port=$(free_port)
"$bin" sim --listen "127.0.0.1:$sim_port" 2>sim.err &
pids+=("$!")
wait_for "http://127.0.0.1:$sim_port/health"
# 4. Run and upload.
"$bin" run --url "http://127.0.0.1:$sim_port" --contexts 0 --concurrency 1,2 --prefill-contexts none --duration 2 \
  --max-output 256 --quiet --upload "$site" --upload-token "$token" >run1.out 2>run1.err || { cat run1.err >&2; exit 1; }
grep -q "uploaded" run1.err || { cat run1.err >&2; exit 1; }
# A matrix of its own (no standard profile): the upload says it is listed apart, not ranked.
grep -q "listed under other runs, not ranked: no standard profile" run1.err || { cat run1.err >&2; exit 1; }
# 5. On the leaderboard's Simulated tab (measured runs are ranked apart), under its Other runs
#    (only runs of the standard profile are ranked).
python3 - "$site" <<'PY'
import json, sys, urllib.request
site = sys.argv[1]
assert json.load(urllib.request.urlopen(site + "/api/v1/leaderboard"))["total"] == 0, "a simulated run ranked as measured"
assert json.load(urllib.request.urlopen(site + "/api/v1/leaderboard?kind=simulated"))["total"] == 0, "a run of its own matrix ranked"
board = json.load(urllib.request.urlopen(site + "/api/v1/leaderboard?kind=simulated&profile=other"))
assert board["total"] == 1 and board["view"] == "other", board
run = board["runs"][0]
assert run["kind"] == "simulated" and run["engine"] == "sim" and run["single_stream_tok_s"] > 0 and run["valid_cells"] == 2, run
assert run["rank"] is None and run["profile"] == "" and run["ranked"] is False, run
page = urllib.request.urlopen(site + "/?kind=simulated&profile=other").read().decode()
assert run["run_id"] in page, "the run is not on the leaderboard's Other runs page"
report = urllib.request.urlopen(site + run["url"]).read().decode()
assert 'id="decode-matrix"' in report
assert 'id="run-profile"' in report
print(f"walkthrough: {run['model']} on {run['gpu']}: {run['single_stream_tok_s']:.1f} tok/s single stream, under Other runs")
PY

# The site goes away: the run is kept and marked pending.
kill "$site_pid"; wait "$site_pid" 2>/dev/null || true
set +e
"$bin" run --url "http://127.0.0.1:$sim_port" --contexts 0 --concurrency 1 --prefill-contexts none --duration 1 \
  --max-output 128 --quiet --out runs/offline --upload "$site" --upload-token "$token" >run2.out 2>run2.err
status=$?
set -e
[ $status -eq 1 ] || { echo "walkthrough: a failed upload must exit 1, got $status" >&2; cat run2.err >&2; exit 1; }
[ -f runs/offline/result.json ] && [ -f runs/offline/upload-pending.json ] || { echo "walkthrough: no pending marker" >&2; exit 1; }
grep -q "speedmatrix upload --pending" run2.err
start_site
SPEEDMATRIX_UPLOAD_TOKEN=$token "$bin" upload --pending runs
[ ! -f runs/offline/upload-pending.json ] || { echo "walkthrough: the marker stayed after the upload" >&2; exit 1; }
python3 - "$site" <<'PY'
import json, sys, urllib.request
board = json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/runs"))
assert board["total"] == 2, board
print("walkthrough: the pending run was sent once the site was back")
PY
# Moderation: a hidden run leaves the listings until it is shown again.
hide_id=$("$bin" serve run list --db sqlite:results.db --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["run_id"])')
"$bin" serve run hide --db sqlite:results.db "$hide_id" 2>/dev/null
python3 - "$site" "$hide_id" <<'PY'
import json, sys, urllib.error, urllib.request
site, hidden = sys.argv[1], sys.argv[2]
board = json.load(urllib.request.urlopen(site + "/api/v1/runs"))
assert board["total"] == 1 and all(r["run_id"] != hidden for r in board["runs"]), board
try:
    urllib.request.urlopen(site + "/runs/" + hidden)
    raise SystemExit("walkthrough: a hidden run's page is still served")
except urllib.error.HTTPError as e:
    assert e.code == 404, e.code
PY
"$bin" serve run list --db sqlite:results.db | grep -q "hidden" || { echo "walkthrough: run list does not show the hidden run" >&2; exit 1; }
"$bin" serve run unhide --db sqlite:results.db "$hide_id" 2>/dev/null
python3 - "$site" <<'PY'
import json, sys, urllib.request
assert json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/runs"))["total"] == 2
print("walkthrough: serve run hide and unhide")
PY
echo "walkthrough: ok"
