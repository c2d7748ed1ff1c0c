#!/usr/bin/env python3
"""The HTML report in headless Chromium, opened from disk with networking off.

Renders the seed fixture with the real binary, loads it in Chromium (no network: a dead proxy,
unresolvable hosts, background services off), dumps the DOM and checks that
  - every section of the seed page and the report's own sections are there,
  - every row of the seed page's tables reads the same in the DOM (the page as a browser copies
    it, tests/fixtures/seed-page.txt, joins each row's cells),
  - the page fetched nothing from the network (Chromium's net log),
  - a model name holding markup renders as text and runs no script;
and that the telemetry fixture's run folder renders its time chart (every window) and its
tokens-per-joule matrix; and saves screenshots in the build folder: report-seed.png (1280 px),
report-seed-phone.png (390 px), report-seed-dark.png (dark colour scheme), report-telemetry.png.

Exit 0: passed; 1: failed; 77: skipped (no Chromium).
"""
import argparse
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Flags that keep Chromium off the network and away from the user's profile.
OFFLINE_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--hide-scrollbars",
    "--proxy-server=127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND",
]

SECTION_IDS = [
    "title", "hardware", "engine", "run", "launch-command", "prefill", "prefill-chart", "decode",
    "decode-matrix", "total-chart", "per-request-chart", "per-request-matrix", "measurements",
    "measurements-table", "prefill-table", "definitions", "token-counts",
]

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def find_chromium():
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(chromium, url, extra, timeout_s=120):
    profile = tempfile.mkdtemp(prefix="speedmatrix-chromium-")
    try:
        proc = subprocess.run([chromium, *OFFLINE_FLAGS, f"--user-data-dir={profile}", *extra, url],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout_s, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode(errors="replace")[-4000:])
    return proc


class Dom(html.parser.HTMLParser):
    """Element ids and tags, all text, and each table's rows as lists of cell texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.tags = []
        self.title = ""
        self.text = []
        self.rows = {}          # table id -> list of rows, each a list of cell texts
        self._table_ids = []
        self._row = None
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "table":
            self._table_ids.append(attrs.get("id", ""))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._row.append("")
        elif tag == "title" and not self.title:
            self._in_title = True  # the document's title; SVG <title> tooltips come later

    def handle_endtag(self, tag):
        if tag == "table" and self._table_ids:
            self._table_ids.pop()
        elif tag == "tr" and self._row is not None:
            table = self._table_ids[-1] if self._table_ids else ""
            self.rows.setdefault(table, []).append(self._row)
            self._row = None
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self._row:
            self._row[-1] += data
        if self._in_title:
            self.title += data

    def row_texts(self, table):
        """The rows of a table as a browser copies them: cells run together."""
        return ["".join(cells) for cells in self.rows.get(table, [])]


def parse_dom(text):
    dom = Dom()
    dom.feed(text)
    return dom


# Names the report changed on purpose so they mean what other tools mean by them (docs/reports.md,
# "Against the seed page"; the same list as kRenamed in tests/report/seed_page_test.cc).
RENAMED = [
    ("total tok/s · rows are context length", "output tok/s (all requests) · rows are context length"),
    ("StatusTotal tok/sPer request tok/sTTFTTime",
     "StatusOutput tok/s (all requests)Per request tok/sTTFT (decode: warm prefix)Time"),
    ("Latencies are medians. Total tok/s is output across all simultaneous requests.",
     "Latencies are medians. Output tok/s counts output tokens across all simultaneous requests "
     "(a prefill row shows its prompt tok/s there)."),
]


def seed_blocks(path):
    """The seed page's paragraphs after each heading (the lines up to the next empty line)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for page, report in RENAMED:
        lines = [line.replace(page, report) for line in lines]

    def after(heading):
        i = lines.index(heading) + 1
        while i < len(lines) and not lines[i]:
            i += 1
        block = []
        while i < len(lines) and lines[i]:
            block.append(lines[i])
            i += 1
        return block

    return lines, after


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def page_requests(net_log_path):
    """URLs the page itself asked for (Chromium's own background requests have no origin)."""
    with open(net_log_path, encoding="utf-8") as f:
        log = json.load(f)
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for event in log.get("events", []):
        if types.get(event.get("type")) != "URL_REQUEST_START_JOB":
            continue
        params = event.get("params", {})
        url = params.get("url", "")
        if not url or params.get("initiator") == "not an origin":
            continue
        if url.split(":", 1)[0] in ("file", "data", "about", "chrome"):
            continue
        urls.append(url)
    return urls


