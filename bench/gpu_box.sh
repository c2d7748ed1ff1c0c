#!/usr/bin/env bash
# What speedmatrix sees and measures on a GPU machine, in one go (docs/performance.md, "On a GPU
# machine"). Three parts, each logged under OUT and summarised on stdout; a part that fails does
# not stop the next:
#
#  1. detection: `speedmatrix hardware` beside nvidia-smi's own view of the GPU;
#  2. llama-server on the GPU (Debian's build with its Vulkan backend, or the CPU when no Vulkan
#     device shows) with a synthetic model, one audited matrix: `run --precision P
#     --precision-audit` runs every window to the cap and records where the adaptive rule would
#     have closed it and what it would have reported, beside the full window's own figure; the
#     same run's cells carry the GPU telemetry (power, energy, SM clock, temperature, throttle
#     verdict) read through NVML;
#  3. the client on this machine's cores: bench/hiccup, the self-test table, and REPEATS more
#     runs of its 1,024-stream point (lag p50/p99);
#  4. a llama-server pinned to the machine's last GPU, measured without --server-gpus: which GPU
#     the run found (the driver's process list), its hardware, and each window's power beside
#     nvidia-smi's per-GPU readings (runs before part 3 when both are asked for).
#
# Usage: bench/gpu_box.sh
# Environment:
#   BIN      speedmatrix binary (default build/speedmatrix)
#   HICCUP   bench/hiccup binary (default build/bench/hiccup)
#   REPLAY   bench/replay_precision binary (default build/bench/replay_precision): replays closing
#            rules on the audited windows' bins after part 2, when it is there
#   LLAMA    llama-server command (default: `scripts/get-llama-server --vulkan`, Debian's build
#            with its Vulkan backend; where the driver's Vulkan manifest is not in a standard
#            place, name it in VK_DRIVER_FILES, e.g. /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json)
#   OUT      where logs and run folders go (default a temporary folder)
#   PARTS    which parts to run (default 1,2,4,3)
#   PIN_VAR  part 4: the variable that pins llama-server to one GPU (default GGML_VK_VISIBLE_DEVICES,
#            the Vulkan build's; CUDA_VISIBLE_DEVICES for a CUDA build)
#   SHAPE    synth-model flags of the model served (default: 16 layers, hidden 2048, ~1.1 B
#            parameters, f16)
#   CONTEXTS, CONCURRENCY, MAX_OUTPUT, DURATION, PRECISION: the audited matrix (defaults 1K,4K,16K;
#            1,4,16; 15000; 30; 2%). On the CPU: 512,1K,2K; 1,2,4; 4096.
#   REPEATS  extra 1,024-stream self-test runs (default 3)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-"$root/build/speedmatrix"}
hiccup=${HICCUP:-"$root/build/bench/hiccup"}
replay=${REPLAY:-"$root/build/bench/replay_precision"}
out=${OUT:-$(mktemp -d)}
parts=${PARTS:-1,2,4,3}
mkdir -p "$out"
t_start=$(date +%s)
say() { echo "== [$(( $(date +%s) - t_start ))s] $*"; }
has_part() { [[ ",$parts," == *",$1,"* ]]; }

say "machine: $(nproc) cores, $(uname -r), $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}")"
"$bin" --version 2>&1 | head -1

# --- 1. detection ---------------------------------------------------------------------------------
if has_part 1; then
  say "1. detection"
  nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit,clocks.max.sm,clocks.max.mem,pcie.link.gen.current,pcie.link.width.current,temperature.gpu,power.draw,clocks_event_reasons.active \
    --format=csv 2>&1 | tee "$out/nvidia-smi.csv"
  "$bin" hardware --out "$out/hardware.json" > "$out/hardware.txt" 2>&1
  echo "speedmatrix hardware (rc $?):"; cat "$out/hardware.txt"
fi

