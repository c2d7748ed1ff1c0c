#!/usr/bin/env python3
"""Runs a small matrix against the embedded simulated engine (the seed's RTX 3090 + Qwen3.5-4B
AWQ + vLLM, no --url) and predicts the same matrix with `calc`; every decode cell's total tok/s
and every prefill row's tok/s must agree within 3%.

Usage: run_vs_calc.py SPEEDMATRIX_BINARY"""
import json
import subprocess
import sys
import tempfile

MATRIX = ["--contexts", "0,2K", "--concurrency", "1,4", "--prefill-contexts", "2K",
          "--duration", "3", "--max-output", "256"]
TOLERANCE = 0.03


def main() -> int:
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([binary, "run", "--no-selftest", "--out", f"{tmp}/run", *MATRIX],
                             capture_output=True, text=True, timeout=150)
        if run.returncode != 0:
            print(run.stdout, run.stderr, sep="\n")
            print(f"run exited {run.returncode}")
            return 1
        calc = subprocess.run([binary, "calc", "--gpu", "rtx3090", "--model", "qwen3.5-4b", "--quant", "awq-4bit",
                               "--engine", "vllm", "--gpu-mem-util", "0.94", "--format", "json", *MATRIX],
                              capture_output=True, text=True, timeout=60)
        if calc.returncode != 0:
            print(calc.stdout, calc.stderr, sep="\n")
            print(f"calc exited {calc.returncode}")
            return 1
        measured = json.load(open(f"{tmp}/run/result.json"))
        predicted = json.loads(calc.stdout)

    failures = []
    compared = 0
    if measured.get("kind") != "simulated":
        failures.append(f"the run against the embedded engine is labelled {measured.get('kind')!r}, not simulated")
    if predicted.get("kind") != "predicted":
        failures.append(f"calc's result is labelled {predicted.get('kind')!r}, not predicted")

    def check(what: str, got, want):
        nonlocal compared
        if got is None or want is None or want <= 0:
            failures.append(f"{what}: measured {got}, predicted {want}")
            return
        compared += 1
        ratio = got / want
        flag = "" if abs(ratio - 1) <= TOLERANCE else "  <-- outside 3%"
        print(f"{what:28s} measured {got:10.1f}  predicted {want:10.1f}  ratio {ratio:.4f}{flag}")
        if flag:
            failures.append(f"{what}: ratio {ratio:.4f}")

    pred_decode = {(c["context"], c["concurrency"]): c for c in predicted["decode"]}
    for cell in measured["decode"]:
        key = (cell["context"], cell["concurrency"])
        want = pred_decode.get(key)
        if want is None:
            failures.append(f"decode {key}: not predicted")
            continue
        if cell["status"] != want["status"]:
            failures.append(f"decode {key}: status {cell['status']} vs predicted {want['status']}")
            continue
        if cell["status"] != "valid":
            continue
        check(f"decode C={key[0]} N={key[1]} total tok/s", cell.get("total_tok_s"), want.get("total_tok_s"))
    pred_prefill = {r["context"]: r for r in predicted["prefill"]}
    for row in measured["prefill"]:
        want = pred_prefill.get(row["context"])
        if want is None or row["status"] != "valid":
            failures.append(f"prefill {row['context']}: status {row['status']} or not predicted")
            continue
        check(f"prefill C={row['context']} tok/s", row.get("prompt_tok_s"), want.get("prompt_tok_s"))
    if compared < 5:
        failures.append(f"only {compared} figures compared")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
