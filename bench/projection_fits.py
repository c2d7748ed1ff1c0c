#!/usr/bin/env python3
"""How far each trend fit's projection from a window's first seconds lands from the full window.

Reads audited runs (`run --precision P --precision-audit`: each valid decode cell keeps its full
window's per-second bins, audit_bins_tok_s) and prints, per cell, the projection of the full
window's mean rate from the first N seconds, as a % difference from the full window's own figure,
for two fits (docs/METRICS.md, "Adaptive windows"):
  lin   1/rate = a + b*t   (the fit before 2026-12-05)
  sq    1/rate^2 = a + b*t (the fit now: streams in lock-step)
No interval, no closing rule: only the fits' shapes, on the same bins.

--drop-first subtracts one token from each window's first second: the token that opened the
window, which audits made before commit 8a12689 still counted there.

Usage: bench/projection_fits.py [--seconds 5,8,12,20] [--drop-first] RESULT.json...
"""
import argparse
import json
import math


def fit(ts, ys):
    t_mean = sum(ts) / len(ts)
    y_mean = sum(ys) / len(ys)
    slope = sum((t - t_mean) * (y - y_mean) for t, y in zip(ts, ys)) / sum((t - t_mean) ** 2 for t in ts)
    return y_mean - slope * t_mean, slope


def projection(bins, full_s, power):
    """Mean rate over [0, full_s] of the trend fitted to 1/rate^power (power 1 or 2); 0 if none."""
    ts = [i + 0.5 for i in range(len(bins))]
    a, b = fit(ts, [1 / x ** power for x in bins])
    end = a + b * full_s
    if a <= 0 or end <= 0:
        return 0.0
    if power == 2:
        return 2 / (math.sqrt(end) + math.sqrt(a))
    return 1 / a if abs(b * full_s / a) < 1e-12 else math.log1p(b * full_s / a) / (b * full_s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", default="5,8,12,20")
    ap.add_argument("--drop-first", action="store_true")
    ap.add_argument("results", nargs="+")
    args = ap.parse_args()
    seconds = [int(s) for s in args.seconds.split(",")]
    errors = {(fit_name, n): [] for fit_name in ("lin", "sq") for n in seconds}
    print(f"{'cell':>24} " + " ".join(f"{f'{n}s lin/sq':>16}" for n in seconds))
    for path in args.results:
        result = json.load(open(path))
        for cell in result["decode"]:
            bins = list(cell.get("audit_bins_tok_s") or [])
            if cell.get("status") != "valid" or len(bins) < max(seconds):
                continue
            if args.drop_first:
                bins[0] -= 1
            full = cell["total_tok_s"]
            full_s = cell.get("measured_s") or result["settings"]["duration_s"]
            row = []
            for n in seconds:
                lin = projection(bins[:n], full_s, 1) / full - 1
                sq = projection(bins[:n], full_s, 2) / full - 1
                errors[("lin", n)].append(abs(lin))
                errors[("sq", n)].append(abs(sq))
                row.append(f"{lin * 100:+7.2f}/{sq * 100:+7.2f}%")
            print(f"{cell['context']:>10} x {cell['concurrency']:<4} {'':>6}" + " ".join(f"{r:>16}" for r in row))
    for n in seconds:
        lin, sq = errors[("lin", n)], errors[("sq", n)]
        if lin:
            print(f"from {n:>2} s: mean |error| lin {sum(lin) / len(lin) * 100:.2f}% (worst {max(lin) * 100:.2f}%), "
                  f"sq {sum(sq) / len(sq) * 100:.2f}% (worst {max(sq) * 100:.2f}%), {len(lin)} cells")


if __name__ == "__main__":
    main()