# --- 2. llama-server on the GPU, one audited matrix -------------------------------------------------
if has_part 2; then
  llama=${LLAMA:-$("$root/scripts/get-llama-server" --vulkan)}
  say "2. llama-server: $llama"
  "$llama" --list-devices > "$out/llama-devices.txt" 2>&1
  cat "$out/llama-devices.txt" | grep -v "^ggml_\|^load_backend" | head -8
  model="$out/synth.gguf"
  if grep -q "Vulkan0" "$out/llama-devices.txt"; then
    where=gpu
    shape=${SHAPE:-"--layers 16 --hidden 2048 --heads 16 --kv-heads 4 --ffn 8192 --ctx 32K"}
    contexts=${CONTEXTS:-1K,4K,16K} concurrency=${CONCURRENCY:-1,4,16} max_output=${MAX_OUTPUT:-15000}
    slots=16 slot_ctx=32768 server_flags="-ngl 99"
  else
    where=cpu
    shape=${SHAPE:-"--layers 16 --hidden 1024 --heads 16 --kv-heads 4 --ffn 3072 --ctx 32K"}
    contexts=${CONTEXTS:-512,1K,2K} concurrency=${CONCURRENCY:-1,2,4} max_output=${MAX_OUTPUT:-4096}
    slots=4 slot_ctx=8192 server_flags="-t $(( $(nproc) / 2 ))"
  fi
  say "serving on the $where: synth-model $shape"
  # shellcheck disable=SC2086
  "$bin" synth-model $shape --seed 1 --out "$model" 2>&1 | tail -1
  launch="$llama -m $model --host 127.0.0.1 --port 18123 -c $(( slots * slot_ctx )) -np $slots $server_flags --metrics"
  say "audited matrix: contexts $contexts x concurrency $concurrency, ${DURATION:-30} s windows"
  # nvidia-smi's own readings every second beside the run's telemetry, to check one against the other
  nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu,clocks_event_reasons.active \
    --format=csv -lms 1000 > "$out/nvidia-smi-during.csv" 2>/dev/null &
  smi_pid=$!
  BIN="$bin" AUDIT=1 OUT="$out/audit" DURATION=${DURATION:-30} PRECISION=${PRECISION:-2%} \
    "$root/bench/adaptive_windows.sh" --launch "$launch" --contexts "$contexts" \
    --concurrency "$concurrency" --prefill-contexts "$contexts" --max-output "$max_output" \
    2>&1 | tee "$out/audit.txt"
  kill "$smi_pid" 2>/dev/null
  [ -x "$replay" ] && [ -f "$out/audit/audit/result.json" ] && "$replay" "$out/audit/audit/result.json"
  if [ -f "$out/audit/audit/result.json" ]; then
    python3 - "$out/audit/audit/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r.get("telemetry") or {}
print("telemetry:", {k: t.get(k) for k in ("gpu_source", "gpu_unavailable", "host", "server", "client_side_only")})
for g in t.get("gpus") or []:
    print("  gpu:", g)
hw = r.get("hardware") or {}
print("hardware:", json.dumps(hw)[:600])
print(f"{'cell':>14} {'tok/s':>9} {'W':>6} {'tok/J':>7} {'SM MHz':>7} {'max C':>6} {'throttle':>17} {'cpu %':>6} {'queued':>6} {'kv max':>6}")
def f(v, fmt):
    width = int(fmt.split(".")[0].rstrip("dfe") or 0)
    return format(v, fmt) if isinstance(v, (int, float)) else "-".rjust(width)
for c in r.get("prefill", []):
    print(f"{'prefill ' + str(c['context']):>14} {f(c.get('prompt_tok_s'), '9.0f')} {f(c.get('gpu_power_w'), '6.0f')} "
          f"{f(c.get('tokens_per_joule'), '7.1f')} {f(c.get('gpu_sm_clock_mhz'), '7.0f')} {f(c.get('gpu_temp_max_c'), '6.0f')} "
          f"{c.get('throttle', ''):>17}")
for c in r.get("decode", []):
    print(f"{str(c['context']) + ' x ' + str(c['concurrency']):>14} {f(c.get('total_tok_s'), '9.1f')} {f(c.get('gpu_power_w'), '6.0f')} "
          f"{f(c.get('tokens_per_joule'), '7.2f')} {f(c.get('gpu_sm_clock_mhz'), '7.0f')} {f(c.get('gpu_temp_max_c'), '6.0f')} "
          f"{c.get('throttle', ''):>17} {f(c.get('host_cpu_util_pct'), '6.1f')} {f(c.get('server_waiting_max'), '6d')} "
          f"{f(c.get('server_kv_usage_max'), '6.3f')}")
