#!/usr/bin/env python3
"""Load for bench/site_heavy.sh: latency of the cheap routes (/api/v1/health, the leaderboard)
while 16 clients keep requesting a heavy page (a run of 1,000 decode cells) back to back.

The heavy clients are threads of a child process, each with its own keep-alive connection; the
probe is the parent process, one keep-alive connection per route, one request at a time, so the
heavy clients' reading does not delay the probe's (Python's lock is per process). A probe
request's latency is from sending it to having read the whole answer. Prints a Markdown table
(the one docs/site.md keeps) and exits 1 when a probe answer was not 200.
"""
import argparse, http.client, multiprocessing, sys, threading, time, urllib.parse


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def connect(url):
    u = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=120)


def get(conn, path):
    start = time.perf_counter()
    conn.request("GET", path)
    r = conn.getresponse()
    r.read()
    return r.status, time.perf_counter() - start


def heavy_load(url, paths, clients, stop, started, counts):
    """Child process: `clients` threads, each requesting the heavy paths in turn until `stop`."""
    lock = threading.Lock()

    def client(k):
        conn = connect(url)
        i = k
        while not stop.is_set():
            try:
                status, _ = get(conn, paths[i % len(paths)])
            except (http.client.HTTPException, ConnectionError):
                conn.close()
                conn = connect(url)
                continue
            i += 1
            with lock:
                counts["ok" if status == 200 else str(status)] = counts.get("ok" if status == 200 else str(status), 0) + 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    started.set()
    for t in threads:
        t.join()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--heavy", nargs="+", required=True, help="heavy paths, requested in turn")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20, help="how long the probe runs under load")
    ap.add_argument("--interval-ms", type=float, default=10, help="between two probe requests")
    ap.add_argument("--quiet-probes", type=int, default=100, help="requests per cheap route with no load")
    ap.add_argument("--label", default="")
    a = ap.parse_args()

    routes = [("health", "/api/v1/health"), ("leaderboard page", "/"), ("leaderboard API", "/api/v1/leaderboard")]
    # Alone first: what the cheap routes cost with nothing else running.
    quiet = {}
    conns = {path: connect(a.url) for _, path in routes}
    for name, path in routes:
        for _ in range(5):
            get(conns[path], path)  # warm-up (the listing cache, the connection)
        quiet[name] = sorted(get(conns[path], path)[1] for _ in range(a.quiet_probes))

    manager = multiprocessing.Manager()
    counts = manager.dict()
    stop, started = multiprocessing.Event(), multiprocessing.Event()
    load = multiprocessing.Process(target=heavy_load, args=(a.url, a.heavy, a.clients, stop, started, counts))
    load.start()
    started.wait()
    single = connect(a.url)
    heavy_alone = None
    loaded, failures = {name: [] for name, _ in routes}, []
    t0 = time.perf_counter()
    i = 0
    while time.perf_counter() - t0 < a.seconds:
        name, path = routes[i % len(routes)]
        status, seconds = get(conns[path], path)
        loaded[name].append(seconds)
        if status != 200:
            failures.append((path, status))
        i += 1
        delay = t0 + i * a.interval_ms / 1e3 - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    wall_s = time.perf_counter() - t0
    stop.set()
    load.join()
    heavy = dict(counts)
    # One heavy page alone, for scale.
    get(single, a.heavy[0])
    heavy_alone = sorted(get(single, a.heavy[0])[1] for _ in range(10))

    label = f" ({a.label})" if a.label else ""
    print(f"| route{label} | alone p50 ms | alone p99 ms | requests | with {a.clients} heavy clients: p50 ms | p95 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, path in routes:
        q, l = quiet[name], sorted(loaded[name])
        print(f"| {name} `{path}` | {percentile(q, 50) * 1e3:.1f} | {percentile(q, 99) * 1e3:.1f} | {len(l)} | "
              f"{percentile(l, 50) * 1e3:.1f} | {percentile(l, 95) * 1e3:.1f} | {percentile(l, 99) * 1e3:.1f} | "
              f"{l[-1] * 1e3:.1f} |")
    ok = heavy.pop("ok", 0)
    others = ", ".join(f"{n} answered {s}" for s, n in sorted(heavy.items())) or "none refused"
    print(f"\nheavy pages: {ok} answered 200 in {wall_s:.1f} s ({ok / wall_s:.1f} a second; {others}); "
          f"one alone: p50 {percentile(heavy_alone, 50) * 1e3:.0f} ms")
    if failures:
        print(f"probe failures: {failures[:5]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
