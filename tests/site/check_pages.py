"""Checks the pages headless Chromium rendered (its --dump-dom output) for browser_test.sh."""
import html.parser
import sys


class Page(html.parser.HTMLParser):
    """The parts of a rendered page the checks look at."""

    def __init__(self, text):
        super().__init__()
        self.title = ""
        self.ids = set()
        self.scripts = 0
        self.rows = []  # data-run-id of the runs table, in order
        self.text = []
        self._in_title = False
        self._in_body = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "body":
            self._in_body = True
        if tag == "title" and not self._in_body:  # the document's title, not an SVG <title> tooltip
            self._in_title = True
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "tr" and "data-run-id" in a:
            self.rows.append(a["data-run-id"])
        if any(k.startswith("on") for k in a):
            raise AssertionError(f"an element has an event handler attribute: <{tag} {a}>")

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        self.text.append(data)


def load(folder, name):
    with open(f"{folder}/{name}.html", encoding="utf-8") as f:
        return Page(f.read())


def main():
    folder, gpu = sys.argv[1], sys.argv[2]
    board = load(folder, "leaderboard")
    assert "runs-table" in board.ids, "the leaderboard has no runs table"
    assert len(board.rows) == 5, f"the leaderboard shows {len(board.rows)} runs, expected 5"
    assert board.title.startswith("Leaderboard"), board.title
    measured = load(folder, "measured")
    assert len(measured.rows) == 2, f"the default (measured) leaderboard shows {len(measured.rows)} runs, expected 2"

    filtered = load(folder, "filtered")
    assert len(filtered.rows) == 1, f"filtering by {gpu!r} left {filtered.rows}"
    assert "sglang" in filtered.rows[0], filtered.rows

    run = load(folder, "run")
    for section in ("decode-matrix", "prefill", "measurements"):
        assert section in run.ids, f"the run page lacks #{section}"

    evil = load(folder, "evil")
    assert evil.scripts == 0, "a script element made it into the page"
    assert evil.title.strip() != "pwned", f"the injected script ran: title {evil.title!r}"
    assert "<script>document.title='pwned'</script>" in "".join(evil.text), "the model name is not shown as text"

    calc = load(folder, "calc")
    assert "calc-form" in calc.ids and "decode-matrix" in calc.ids, "the calculator did not return a matrix"
    assert "evidence" in calc.ids, "the calculator shows no evidence section"

    runs = load(folder, "runs")
    assert "compare-form" in runs.ids and len(runs.rows) == 5

    # Only the run with the server's GPU telemetry is ranked by efficiency; the predictions are not.
    efficiency = load(folder, "efficiency")
    assert efficiency.rows == ["telemetry-run"], f"ranked by efficiency: {efficiency.rows}"
    assert "efficiency-unranked" in efficiency.ids, "the efficiency ranking does not say who is left out"

    telemetry = load(folder, "telemetry-run")
    for section in ("run-telemetry", "best-efficiency", "throttle-verdict", "telemetry-table", "decode-matrix"):
        assert section in telemetry.ids, f"the telemetry run's page lacks #{section}"
    text = "".join(telemetry.text)
    assert "tokens per joule" in text and "(Power capped)" in text, "the page names no throttled cell"

    print("check_pages: leaderboard, filter, efficiency ranking, run pages, calculator and escaping ok")


if __name__ == "__main__":
    main()
