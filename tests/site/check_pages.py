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
    assert len(board.rows) == 4, f"the leaderboard shows {len(board.rows)} runs, expected 4"
    assert board.title.startswith("Leaderboard"), board.title

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

    runs = load(folder, "runs")
    assert "compare-form" in runs.ids and len(runs.rows) == 4

    print("check_pages: leaderboard, filter, run page, calculator and escaping ok")


if __name__ == "__main__":
    main()
