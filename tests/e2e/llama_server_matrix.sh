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
  --duration 3 --max-output 128 --out "$out" --quiet --mixed-prefill 2K --mixed-prefill-around 2
python3 "$here/check_llama_result.py" "$out"
# Issue 33 point 3: a 2K prompt alone, then landing among 3 decoding streams (4 slots, one left).
python3 - "$out" <<'PY'
import json, sys
r = json.load(open(f"{sys.argv[1]}/result.json"))
rows = r.get("mixed_prefill", [])
assert [m["context"] for m in rows] == [2048], f"a mixed-prefill row for 2K: {rows}"
m = rows[0]
assert m["status"] == "valid", m
assert m["background_streams"] == 3, m
assert m["ttft_alone_ms"] > 0 and m["ttft_loaded_ms"] > 0, m
assert m["background_before_tok_s"] > 0 and m["background_after_tok_s"] > 0, m
assert m["sent_at_s"] >= 2 and m["first_token_at_s"] > m["sent_at_s"], m
assert len(m["timeline_tok_s"]) >= 4, m
assert "## Mixed prefill" in open(f"{sys.argv[1]}/report.md").read()
assert 'id="mixed-prefill-chart-2048"' in open(f"{sys.argv[1]}/report.html").read()
print("mixed prefill 2K among 3: TTFT {:.0f} ms alone, {:.0f} ms among them; streams {:.0f} -> {:.0f} -> {:.0f} tok/s; longest pause {} ms".format(
    m["ttft_alone_ms"], m["ttft_loaded_ms"], m["background_before_tok_s"], m["background_during_tok_s"] or 0,
    m["background_after_tok_s"], m["longest_gap_ms"]))
PY

# Issue 4: compare works on two real runs. A second, smaller run with 2 slots instead of 4; at
# 4 simultaneous requests it can only generate 2 at a time, so its total tok/s there is lower.
out2="$work/e2e-run-2slots"
rm -rf "$out2"
launch2="$server -m $model --host 127.0.0.1 --port $port -c 8192 -np 2 -t 1 --metrics"
# Issue 34 point 3 rides along: an SLO search per context (two probes at most); and issue 33
# point 6: every request's record in requests.jsonl.
"$binary" run --launch "$launch2" --no-selftest \
  --contexts 0,1K --concurrency 1,4 --prefill-contexts 512 \
  --duration 3 --max-output 128 --out "$out2" --quiet --slo tpot=100ms,probes=2 --save-requests
python3 - "$out2" <<'PY'
import json, sys
r = json.load(open(f"{sys.argv[1]}/result.json"))
searches = {s["context"]: s for s in r.get("slo_search", [])}
assert sorted(searches) == [0, 1024], f"an SLO search per context: {sorted(searches)}"
for ctx, s in searches.items():
    assert s["basis"] in ("found", "at_least", "none", "probe_limit"), f"context {ctx}: basis {s['basis']}"
    assert len([p for p in s["points"] if p["source"] == "probe"]) <= 2, f"context {ctx}: at most 2 probes"
assert "SLO search" in open(f"{sys.argv[1]}/report.md").read(), "the report's SLO search section"
print("SLO search:", {c: (s["basis"], s["concurrency"]) for c, s in searches.items()})
lines = [json.loads(l) for l in open(f"{sys.argv[1]}/requests.jsonl")]
purposes = {}
for l in lines:
    purposes[l["purpose"]] = purposes.get(l["purpose"], 0) + 1
for p in ("calibration", "warm-up", "prefill", "decode"):  # SLO probes only where the matrix cannot answer
    assert purposes.get(p), f"requests.jsonl has no {p} request: {purposes}"
prefill = [l for l in lines if l["purpose"] == "prefill"]
assert [l["prompt_tokens"] for l in prefill] == [512], f"the prefill row's request: {prefill}"
cells = {(l["context"], l["concurrency"]) for l in lines if l["purpose"] == "decode"}
assert cells == {(0, 1), (0, 4), (1024, 1), (1024, 4)}, f"decode cells in requests.jsonl: {cells}"
for l in lines:
    if l["purpose"] == "decode" and l["status"] == "finished":
        assert l["output_tokens"] == 128 and l["token_count_source"] == "timings", l
        assert 0 < l["ttft_ms"] <= l["last_token_ms"] <= l["end_ms"], l
print(f"requests.jsonl: {len(lines)} requests, {purposes}")
PY
"$binary" compare "$out/result.json" "$out2/result.json" --format md >"$work/compare.md"
"$binary" compare "$out/result.json" "$out2/result.json" --format html >"$work/compare.html"
NO_COLOR=1 "$binary" compare "$out/result.json" "$out2/result.json" --format term >"$work/compare.txt"
python3 "$here/check_llama_compare.py" "$work/compare.md" "$work/compare.html" "$work/compare.txt" "$out/result.json" "$out2/result.json"

