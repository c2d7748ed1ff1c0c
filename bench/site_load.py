#!/usr/bin/env python3
"""Load for bench/site_scale.sh: latency of the site's listings and the upload rate, over several
`speedmatrix serve` processes on one database (requests spread round-robin, like a load balancer).

Each client thread keeps one keep-alive connection per server and sends its share of the requests
back to back; a request's latency is from sending it to having read the whole answer. Prints a
Markdown table (the one docs/site.md keeps) and exits 1 when any answer was not 2xx.
"""
import argparse, datetime, http.client, json, sys, threading, time, urllib.parse


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


class Client:
    """One keep-alive connection per server."""

    def __init__(self, urls):
        self.addresses = [urllib.parse.urlsplit(u) for u in urls]
        self.conns = [self.connect(k) for k in range(len(urls))]

    def connect(self, k):
        return http.client.HTTPConnection(self.addresses[k].hostname, self.addresses[k].port, timeout=120)

    def request(self, i, method, path, body=None, headers=None):
        k = i % len(self.conns)
        for attempt in range(2):
            start = time.perf_counter()
            try:
                self.conns[k].request(method, path, body=body, headers=headers or {})
                r = self.conns[k].getresponse()
                r.read()
                return r.status, time.perf_counter() - start
            except (http.client.RemoteDisconnected, ConnectionError):
                # A keep-alive connection left idle past the server's 30 s header timeout was
                # closed: open another and send again (every request here may be repeated).
                self.conns[k].close()
                self.conns[k] = self.connect(k)
                if attempt == 1:
                    raise


def measure(urls, requests, concurrency):
    """requests: list of (method, path, body, headers). Returns (latencies_s, wall_s, failures)."""
    latencies, failures = [], []
    lock = threading.Lock()
    next_index = [0]

    def worker():
        client = Client(urls)
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= len(requests):
                return
            method, path, body, headers = requests[i]
            status, seconds = client.request(i, method, path, body, headers)
            with lock:
                latencies.append(seconds)
                if status >= 300:
                    failures.append((path, status))

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(latencies), time.perf_counter() - start, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cached", nargs="+", required=True)
    ap.add_argument("--uncached", nargs="+", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--base", required=True, help="a result.json to upload copies of")
    ap.add_argument("--deep-cursor", required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--reads", type=int, default=400)
    ap.add_argument("--uncached-reads", type=int, default=100)
    ap.add_argument("--upload-interval", type=float, default=0.5, help="seconds between uploads in the mixed case")
    ap.add_argument("--uploads", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--upload-concurrency", type=int, default=16)
    a = ap.parse_args()

    rows, failed = [], []

    def read_case(name, urls, path, n=a.reads):
        get = [("GET", path, None, None)] * n
        measure(urls, get[:4 * len(urls)], len(urls))  # warm-up, not counted: connections, caches, plans
        lat, wall, fails = measure(urls, get, a.concurrency)
        failed.extend(fails)
        rows.append((name, f"`{path[:60]}`", len(urls), n, percentile(lat, 50) * 1e3, percentile(lat, 95) * 1e3,
                     percentile(lat, 99) * 1e3, n / wall))

    # Uploads: copies of one result, each its own run (id, times and prefill speed: 0.1% steps
    # keep the site's near-duplicate check, 0.05% against the newest 20 of the setup, from
    # refusing them).
    base = json.load(open(a.base))
    started = datetime.datetime.fromisoformat(base["started_at"].replace("Z", "+00:00"))

    def upload_request(i):
        run = json.loads(json.dumps(base))
        run["run_id"] = f"bench-upload-{i:05}"
        for row in run["prefill"]:
            row["prompt_tok_s"] *= 1 + 0.001 * (i % 1000)
            row["ttft_ms"] /= 1 + 0.001 * (i % 1000)
        run["started_at"] = (started - datetime.timedelta(seconds=60 * i + 60)).strftime("%Y-%m-%dT%H:%M:%SZ")
        run["finished_at"] = (started - datetime.timedelta(seconds=60 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return ("POST", "/api/v1/runs", json.dumps(run).encode(),
                {"Authorization": "Bearer " + a.token, "Content-Type": "application/json"})

    cursor = urllib.parse.quote(a.deep_cursor, safe="~")
    for label, urls, n in (("cached", a.cached, a.reads), ("no cache", a.uncached, a.uncached_reads)):
        read_case(f"leaderboard page, {label}", urls, "/", n)
        read_case(f"leaderboard API, {label}", urls, "/api/v1/leaderboard", n)
        read_case(f"runs list page, {label}", urls, "/runs", n)
        read_case(f"runs list API, {label}", urls, "/api/v1/runs", n)
    read_case("runs list API 50,000 deep by cursor, no cache", a.uncached, "/api/v1/runs?cursor=" + cursor, a.uncached_reads)
    read_case("runs list API 50,000 deep by offset, no cache", a.uncached, "/api/v1/runs?offset=50000", a.uncached_reads)

    # Reads while uploads arrive: every upload empties every cache (the site's realistic case).
    stop = threading.Event()
    uploaded = [0]

    def trickle():
        client = Client(a.cached)
        i = a.uploads
        while not stop.is_set():
            status, _ = client.request(i, *upload_request(i))
            if status >= 300:
                failed.append(("trickle upload", status))
            uploaded[0] += 1
            i += 1
            stop.wait(a.upload_interval)

    uploader = threading.Thread(target=trickle)
    uploader.start()
    start = time.perf_counter()
    read_case(f"leaderboard page, cached, an upload every {a.upload_interval:g} s meanwhile", a.cached, "/", a.reads)
    read_case(f"leaderboard API, cached, an upload every {a.upload_interval:g} s meanwhile", a.cached,
              "/api/v1/leaderboard", a.reads)
    stop.set()
    uploader.join()
    print(f"site_load: {uploaded[0]} uploads in {time.perf_counter() - start:.0f} s during the mixed cases", file=sys.stderr)

    # Uploads through both cached servers, as fast as 16 clients send them.
    uploads = [upload_request(i) for i in range(a.uploads)]
    lat, wall, fails = measure(a.cached, uploads, a.upload_concurrency)
    failed.extend(fails)
    rows.append(("uploads (POST /api/v1/runs)", f"{len(base.get('decode', []))}-cell result, "
                 f"{len(uploads[0][2]) // 1024} KiB", len(a.cached), len(uploads), percentile(lat, 50) * 1e3,
                 percentile(lat, 95) * 1e3, percentile(lat, 99) * 1e3, len(uploads) / wall))

    print(f"\n{a.runs:,} seeded runs; {a.concurrency} client threads for reads, {a.upload_concurrency} for uploads\n")
    print("| what | request | servers | requests | p50 ms | p95 ms | p99 ms | per second |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, what, servers, n, p50, p95, p99, rate in rows:
        print(f"| {name} | {what} | {servers} | {n:,} | {p50:.1f} | {p95:.1f} | {p99:.1f} | {rate:,.0f} |")
    if failed:
        print(f"site_load: {len(failed)} answers were not 2xx, e.g. {failed[:3]}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
