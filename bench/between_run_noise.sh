#!/usr/bin/env bash
# Between-run noise (docs/performance.md, "Between-run noise"): the same matrix run N times, one
# run after the other, against (a) the built-in simulated engine and (b) a real llama-server with a
# synthetic model, and, per decode cell and prefill row, how far the runs' figures spread:
# max/min − 1 and the coefficient of variation (sample standard deviation ÷ mean), beside the
# cell's own within-window 95% half-width (median over the runs). `compare`'s floor for
# between-run noise (kBetweenRunNoiseFloor, docs/reports.md) is set from these figures.
#
# Usage: bench/between_run_noise.sh [run flags...]
#   e.g. bench/between_run_noise.sh                                   # both engines, defaults below
#        ENGINES=sim RUNS=3 bench/between_run_noise.sh --duration 5
# Defaults (flags given after them win): --contexts 0,1K --concurrency 1,2,4 --prefill-contexts 1K
#   --duration 10 --max-output 256 --no-selftest. Each llama-server run starts its own server
#   (--launch, as scripts/demo-llama does: -c 16384 -np 4 -t 1), so a run's cold start is part of
#   what varies, as it is for anyone who runs twice.
# Environment: RUNS (default 5), ENGINES (default "sim llama"), OUT (default a temporary folder),
#   BIN (default build/speedmatrix), SHAPE (synthetic model shape, default small).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-"$root/build/speedmatrix"}
[ -x "$bin" ] || { echo "build speedmatrix first: scripts/build speedmatrix" >&2; exit 1; }
runs=${RUNS:-5}
engines=${ENGINES:-"sim llama"}
shape=${SHAPE:-small}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
defaults=(--contexts 0,1K --concurrency 1,2,4 --prefill-contexts 1K --duration 10 --max-output 256 --no-selftest)

for engine in $engines; do
  target=()
  case "$engine" in
    sim) ;;
    llama)
      server=$("$root/scripts/get-llama-server")
      mkdir -p "$root/.cache/models"
      model="$root/.cache/models/noise-$shape.gguf"
      [ -f "$model" ] || "$bin" synth-model --shape "$shape" --seed 1 --out "$model" >&2
      port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
      # -t 1: llama.cpp's spinning worker threads do badly on a small shared machine; -np 4 slots.
      target=(--launch "$server -m $model --host 127.0.0.1 --port $port -c 16384 -np 4 -t 1 --metrics")
      ;;
    *) echo "unknown engine '$engine' (sim or llama)" >&2; exit 2 ;;
  esac
  for i in $(seq 1 "$runs"); do
    echo "between_run_noise: $engine run $i of $runs" >&2
    "$bin" run --quiet --format json "${defaults[@]}" "${target[@]}" --out "$out/$engine-$i" "$@" > /dev/null
  done
done

python3 - "$out" "$runs" $engines <<'PY'
import json, statistics, sys
out, runs, engines = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def spread(values):
    lo, hi = min(values), max(values)
    mean = statistics.mean(values)
    cv = statistics.stdev(values) / mean if len(values) > 1 and mean > 0 else 0.0
    return hi / lo - 1 if lo > 0 else float("inf"), cv, mean
for engine in engines:
    results = [json.load(open(f"{out}/{engine}-{i}/result.json")) for i in range(1, runs + 1)]
    print(f"\n{engine}: {runs} runs ({results[0]['engine'].get('kind', '?')})")
    print(f"{'cell':>14} {'mean tok/s':>11} {'max/min-1':>10} {'CV':>7} {'ci/value':>9}  per run")
    cvs, ranges = [], []
    keys = sorted({(c["context"], c["concurrency"]) for r in results for c in r["decode"]})
    for key in keys:
        cells = [next((c for c in r["decode"] if (c["context"], c["concurrency"]) == key), {}) for r in results]
        ok = [c for c in cells if c.get("status") == "valid" and c.get("total_tok_s")]
        if len(ok) < len(cells):
            print(f"{key[0]:>8} x {key[1]:<3} only {len(ok)} of {len(cells)} runs valid")
            if len(ok) < 2:
                continue
        values = [c["total_tok_s"] for c in ok]
        rng, cv, mean = spread(values)
        ci = [c["total_tok_s_ci"] / c["total_tok_s"] for c in ok if c.get("total_tok_s_ci") is not None]
        ci_text = f"{statistics.median(ci) * 100:>8.1f}%" if ci else f"{'-':>9}"
        cvs.append(cv); ranges.append(rng)
        print(f"{key[0]:>8} x {key[1]:<3} {mean:>11.1f} {rng * 100:>9.1f}% {cv * 100:>6.1f}% {ci_text}  "
              + " ".join(f"{v:.1f}" for v in values))
    for context in sorted({p["context"] for r in results for p in r["prefill"]}):
        rows = [next((p for p in r["prefill"] if p["context"] == context), {}) for r in results]
        values = [p["prompt_tok_s"] for p in rows if p.get("status") == "valid" and p.get("prompt_tok_s")]
        if len(values) < 2:
            continue
        rng, cv, mean = spread(values)
        print(f"{'prefill':>8} {context:<5} {mean:>11.1f} {rng * 100:>9.1f}% {cv * 100:>6.1f}% {'':>9}  "
              + " ".join(f"{v:.1f}" for v in values))
    if cvs:
        print(f"decode cells: CV median {statistics.median(cvs) * 100:.1f}%, largest {max(cvs) * 100:.1f}%; "
              f"max/min-1 median {statistics.median(ranges) * 100:.1f}%, largest {max(ranges) * 100:.1f}%; "
              f"one run's 95% half-width from run to run (1.96 x CV): median {1.96 * statistics.median(cvs) * 100:.1f}%, "
              f"largest {1.96 * max(cvs) * 100:.1f}%")
print(f"\nrun folders: {out}")
PY