# Issue 34: the first run's capacity (users at each default floor per context) and the HTML
# report's first screen (capacity table, Pareto chart).
python3 - "$out" <<'PY'
import json, sys
run = sys.argv[1]
r = json.load(open(f"{run}/result.json"))
contexts = sorted({c["context"] for c in r["decode"] if c["status"] == "valid"})
points = {(p["context"], p["floor_tok_s"]) for p in r["capacity"]}
missing = [(c, f) for c in contexts for f in (10, 20, 50) if (c, f) not in points]
assert not missing, f"capacity points missing: {missing}"
html = open(f"{run}/report.html").read()
at = {k: html.find(f'id="{k}"') for k in ("headline", "capacity", "pareto-chart", "decode")}
assert all(v != -1 for v in at.values()), f"report sections missing: {at}"
assert at["headline"] < at["capacity"] < at["pareto-chart"] < at["decode"], f"the first screen: headline, capacity, Pareto ({at})"
print(f"capacity: {len(r['capacity'])} points over contexts {contexts}; report opens with capacity and Pareto")
PY

# Issue 34 point 5: a power-limit sweep against llama-server. This machine has no GPU, so the
# "command" records the limits it is given; each limit's run is a run of its own, and the limit
# given to --power-limit-restore is set at the end.
sweep="$work/e2e-power-limits"
rm -rf "$sweep" "$work/limits.log"
"$binary" run --launch "$launch2" --no-selftest \
  --contexts 0 --concurrency 1,2 --prefill-contexts none --duration 2 --max-output 64 --out "$sweep" --quiet \
  --power-limits 150,200 --power-limit-command "echo {watts} >> $work/limits.log" --power-limit-restore 250
python3 - "$sweep" "$work/limits.log" <<'PY'
import json, sys
sweep, log = sys.argv[1], sys.argv[2]
assert open(log).read().split() == ["150", "200", "250"], open(log).read()
for w in (150, 200):
    r = json.load(open(f"{sweep}/power-{w}W/result.json"))
    assert all(c["status"] == "valid" for c in r["decode"]), [c["status"] for c in r["decode"]]
md = open(f"{sweep}/power-limits.md").read()
for text in ("| 150 W |", "| 200 W |", "| 0 × 2 |", "No GPU energy was read"):
    assert text in md, f"{text!r} not in power-limits.md:\n{md}"
assert "Power-limit sweep" in open(f"{sweep}/power-limits.html").read()
print("power-limit sweep: limits 150, 200 measured, 250 restored; summary written")
PY

# Issue 33 point 2: speculative decoding. The synthetic model drafts for itself (-md, the same
# file): at temperature 0 the draft's greedy token is the target's, so drafts are accepted; the
# server's spec_decode counters give each cell's acceptance and the report warns the figures
# are a floor on random-token prompts.
spec="$work/e2e-spec"
rm -rf "$spec"
launch3="$server -m $model -md $model --spec-type draft-simple --host 127.0.0.1 --port $port -c 4096 -np 1 -t 1 --metrics"
"$binary" run --launch "$launch3" --no-selftest \
  --contexts 0 --concurrency 1 --prefill-contexts none --duration 3 --max-output 128 --out "$spec" --quiet
python3 - "$spec" <<'PY'
import json, sys
run = sys.argv[1]
r = json.load(open(f"{run}/result.json"))
cells = [c for c in r["decode"] if c["status"] == "valid"]
assert cells, [c["status"] for c in r["decode"]]
c = cells[0]
assert c.get("spec_draft_tokens", 0) > 0, f"no draft tokens counted: {c}"
share = c["spec_accepted_tokens"] / c["spec_draft_tokens"]
assert share > 0.5, f"a draft identical to the target should be accepted: {share:.2f}"
md = open(f"{run}/report.md").read()
assert "## Speculative decoding" in md and "decode figures are a floor" in md, "the report's speculation section and warning"
print(f"speculative decoding: {c['spec_draft_tokens']} draft tokens, {100 * share:.0f}% accepted, "
      f"{c['total_tok_s']:.0f} tok/s, {c.get('tokens_per_chunk')} tokens per chunk")
PY
# A draft that is another model (another seed, the same vocabulary) guesses the target's tokens
# far less often: the counters say so.
draft="$work/e2e-small-draft.gguf"
"$binary" synth-model --shape small --seed 4 --out "$draft" >/dev/null
spec2="$work/e2e-spec-other"
rm -rf "$spec2"
launch4="$server -m $model -md $draft --spec-type draft-simple --host 127.0.0.1 --port $port -c 4096 -np 1 -t 1 --metrics"
"$binary" run --launch "$launch4" --no-selftest \
  --contexts 0 --concurrency 1 --prefill-contexts none --duration 3 --max-output 128 --out "$spec2" --quiet