def render(binary, result_path, out_path):
    proc = subprocess.run([binary, "report", result_path, "--format", "html", "--out", out_path],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, check=False)
    if proc.returncode != 0:
        sys.exit(f"speedmatrix report failed ({proc.returncode}): {proc.stderr.decode(errors='replace')}")


def check_seed_page(chromium, binary, source_dir, out_dir, work):
    fixture = os.path.join(source_dir, "tests", "fixtures", "seed-rtx3090-qwen3.5-4b.json")
    page = os.path.join(out_dir, "report-seed.html")
    render(binary, fixture, page)
    url = "file://" + os.path.abspath(page)

    net_log = os.path.join(work, "net-log.json")
    proc = run_chromium(chromium, url, ["--dump-dom", f"--log-net-log={net_log}"])
    if not check(proc.returncode == 0, f"chromium --dump-dom exited {proc.returncode}"):
        return
    dom = parse_dom(proc.stdout.decode("utf-8"))
    text = "".join(dom.text)

    for section in SECTION_IDS:
        check(section in dom.ids, f"section #{section} missing from the DOM")
    check(dom.title == "Speed test matrix — Qwen3.5-4B-AWQ-4bit on RTX 3090 24GB", f"title is {dom.title!r}")
    check(not any(tag == "script" for tag, _ in dom.tags), "the report has a <script> element")

    lines, after = seed_blocks(os.path.join(source_dir, "tests", "fixtures", "seed-page.txt"))
    check("Qwen3.5-4B-AWQ-4bit on RTX 3090 24GB" in text, "title text missing")
    for heading in ("Hardware", "Engine", "Run"):
        block = after(heading)
        for label, value in zip(block[0::2], block[1::2]):
            if label == "Revision":  # no field in result.json yet
                continue
            check(label in text and value in text, f"{heading}: {label} {value} missing")
    for line in after("Launch command"):
        check(line in text, f"launch command line missing: {line}")

    # Every table row of the seed page, cells joined, must be the same row of the DOM's table.
    prefill = dom.row_texts("prefill-table")[1:]
    check(prefill == after("Prefill")[1:], f"prefill rows differ: {prefill}")
    matrix = dom.row_texts("decode-matrix")
    check(matrix == after("Sustained decode")[1:], f"decode matrix rows differ: {matrix}")
    # The page leaves "Completed requests" (column 10) empty where none completed; the report
    # writes 0.
    table = dom.rows.get("measurements-table", [])
    check(table and table[0][9] == "Completed requests", "no Completed requests column")
    seed_rows = after("All measurements")[1:]
    check(len(table) == len(seed_rows), f"measurements table has {len(table)} rows, the seed page {len(seed_rows)}")
    for cells, line in zip(table, seed_rows):
        shown = "".join(c for i, c in enumerate(cells) if not (i == 9 and c == "0"))
        check(shown == line, f"measurement row differs:\n  DOM:  {shown}\n  page: {line}")
    for note in ("Over capacity: not run because this many requests at this context would exceed the server's KV cache.",
                 "TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill.",
                 "Latencies are medians. Output tok/s counts output tokens across all simultaneous requests "
                 "(a prefill row shows its prompt tok/s there)."):
        check(note in text, f"note missing: {note}")

    fetched = page_requests(net_log)
    check(not fetched, f"the page fetched from the network: {fetched}")

    for name, extra, width, height in (
            ("report-seed.png", [], 1280, 4000),
            ("report-seed-phone.png", [], 390, 6000),
            ("report-seed-dark.png", ["--blink-settings=preferredColorScheme=0"], 1280, 4000)):
        shot = os.path.join(out_dir, name)
        if os.path.exists(shot):
            os.remove(shot)
        proc = run_chromium(chromium, url, [*extra, f"--screenshot={shot}", f"--window-size={width},{height}"])
        check(proc.returncode == 0 and os.path.exists(shot), f"no screenshot {name}")
        if os.path.exists(shot):
            check(png_size(shot) == (width, height), f"{name} is {png_size(shot)}, not {width}x{height}")
            check(os.path.getsize(shot) > 20_000, f"{name} looks empty ({os.path.getsize(shot)} bytes)")
            print(f"screenshot: {shot}")


