"""What other load on the host does to a local server's figures, and what host_cpu_other_pct
reads meanwhile (docs/performance.md, "A busy host"; the threshold kBusyHostOtherCpuPct).

Starts Debian's llama-server (scripts/get-llama-server) with a synthetic model, then runs the
same small matrix ROUNDS times with no extra load and with LOAD busy-looping processes (each a
whole core), alternating, and prints per cell: each run's other-load share and total tok/s, and
the loaded runs' median tok/s against the idle runs'.

Usage: python3 bench/busy_host.py [BIN]   (default build/speedmatrix)
Environment: ROUNDS (default 3), LOAD (default 1), DURATION (default 5), THREADS (llama-server -t,
default 1), OUT (default a temporary folder).
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

root = Path(__file__).resolve().parent.parent
binary = sys.argv[1] if len(sys.argv) > 1 else str(root / "build/speedmatrix")
rounds = int(os.environ.get("ROUNDS", "3"))
load = int(os.environ.get("LOAD", "1"))
duration = os.environ.get("DURATION", "5")
threads = os.environ.get("THREADS", "1")
out = Path(os.environ.get("OUT") or tempfile.mkdtemp(prefix="busy-host-"))
out.mkdir(parents=True, exist_ok=True)

server_bin = subprocess.run([str(root / "scripts/get-llama-server")], check=True, capture_output=True,
                            text=True).stdout.strip()
model = out / "busy-small.gguf"
if not model.exists():
    subprocess.run([binary, "synth-model", "--shape", "small", "--seed", "3", "--out", str(model)], check=True,
                   stdout=subprocess.DEVNULL)
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
url = f"http://127.0.0.1:{port}"
server = subprocess.Popen([server_bin, "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c", "16384",
                           "-np", "4", "-t", threads, "--metrics"], stdout=open(out / "server.log", "w"),
                          stderr=subprocess.STDOUT, start_new_session=True)
hogs = []
try:
    for _ in range(600):
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.2)
    runs = []
    for i in range(rounds):
        for loaded in (False, True):
            if loaded:
                hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
            folder = out / f"run-{i}-{'loaded' if loaded else 'idle'}"
            subprocess.run([binary, "run", "--url", url, "--contexts", "0,1K", "--concurrency", "1,2",
                            "--prefill-contexts", "1K", "--duration", duration, "--max-output", "512",
                            "--no-selftest", "--quiet", "--format", "json", "--out", str(folder)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for h in hogs:
                h.kill()
                h.wait()
            hogs = []
            runs.append((loaded, json.loads((folder / "result.json").read_text())))
finally:
    for h in hogs:
        h.kill()
    server.kill()
    server.wait()

print(f"llama-server -t {threads} on {os.cpu_count()} CPUs; {rounds} idle and {rounds} runs with {load} busy "
      f"process(es); {duration} s windows; folders in {out}")
print(f"{'cell':>10} {'idle other %':>16} {'loaded other %':>18} {'idle tok/s':>22} {'loaded tok/s':>22} {'loaded/idle':>12}")
cells = [(c["context"], c["concurrency"]) for c in runs[0][1]["decode"]]
for key in [("prefill", 1024)] + cells:
    def figures(loaded):
        other, tok = [], []
        for l, r in runs:
            if l != loaded:
                continue
            if key[0] == "prefill":
                row = next(x for x in r["prefill"] if x["context"] == key[1])
                other.append(row.get("host_cpu_other_pct"))
                tok.append(row.get("prompt_tok_s"))
            else:
                c = next(x for x in r["decode"] if (x["context"], x["concurrency"]) == key)
                other.append(c.get("host_cpu_other_pct"))
                tok.append(c.get("total_tok_s"))
        return other, tok
    o_idle, t_idle = figures(False)
    o_load, t_load = figures(True)
    fmt = lambda v: ",".join("-" if x is None else f"{x:.0f}" for x in v)
    ratio = (statistics.median([t for t in t_load if t]) / statistics.median([t for t in t_idle if t])
             if all(t_load) and all(t_idle) else float("nan"))
    name = f"prefill {key[1]}" if key[0] == "prefill" else f"{key[0]} x {key[1]}"
    print(f"{name:>10} {fmt(o_idle):>16} {fmt(o_load):>18} {fmt(t_idle):>22} {fmt(t_load):>22} {ratio:>12.3f}")