python3 - "$spec" "$spec2" <<'PY'
import json, sys
def share(run):
    c = [c for c in json.load(open(f"{run}/result.json"))["decode"] if c["status"] == "valid"][0]
    assert c.get("spec_draft_tokens", 0) > 0, f"no draft tokens counted: {c}"
    return c["spec_accepted_tokens"] / c["spec_draft_tokens"]
same, other = share(sys.argv[1]), share(sys.argv[2])
assert other < same and other < 0.5, f"another model's drafts should be accepted less: {other:.2f} vs {same:.2f}"
print(f"speculative decoding: the same model's drafts {100 * same:.0f}% accepted, another's {100 * other:.0f}%")
PY

# Issue 33 point 1: prompts cut from the built-in natural text, answers ended by the model
# (--natural-eos: no ignore_eos), and prompts cut from a user's JSON Lines dataset; each at the
# exact length llama-server's own tokenizer counts.
natural="$work/e2e-natural"
rm -rf "$natural"
"$binary" run --launch "$launch2" --no-selftest \
  --contexts 1K --concurrency 2 --prefill-contexts 1K --duration 3 --max-output 64 --out "$natural" --quiet \
  --prompts text --natural-eos --save-requests
dataset="$work/e2e-prompts.jsonl"
python3 -c '
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(40):
        f.write(json.dumps({"messages": [{"role": "user", "content": f"Request {i}: summarise the benefits of paged attention for serving many users at once."}]}) + "\n")
' "$dataset"
fromdata="$work/e2e-dataset"
rm -rf "$fromdata"
"$binary" run --launch "$launch2" --no-selftest \
  --contexts 2K --concurrency 1 --prefill-contexts none --duration 2 --max-output 32 --out "$fromdata" --quiet \
  --dataset "$dataset"
python3 - "$natural" "$fromdata" "$source_dir" <<'PY'
import json, sys
natural, fromdata, source = sys.argv[1], sys.argv[2], sys.argv[3]
r = json.load(open(f"{natural}/result.json"))
s = r["settings"]
assert s["prompts"] == "text" and s["natural_eos"] is True, s
assert s["prompt_corpus"]["licence"] == "public domain" and len(s["prompt_corpus"]["sha256"]) == 64, s["prompt_corpus"]
assert "profile" not in s or not s["profile"], s.get("profile")
c = r["decode"][0]
assert c["status"] == "valid" and c["prompt_length_ok"], c
assert c["prompt_tokens_min"] == c["prompt_tokens_max"] == 1024, c
assert c["requests_ended"] > 0 and 0 < c["ended_output_tokens"]["p50"] <= 64, c
assert r["prefill"][0]["status"] == "valid", r["prefill"][0]
import hashlib  # the run read exactly the shipped text
assert hashlib.sha256(open(f"{source}/data/corpus/natural-text.txt", "rb").read()).hexdigest() == s["prompt_corpus"]["sha256"]
lines = [json.loads(l) for l in open(f"{natural}/requests.jsonl")]
assert all(l["prompt_tokens"] == 1024 for l in lines if l["purpose"] in ("prefill", "decode") and l.get("prompt_tokens")), "exact lengths"
md = open(f"{natural}/report.md").read()
assert "Natural text: News from Nowhere" in md and "## Answer lengths" in md, "the report's prompts fact and answer lengths"
d = json.load(open(f"{fromdata}/result.json"))
assert d["settings"]["prompts"] == "dataset" and d["settings"]["prompt_corpus"]["texts"] == 40, d["settings"]
dc = d["decode"][0]
assert dc["status"] == "valid" and dc["prompt_tokens_min"] == dc["prompt_tokens_max"] == 2048, dc
print(f"prompt sources: natural text 1K x 2 at {c['total_tok_s']:.0f} tok/s, {c['requests_ended']} answers ended "
      f"(p50 {c['ended_output_tokens']['p50']:.0f} tokens); dataset 2K x 1 at {dc['total_tok_s']:.0f} tok/s")
PY

# Issue 33 point 4: sessions that grow turn by turn. 2 sessions of 3 turns on 2 slots, each turn
# resending the conversation with the model's answers; llama.cpp's timings.cache_n says how much
# of each prompt its slot still held. Then a small trace with a shared opening, replayed 4x.
sessions="$work/e2e-sessions"
rm -rf "$sessions"
"$binary" run --launch "$launch2" --no-selftest --contexts none --prefill-contexts none --out "$sessions" --quiet \
  --sessions 2x3 --session-lengths first=512,user=64,answer=32