def check_telemetry_page(chromium, binary, source_dir, out_dir):
    """The telemetry fixture's run folder: its time chart and tokens-per-joule matrix render."""
    folder = os.path.join(source_dir, "tests", "fixtures", "telemetry-run")
    page = os.path.join(out_dir, "report-telemetry.html")
    render(binary, folder, page)
    url = "file://" + os.path.abspath(page)
    proc = run_chromium(chromium, url, ["--dump-dom"])
    if not check(proc.returncode == 0, f"chromium --dump-dom (telemetry) exited {proc.returncode}"):
        return
    dom = parse_dom(proc.stdout.decode("utf-8"))
    text = "".join(dom.text)
    for section in ("telemetry", "telemetry-chart", "efficiency", "efficiency-matrix"):
        check(section in dom.ids, f"telemetry page: #{section} missing from the DOM")
    windows = [attrs.get("class", "") for tag, attrs in dom.tags if tag == "g" and "window" in attrs.get("class", "").split()]
    check(windows.count("window decode") == 5 and windows.count("window prefill") == 2,
          f"telemetry chart windows: {windows}")
    for label in ("8K prefill", "16K prefill", "0 × 64", "16K × 8", "GPU power (W)", "SM clock (MHz)",
                  "power limit 350 W"):
        check(label in text, f"telemetry chart: {label!r} missing")
    matrix = dom.row_texts("efficiency-matrix")
    check(matrix[1:] == ["00.79231 W3.65296 W9.38348 W", "16K0.68242 W2.44333 WOver capacity"],
          f"tokens-per-joule rows differ: {matrix}")
    check(not any(tag == "script" for tag, _ in dom.tags), "the telemetry report has a <script> element")
    shot = os.path.join(out_dir, "report-telemetry.png")
    if os.path.exists(shot):
        os.remove(shot)
    proc = run_chromium(chromium, url, [f"--screenshot={shot}", "--window-size=1280,4000"])
    check(proc.returncode == 0 and os.path.exists(shot), "no screenshot report-telemetry.png")
    if os.path.exists(shot):
        check(os.path.getsize(shot) > 20_000, f"report-telemetry.png looks empty ({os.path.getsize(shot)} bytes)")
        print(f"screenshot: {shot}")


def check_markup_is_text(chromium, binary, source_dir, work):
    fixture = os.path.join(source_dir, "tests", "fixtures", "seed-rtx3090-qwen3.5-4b.json")
    with open(fixture, encoding="utf-8") as f:
        result = json.load(f)
    result["engine"]["model_path"] = "evil/<script>document.title='pwned'</script>"
    result["engine"]["model"] = "<img src=x onerror=\"document.title='pwned too'\">"
    result["notes"] = "</p><script>document.title='pwned three'</script>"
    hostile = os.path.join(work, "hostile.json")
    with open(hostile, "w", encoding="utf-8") as f:
        json.dump(result, f)
    page = os.path.join(work, "hostile.html")
    render(binary, hostile, page)
    proc = run_chromium(chromium, "file://" + page, ["--dump-dom"])
    if not check(proc.returncode == 0, f"chromium --dump-dom (hostile) exited {proc.returncode}"):
        return
    dom = parse_dom(proc.stdout.decode("utf-8"))
    text = "".join(dom.text)
    check("pwned" not in dom.title, f"a script ran: title is {dom.title!r}")
    check(not any(tag in ("script", "img") for tag, _ in dom.tags), "markup from the result became elements")
    check("<script>document.title='pwned'</script>" in text, "the model name is not shown as text")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--out-dir", required=True)
    args = parser.parse_args()

    chromium = find_chromium()
    if not chromium:
        print("skipped: no chromium on PATH (scripts/setup installs it)")
        return SKIP
    work = tempfile.mkdtemp(prefix="speedmatrix-browser-")
    try:
        check_seed_page(chromium, args.binary, args.source_dir, args.out_dir, work)
        check_markup_is_text(chromium, args.binary, args.source_dir, work)
        check_telemetry_page(chromium, args.binary, args.source_dir, args.out_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        return 1
    print("passed: every section and every number of the seed page is in the DOM; nothing was fetched; "
          "the telemetry chart and matrix render")
    return 0


if __name__ == "__main__":
    sys.exit(main())
