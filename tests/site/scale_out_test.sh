#!/usr/bin/env bash
# Scale-out (issue 15 part 5): two `speedmatrix serve` processes on one PostgreSQL database, as
# behind any HTTP load balancer.
#   1. 200 concurrent uploads spread over both (4 tokens, 50 each): every one answered 201, and
#      every run present exactly once — walked through keyset pages of both servers, and counted
#      in the database.
#   2. A listing cached by one server shows an upload through the other at once, and a run hidden
#      by `serve run hide` (a third process) leaves it at once.
#   3. The upload rate limit is one bucket per token for both servers: 120 uploads alternating
#      between them get through only the token's burst (60) plus what refilled meanwhile, where
#      per-process buckets would let all 120 through.
# Usage: scale_out_test.sh SPEEDMATRIX SOURCE_DIR     (exit 77: PostgreSQL not installed)
set -euo pipefail
bin=$1
here=$2

tmp=$(mktemp -d /tmp/sm-scale.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  bash "$here/pg_test_server.sh" stop "$tmp" || true
  rm -rf "$tmp"
}
trap cleanup EXIT

set +e
dsn=$(bash "$here/pg_test_server.sh" start "$tmp")
status=$?
set -e
[ $status -eq 0 ] || exit $status
psql -q "$dsn" -c "CREATE DATABASE speedmatrix_scale" >/dev/null
dsn=${dsn%/*}/speedmatrix_scale
echo "scale_out_test: PostgreSQL at $dsn"

tokens=()
for i in 1 2 3 4 5; do tokens+=("$("$bin" serve token create --db "$dsn" --name "scale-$i" 2>/dev/null)"); done

# Started in this shell, not in a $(...) subshell: there `pids+=($!)` would be lost, and the
# cleanup would leave both servers running after the test.
start_server() {  # $1: name
  "$bin" serve --db "$dsn" --listen 127.0.0.1:0 --threads 8 --rate-limit 60 >"$tmp/$1.out" 2>"$tmp/$1.err" &
  pids+=($!)
}
server_url() {  # $1: name; prints the base URL once /api/v1/health answers
  local url=""
  for _ in $(seq 300); do  # bounded: the health answer is the readiness, not the wait
    url=$(grep -o 'http://[0-9.:]*' "$tmp/$1.out" || true)
    if [ -n "$url" ] && curl -fsS "$url/api/v1/health" >/dev/null 2>&1; then
      echo "$url"
      return 0
    fi
    sleep 0.1
  done
  echo "scale_out_test: server $1 did not become healthy" >&2
  cat "$tmp/$1.err" >&2
  return 1
}
start_server a
start_server b
url_a=$(server_url a)
url_b=$(server_url b)
echo "scale_out_test: servers at $url_a and $url_b"

"$bin" calc --gpu "RTX 3090" --model Qwen3.5-4B --quant AWQ --engine vllm --contexts 0,16K --concurrency 1,2 \
  --prefill-contexts 32K --out "$tmp/base.json" >/dev/null

python3 - "$url_a" "$url_b" "$tmp/base.json" "${tokens[@]}" <<'PY'
import datetime, json, sys, threading, time, urllib.error, urllib.parse, urllib.request

url_a, url_b, base_path = sys.argv[1:4]
tokens = sys.argv[4:]
base = json.load(open(base_path))
# Of the standard profile, so the leaderboard ranks them (a matrix of its own would be Other runs).
base["settings"]["profile"] = "standard/1"
started = datetime.datetime.fromisoformat(base["started_at"].replace("Z", "+00:00"))

def body(i):
    run = json.loads(json.dumps(base))
    run["run_id"] = f"scale-{i:03}"
    # Another prefill speed (0.1% a run, over the site's 0.05% near-duplicate tolerance) and
    # another start time: other measurements, not a duplicate of the first run.
    for row in run["prefill"]:
        row["prompt_tok_s"] *= 1 + 0.001 * i
        row["ttft_ms"] /= 1 + 0.001 * i
    run["started_at"] = (started - datetime.timedelta(minutes=i + 1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    run["finished_at"] = (started - datetime.timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps(run).encode()

def post(url, data, token):
    request = urllib.request.Request(url + "/api/v1/runs", data=data, method="POST",
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")

def get(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return json.load(r)

# 1. 200 concurrent uploads, every other one to each server, 4 tokens of 50.
n = 200
bodies = [body(i) for i in range(n)]
answers = [None] * n
gate = threading.Barrier(n)
def upload(i):
    gate.wait()
    answers[i] = post(url_a if i % 2 == 0 else url_b, bodies[i], tokens[i % 4])
threads = [threading.Thread(target=upload, args=(i,)) for i in range(n)]
for t in threads: t.start()
for t in threads: t.join()
bad = [(i, a) for i, a in enumerate(answers) if a is None or a[0] != 201]
assert not bad, f"{len(bad)} uploads not created, e.g. {bad[:3]}"
print(f"scale_out_test: {n} concurrent uploads over 2 servers: all 201")

def walk(url, sort, limit):
    ids, link, pages = [], f"/api/v1/runs?kind=all&sort={sort}&limit={limit}", 0
    while link:
        page = get(url + link)
        assert page["offset"] == len(ids), (page["offset"], len(ids))
        ids += [r["run_id"] for r in page["runs"]]
        link = page["next"]
        pages += 1
        assert pages <= n, "the pages do not end"
    return ids

expected = {f"scale-{i:03}" for i in range(n)}
for url, sort, limit in ((url_a, "newest", 37), (url_b, "best_total", 23), (url_b, "prefill_32k", 50)):
    ids = walk(url, sort, limit)
    assert len(ids) == n and set(ids) == expected, f"{sort} on {url}: {len(ids)} rows, {len(set(ids))} distinct"
print("scale_out_test: every run listed exactly once, walking keyset pages on both servers")

# 2. B caches its leaderboard; an upload through A shows on B at once.
board = lambda url: get(url + "/api/v1/leaderboard?kind=predicted&limit=5")
before = board(url_b)["total"]
assert board(url_b)["total"] == before
status, answer = post(url_a, body(n), tokens[0])
assert status == 201, (status, answer)
assert board(url_b)["total"] == before + 1, "B's cached leaderboard did not see A's upload"
open(sys.argv[3] + ".new", "w").write(f"scale-{n:03}")
print("scale_out_test: an upload through A is on B's cached leaderboard at once")
PY

# A moderator's hide, from a third process: both servers drop it at once.
"$bin" serve run hide --db "$dsn" "$(cat "$tmp/base.json.new")" 2>/dev/null
python3 - "$url_a" "$url_b" "$(cat "$tmp/base.json.new")" "${tokens[4]}" <<'PY'
import json, sys, threading, time, urllib.error, urllib.request
url_a, url_b, hidden, token = sys.argv[1:5]
for url in (url_a, url_b):
    board = json.load(urllib.request.urlopen(url + "/api/v1/leaderboard?kind=predicted&limit=500"))
    assert hidden not in [r["run_id"] for r in board["runs"]] and board["total"] == 200, (url, board["total"])
print("scale_out_test: a run hidden by `serve run hide` left both servers' cached listings")

# 3. One bucket per token for both servers: 120 uploads alternating between them.
def post(url):
    request = urllib.request.Request(url + "/api/v1/runs", data=b"{}", method="POST",
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=60)
        return 200
    except urllib.error.HTTPError as e:
        return e.code
start = time.monotonic()
codes = [post(url_a if i % 2 == 0 else url_b) for i in range(120)]
elapsed = time.monotonic() - start
let_through = sum(1 for c in codes if c != 429)  # the body "{}" is refused (400) after the limit let it by
assert all(c in (400, 429) for c in codes), set(codes)
# A burst of 60, plus one a second refilled while the 120 went out (60 a minute).
assert 60 <= let_through <= 60 + int(elapsed) + 1, (let_through, elapsed)
print(f"scale_out_test: one bucket for both servers: {let_through} of 120 let through in {elapsed:.1f} s "
      f"(per-process buckets would let 120 through)")
PY
for pid in "${pids[@]}"; do kill "$pid"; wait "$pid" || true; done
pids=()
if grep -q 'status=5' "$tmp/a.err" "$tmp/b.err"; then
  echo "scale_out_test: a server answered 5xx:" >&2
  grep 'status=5' "$tmp/a.err" "$tmp/b.err" >&2
  exit 1
fi
echo "scale_out_test: ok"
