#!/usr/bin/env bash
# Adaptive windows against fixed ones, side by side (docs/performance.md, "Adaptive windows").
# Runs the same matrix twice against the same server — fixed windows of --duration, then
# --precision P with --duration as the cap — and prints, per decode cell, both total tok/s, their
# difference, and each run's wall time.
#
# Usage: bench/adaptive_windows.sh [run flags...]
#   e.g. bench/adaptive_windows.sh                                   # embedded engine, seed matrix
#        bench/adaptive_windows.sh --url http://127.0.0.1:8080 --contexts 0,1K --concurrency 1,2,4
# Environment: PRECISION (default 2%), DURATION (default 30), OUT (default a temporary folder),
#   BIN (default build/speedmatrix): the build measured; BEFORE_BIN (optional): another speedmatrix build, run a third time with --precision, to show
#   what the matrix's total time was before a change to what surrounds the cells.
# Each run's wall time is split as its result's `timing` says (docs/METRICS.md, "Where the time went").
#
# AUDIT=1: one run instead, `--precision P --precision-audit`: every window runs the full
#   --duration, and each cell says where the adaptive rule would have closed it and what it would
#   have reported; printed beside the full window's own figure. Both numbers come from the same
#   window, so a server whose speed moves between runs cannot hide (or fake) the projection's error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-"$root/build/speedmatrix"}
[ -x "$bin" ] || { echo "build speedmatrix first: scripts/build speedmatrix" >&2; exit 1; }
precision=${PRECISION:-2%}
duration=${DURATION:-30}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
run() {
  local name=$1; shift
  local t0 t1 b="$bin"
  if [ "$name" = before ]; then b=$BEFORE_BIN; fi
  t0=$(date +%s.%N)
  "$b" run --quiet --format json --no-selftest --duration "$duration" --out "$out/$name" "$@" > /dev/null
  t1=$(date +%s.%N)
  echo "$t0 $t1" > "$out/$name.wall_s"
}
if [ -n "${AUDIT:-}" ]; then
  run audit --precision "$precision" --precision-audit "$@"
  python3 - "$out" "$duration" <<'PY'
import json, sys
out, duration = sys.argv[1], float(sys.argv[2])
r = json.load(open(f"{out}/audit/result.json"))
print(f"{'cell':>14} {'full window':>12} {'would report':>20} {'diff':>7} {'would close':>12}")
worst, saved = 0.0, 0.0
for c in r["decode"]:
    if c.get("status") != "valid":
        continue
    key = f"{c['context']:>8} x {c['concurrency']:<3}"
    if c.get("audit_tok_s") is None:
        print(f"{key} {c['total_tok_s']:>12.1f} {'(never settled)':>20} {'':>7} {'cap':>12}")
        continue
    d = c["audit_tok_s"] / c["total_tok_s"] - 1
    worst = max(worst, abs(d))
    saved += c["measured_s"] - c["audit_close_s"]
    print(f"{key} {c['total_tok_s']:>12.1f} {c['audit_tok_s']:>12.1f} ± {c['audit_tok_s_ci']:>5.1f} {d*100:>6.2f}% "
          f"{c['audit_close_s']:>11.0f}s")
total = r["timing"]["total_s"]
print(f"wall time: this run (full windows) {total:.0f} s; adaptive windows would have taken about "
      f"{total - saved:.0f} s ({(total - saved) / total * 100:.0f}%); largest difference {worst * 100:.2f}%")
PY
  exit 0
fi
run fixed "$@"
run adaptive --precision "$precision" "$@"
if [ -n "${BEFORE_BIN:-}" ]; then run before --precision "$precision" "$@"; fi
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def load(name):
    r = json.load(open(f"{out}/{name}/result.json"))
    return {(c["context"], c["concurrency"]): c for c in r["decode"]}, (lambda t: float(t[1]) - float(t[0]))(open(f"{out}/{name}.wall_s").read().split())
fixed, fixed_s = load("fixed")
adaptive, adaptive_s = load("adaptive")
print(f"{'cell':>14} {'fixed tok/s':>12} {'adaptive tok/s':>15} {'diff':>7} {'window':>8} settled")
worst = 0.0
for key in sorted(fixed):
    f, a = fixed[key], adaptive.get(key, {})
    if f.get("status") != "valid" or a.get("status") != "valid":
        print(f"{key[0]:>8} x {key[1]:<3} {f.get('status')} / {a.get('status')}")
        continue
    d = a["total_tok_s"] / f["total_tok_s"] - 1
    worst = max(worst, abs(d))
    print(f"{key[0]:>8} x {key[1]:<3} {f['total_tok_s']:>12.1f} {a['total_tok_s']:>15.1f} {d*100:>6.2f}% "
          f"{a['measured_s']:>7.1f}s {a.get('settled')}")
print(f"wall time: fixed {fixed_s:.0f} s, adaptive {adaptive_s:.0f} s ({adaptive_s / fixed_s * 100:.0f}%); "
      f"largest per-cell difference {worst * 100:.2f}%")
import os
names = ["fixed", "adaptive"] + (["before"] if os.path.exists(f"{out}/before/result.json") else [])
keys = ["windows_s", "ramp_s", "wind_down_s", "warmup_s", "idle_wait_s", "prefill_s", "prompts_s", "setup_s"]
print(f"{'where the time went (s)':>24} " + " ".join(f"{k[:-2]:>9}" for k in keys) + f" {'other':>7} {'total':>7}")
for name in names:
    t = json.load(open(f"{out}/{name}/result.json")).get("timing")
    if not t:
        print(f"{name:>24} (no timing in this build's result)")
        continue
    other = t["total_s"] - sum(t[k] for k in keys)
    label = "adaptive, before" if name == "before" else name
    print(f"{label:>24} " + " ".join(f"{t[k]:>9.1f}" for k in keys) + f" {other:>7.1f} {t['total_s']:>7.1f}")
PY