PY
    # Each window against nvidia-smi's own readings inside it, and the GPU samples around its
    # opening (docs/performance.md, "On a GPU machine": telemetry against nvidia-smi, idle clocks).
    python3 - "$out/audit/audit" "$out/nvidia-smi-during.csv" <<'PY'
import datetime, json, sys
run, smi_file = sys.argv[1], sys.argv[2]
lines = [json.loads(l) for l in open(f"{run}/telemetry.jsonl")]
start = next(l for l in lines if l["kind"] == "start")
to_unix_ms = lambda t_ns: start["unix_ms"] + (t_ns - start["t_ns"]) / 1e6
smi = []
try:
    for row in open(smi_file).read().splitlines()[1:]:
        f = [x.strip() for x in row.split(",")]
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
        smi.append((t.timestamp() * 1000, float(f[1].split()[0]), float(f[2].split()[0]), float(f[5].split()[0])))
except (OSError, ValueError, IndexError):
    pass
r = json.load(open(f"{run}/result.json"))
gpu = [l for l in lines if l["kind"] == "gpu"]
mean = lambda v: sum(v) / len(v) if v else float("nan")
print(f"{'window':>16} {'W':>6} {'smi W':>6} {'MHz':>6} {'smi MHz':>7} {'util %':>6} {'smi n':>5}  GPU samples from the opening (s: MHz util%)")
for w in (l for l in lines if l["kind"] == "window"):
    cells = r["decode"] if w["phase"] == "decode" else r["prefill"]
    c = next((c for c in cells if c["context"] == w["context"] and (w["phase"] == "prefill" or c["concurrency"] == w["concurrency"])), {})
    a, b = to_unix_ms(w["t_ns"]), to_unix_ms(w["end_ns"])
    inside = [x for x in smi if a <= x[0] <= b]
    opening = [(round((x["t_ns"] - w["t_ns"]) / 1e9, 1), x["gpus"][0].get("sm_clock_mhz"), x["gpus"][0].get("util_pct"))
               for x in gpu if w["t_ns"] <= x["t_ns"] <= w["t_ns"] + 1.5e9]
    num = lambda v, spec: format(v, spec) if isinstance(v, (int, float)) else "-"
    print(f"{w['phase'] + ' ' + str(w['context']) + ' x ' + str(w['concurrency']):>16} {num(c.get('gpu_power_w'), '6.0f'):>6} "
          f"{mean([x[1] for x in inside]):6.0f} {num(c.get('gpu_sm_clock_mhz'), '6.0f'):>6} {mean([x[2] for x in inside]):7.0f} "
          f"{num(c.get('gpu_util_pct'), '6.0f'):>6} {len(inside):5d}  {opening}")
PY
  fi
fi

# --- 4. a server pinned to one GPU: only its GPU counts ----------------------------------------------
# llama-server on the machine's last GPU (GGML_VK_VISIBLE_DEVICES for the Vulkan build; set
# PIN_VAR=CUDA_VISIBLE_DEVICES for a CUDA build), then one short matrix without --server-gpus:
# the run must find the GPU through the driver's process list (telemetry.server_gpus_source
# "process_list"), list that GPU alone in its hardware, and its power beside nvidia-smi's readings
# of that GPU, not the sum of all (docs/METRICS.md, "The server's GPUs").
if has_part 4; then
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
  if [ "$gpus" -lt 1 ]; then
    say "4. skipped: nvidia-smi lists no GPU"
  else
    pin=$(( gpus - 1 )) pin_var=${PIN_VAR:-GGML_VK_VISIBLE_DEVICES}
    llama=${LLAMA:-$("$root/scripts/get-llama-server" --vulkan)}
    say "4. llama-server pinned to GPU $pin of $gpus ($pin_var=$pin)"
    model="$out/pinned.gguf"
    "$bin" synth-model --layers 16 --hidden 2048 --heads 16 --kv-heads 4 --ffn 8192 --ctx 32K --seed 1 --out "$model" 2>&1 | tail -1
    nvidia-smi --query-gpu=timestamp,index,power.draw,utilization.gpu --format=csv,noheader -lms 500 \
      > "$out/nvidia-smi-pinned.csv" 2>/dev/null &
    smi_pid=$!
    "$bin" run --launch "$pin_var=$pin $llama -m $model --host 127.0.0.1 --port 18124 -c 65536 -np 4 -ngl 99 --metrics" \
      --contexts 1K --concurrency 1,4 --prefill-contexts 1K --max-output 4096 --duration 15 \
      --out "$out/pinned" > "$out/pinned.txt" 2>&1
    echo "run rc $?"; tail -5 "$out/pinned.txt"
    kill "$smi_pid" 2>/dev/null
    [ -f "$out/pinned/result.json" ] && python3 - "$out/pinned/result.json" "$out/nvidia-smi-pinned.csv" "$out/pinned/telemetry.jsonl" <<'PY'