trace="$work/e2e-trace.jsonl"
cat >"$trace" <<'TRACE'
{"session": "a", "timestamp_s": 0.0, "input_tokens": 80, "output_tokens": 24, "prefix": "sys", "prefix_tokens": 300}
{"session": "b", "timestamp_s": 0.4, "input_tokens": 60, "output_tokens": 24, "prefix": "sys"}
{"session": "a", "timestamp_s": 2.0, "input_tokens": 40, "output_tokens": 24}
{"session": "b", "timestamp_s": 2.4, "input_tokens": 50, "output_tokens": 24}
TRACE
replay="$work/e2e-trace-run"
rm -rf "$replay"
"$binary" run --launch "$launch2" --no-selftest --contexts none --prefill-contexts none --out "$replay" --quiet \
  --trace "$trace" --trace-speed 4
python3 - "$sessions" "$replay" <<'PY'
import json, sys
sessions, replay = sys.argv[1], sys.argv[2]
r = json.load(open(f"{sessions}/result.json"))
s = r["sessions"]
assert s["status"] == "valid" and s["requests"] == 6 and s["failed"] == 0, s
turns = s["by_turn"]
assert [t["turn"] for t in turns] == [1, 2, 3], turns
assert turns[0]["cached_share"] < 0.2, f"turn 1 is new text: {turns[0]}"
for t in turns[1:]:
    assert t["cached_share"] > 0.5, f"a later turn's conversation is in the slot's cache: {t}"
    assert t["prompt_tokens_mean"] > turns[0]["prompt_tokens_mean"], turns
lines = [json.loads(l) for l in open(f"{sessions}/requests.jsonl")]
mine = [l for l in lines if l["purpose"] == "session"]
assert len(mine) == 6 and {(l["session"], l["turn"]) for l in mine} == {(a, b) for a in (1, 2) for b in (1, 2, 3)}, mine
assert all(l["cached_prompt_tokens"] is not None for l in mine), mine
assert "## Sessions" in open(f"{sessions}/report.md").read()
t = json.load(open(f"{replay}/result.json"))
ts = t["sessions"]
assert t["settings"]["sessions"]["source"] == "trace" and t["settings"]["sessions"]["trace_requests"] == 4, t["settings"]
assert ts["status"] == "valid" and ts["requests"] == 4 and ts["failed"] == 0, ts
assert ts["send_late_p90_ms"] is not None, ts
print("sessions 2x3: context {} -> {} tokens, cached {} -> {}, TTFT {:.0f} -> {:.0f} ms, decode {:.0f} -> {:.0f} tok/s each; "
      "cache hit rate {:.0%}; trace: {} turns, hit rate {:.0%}, sent late p90 {:.0f} ms".format(
    round(turns[0]["prompt_tokens_mean"]), round(turns[-1]["prompt_tokens_mean"]),
    f"{turns[0]['cached_share']:.0%}", f"{turns[-1]['cached_share']:.0%}",
    turns[0]["ttft_p50_ms"], turns[-1]["ttft_p50_ms"], turns[0]["decode_tok_s_p50"], turns[-1]["decode_tok_s_p50"],
    s["cache_hit_rate"], ts["requests"], ts["cache_hit_rate"] or 0, ts["send_late_p90_ms"]))
PY

# Issue 33 point 5: the chat endpoint with the model's own chat template (the synthetic model
# carries one); prompts still at the exact length by the server's count, template included.
chat="$work/e2e-chat"
rm -rf "$chat"
"$binary" run --launch "$launch2" --no-selftest --api chat \
  --contexts 1K --concurrency 1,2 --prefill-contexts 512 --duration 2 --max-output 32 --out "$chat" --quiet --save-requests
python3 - "$chat" <<'PY'
import json, sys
run = sys.argv[1]
r = json.load(open(f"{run}/result.json"))
assert r["settings"]["api"] == "chat", r["settings"]["api"]
for c in r["decode"]:
    assert c["status"] == "valid" and c["prompt_length_ok"], c
    assert c["prompt_tokens_min"] == c["prompt_tokens_max"] == 1024, c
assert r["prefill"][0]["status"] == "valid" and r["prefill"][0]["prompt_tokens"] == 512, r["prefill"][0]
lines = [json.loads(l) for l in open(f"{run}/requests.jsonl")]
assert all(l["prompt_tokens"] == 1024 for l in lines if l["purpose"] == "decode" and l["prompt_tokens"] is not None), "exact lengths"
print("chat: 1K x {} at {} tok/s, prefill 512 at {:.0f} tok/s".format(
    [c["concurrency"] for c in r["decode"]], [round(c["total_tok_s"]) for c in r["decode"]], r["prefill"][0]["prompt_tok_s"]))
PY
