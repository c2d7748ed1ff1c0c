"""What a script can trust, against a real llama-server (issue 29): defaults fitted to a
4,096-token server, exit codes when the server dies mid-run, --resume --retry-failed once it is
back, and a finished run resumed.

Usage: llama_server_outcomes.py BINARY SOURCE_DIR WORK_DIR
Starts its own llama-server (Debian's, a synthetic model) and ends it, also when a check fails.
"""
import ctypes
import json
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

# Every process this test starts ends with it, however it ends: SIGTERM (ctest stopping it, a
# timeout) runs the `finally` below, and each child gets SIGKILL from the kernel when this
# process dies (PR_SET_PDEATHSIG), SIGKILL included: a test stopped mid-run once left its
# llama-server running, adopted by init.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
PR_SET_PDEATHSIG = 1


def die_with_this_test():
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


binary, source_dir, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
for old in ("outcomes-fitted", "outcomes-killed"):  # an earlier run's folders (a run refuses to overwrite one)
    shutil.rmtree(work / old, ignore_errors=True)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


got = subprocess.run([str(source_dir / "scripts/get-llama-server")], capture_output=True, text=True)
if got.returncode != 0:
    print("skipped: llama-server could not be fetched:", got.stderr[-500:])
    sys.exit(77)
server_bin = got.stdout.strip()
model = work / "outcomes-small.gguf"
subprocess.run([binary, "synth-model", "--shape", "small", "--seed", "3", "--out", str(model)], check=True,
               stdout=subprocess.DEVNULL)
port = free_port()
url = f"http://127.0.0.1:{port}"
servers = []


def start_server():
    # -c 16384 -np 4: four slots of 4,096 tokens each (the demo's server: max model length 4,096).
    log = open(work / f"outcomes-server-{len(servers)}.log", "w")
    p = subprocess.Popen([server_bin, "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c", "16384",
                          "-np", "4", "-t", "1", "--metrics"], stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True, preexec_fn=die_with_this_test)
    servers.append(p)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    return p
        except OSError:
            pass
        if p.poll() is not None:
            break
        time.sleep(0.2)
    raise RuntimeError("llama-server did not become healthy")


def run(args, **kw):
    return subprocess.run([binary, "run", *args], capture_output=True, text=True, timeout=600, **kw)


def result(folder):
    return json.loads((folder / "result.json").read_text())


try:
    start_server()
    matrix = ["--contexts", "0,1K", "--concurrency", "1,2", "--prefill-contexts", "512", "--duration", "3",
              "--no-selftest", "--quiet"]

    # The plan asks the server (GET requests only) and fits max output to its 4,096 tokens.
    dry = run(["--dry-run", "--url", url, *matrix])
    check(dry.returncode == 0, f"--dry-run --url exits 0 (got {dry.returncode})")
    check("max output 1,024 tokens, fitted to the server" in dry.stdout, "the plan says max output was fitted")
    check("5 of 5 rows and cells will run" in dry.stdout,
          "every planned row and cell will run")

    # Before: every cell "too long" (8,192 output tokens), exit 0. Now: measured, exit 0.
    first = work / "outcomes-fitted"
    fitted = run(["--url", url, "--out", str(first), *matrix])
    check(fitted.returncode == 0, f"a fitted run exits 0 (got {fitted.returncode}: {fitted.stderr[-300:]})")
    r = result(first)
    check(r["settings"]["max_output_tokens"] == 1024, f"max output 1,024 (got {r['settings']['max_output_tokens']})")
    check(all(c["status"] == "valid" for c in r["decode"]) and len(r["decode"]) == 4, "all four decode cells valid")
    check(any("fitted to the server" in n for n in r["settings"].get("plan_notes", [])), "plan_notes say why")

    # The server dies in the middle of a run: the rest are errors and the exit status says so.
    second = work / "outcomes-killed"
    longer = ["--contexts", "0,1K,2K", "--concurrency", "1,2", "--prefill-contexts", "none", "--duration", "3",
              "--max-output", "256", "--no-selftest", "--quiet", "--drain-timeout", "5", "--request-timeout", "30"]
    proc = subprocess.Popen([binary, "run", "--url", url, "--out", str(second), *longer], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=die_with_this_test)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if sum(c["status"] == "valid" for c in result(second)["decode"]) >= 2:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    servers[-1].send_signal(signal.SIGKILL)
    servers[-1].wait()
    out, err = proc.communicate(timeout=600)
    check(proc.returncode == 3, f"a run whose server died exits 3 (got {proc.returncode})")
    check("ended in error" in err and "--retry-failed" in err, "its last line says what failed and what to do")
    killed = result(second)
    errors = sum(c["status"] == "error" for c in killed["decode"])
    check(errors >= 1, f"the cells after the kill are errors ({errors})")

    # Back again: --retry-failed measures them; the run ends 0; resumed once more, it is finished.
    start_server()
    retry = run(["--resume", str(second), "--url", url, "--retry-failed", "--quiet", "--no-selftest"])
    check(retry.returncode == 0, f"--resume --retry-failed exits 0 (got {retry.returncode}: {retry.stderr[-300:]})")
    check("--retry-failed: measuring" in retry.stderr, "it says what it retries")
    check(all(c["status"] == "valid" for c in result(second)["decode"]), "every cell valid after the retry")
    again = run(["--resume", str(second), "--quiet"])
    check(again.returncode == 0 and "is finished: nothing left to measure" in again.stderr,
          f"a finished run resumed says so (exit {again.returncode}: {again.stderr.strip()[-200:]})")
finally:
    for p in servers:
        if p.poll() is None:
            p.kill()
            p.wait()

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