import json, sys, datetime
r = json.load(open(sys.argv[1]))
t = r.get("telemetry") or {}
print("server GPUs:", t.get("server_gpus"), t.get("server_gpus_source"), "-", t.get("server_gpus_detail"))
hw = r.get("hardware") or {}
print("hardware GPUs:", [g.get("name") for g in hw.get("gpus", [])], "machine_gpu_count:", hw.get("machine_gpu_count"))
lines = [json.loads(l) for l in open(sys.argv[3])]
start = next(l for l in lines if l["kind"] == "start")
to_ms = lambda t_ns: start["unix_ms"] + (t_ns - start["t_ns"]) / 1e6
smi = []
for row in open(sys.argv[2]).read().splitlines():
    f = [x.strip() for x in row.split(",")]
    try:
        when = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
        smi.append((when.timestamp() * 1000, int(f[1]), float(f[2].split()[0]), float(f[3].split()[0])))
    except (ValueError, IndexError):
        pass
mean = lambda v: sum(v) / len(v) if v else float("nan")
print(f"{'window':>14} {'W':>6} {'tok/J':>6} {'util':>5}  nvidia-smi per GPU (W, util %)")
for w in (l for l in lines if l["kind"] == "window" and l["phase"] == "decode"):
    c = next(c for c in r["decode"] if c["context"] == w["context"] and c["concurrency"] == w["concurrency"])
    a, b = to_ms(w["t_ns"]), to_ms(w["end_ns"])
    per = {}
    for when, i, watts, util in smi:
        if a <= when <= b:
            per.setdefault(i, []).append((watts, util))
    shown = "  ".join(f"GPU {i}: {mean([x[0] for x in v]):.0f} W {mean([x[1] for x in v]):.0f}%" for i, v in sorted(per.items()))
    num = lambda v, spec: format(v, spec) if isinstance(v, (int, float)) else "-"
    print(f"{str(c['context']) + ' x ' + str(c['concurrency']):>14} {num(c.get('gpu_power_w'), '6.0f')} "
          f"{num(c.get('tokens_per_joule'), '6.2f')} {num(c.get('gpu_util_pct'), '5.0f')}  {shown}")
PY
  fi
fi

# --- 3. the client on this machine's cores ---------------------------------------------------------
if has_part 3; then
  say "3. client: bench/hiccup, then the self-test"
  "$hiccup" 3 1,2 2>&1 | tee "$out/hiccup.txt"
  "$bin" selftest --streams 1,64,1024 2>&1 | tee "$out/selftest.txt"
  echo "1,024 streams, ${REPEATS:-3} more runs (the last with the telemetry sampler beside the client):"
  for i in $(seq 1 "${REPEATS:-3}"); do
    extra=(); [ "$i" = "${REPEATS:-3}" ] && extra=(--telemetry)
    "$bin" selftest --streams 1024 --no-python --format json "${extra[@]}" > "$out/selftest-1024-$i.json" 2> "$out/selftest-1024-$i.err"; sed "s/^/  /" "$out/selftest-1024-$i.err"
    python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))[0]; print("  tokens/s {tokens_per_s:,.0f}  lag p50 {lag_p50_us:.0f} us  p99 {lag_p99_us:.0f} us  RSS {rss_mib:.1f} MiB".format(**p), sys.argv[2])' \
      "$out/selftest-1024-$i.json" "${extra[*]}" || tail -3 "$out/selftest-1024-$i.json"
  done
fi
say "done; logs in $out"
