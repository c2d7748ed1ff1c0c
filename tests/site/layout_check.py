"""Headless Chromium, driven over the DevTools protocol (--remote-debugging-pipe, so no
websocket library is needed), for browser_layout_test.sh:

  layout_check.py layout   CHROME OUT_DIR URL...   every URL at 1,280, 390 and 360 px wide: no
                                                    horizontal overflow (the document's
                                                    scrollWidth <= the viewport's width);
                                                    a screenshot of each
  layout_check.py phone    CHROME OUT_DIR URL...   each listing URL at 390 × 844 and 360 × 740
                                                    (phones): a sort link a finger can reach,
                                                    every compare checkbox whole and on top, and
                                                    on the leaderboard (path "/") the first rank
                                                    on the first screen
  layout_check.py japanese CHROME OUT_DIR URL      the page's <h1> (Japanese) is drawn with real
                                                    glyphs, not tofu (see check_japanese)

The site's pages run no script (their Content-Security-Policy forbids it); the measurements are
made by the DevTools protocol's Runtime.evaluate, which the page's policy does not govern.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time


class Chrome:
    def __init__(self, binary, profile):
        cmd_r, self._cmd_w = os.pipe()  # Chromium reads commands on fd 3 ...
        self._res_r, res_w = os.pipe()  # ... and writes answers and events on fd 4

        def fds():  # in the child: the two ends at 3 and 4, whatever numbers they had
            high_r, high_w = os.dup(cmd_r), os.dup(res_w)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(profile, "chromium.log"), "w"))
        os.close(cmd_r)
        os.close(res_w)
        self._buf = b""
        self._id = 0
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable")

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            if time.time() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._res_r, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buf += chunk
        message, self._buf = self._buf.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, timeout=60, **params):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluate: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url, width, height=900):
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=width < 600)
        self.call("Page.navigate", url=url)
        deadline = time.time() + 30
        while self.evaluate("document.readyState") != "complete" or not self.evaluate("document.fonts.status == 'loaded'"):
            if time.time() > deadline:
                raise TimeoutError(f"{url} did not load")
            time.sleep(0.05)

    def screenshot(self, path, clip=None):
        params = {"format": "png"}
        if clip:
            params["clip"] = dict(clip, scale=1)
        else:
            params["captureBeyondViewport"] = True
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        if path:
            with open(path, "wb") as f:
                f.write(data)
        return data

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# The window's width is the one asked for: with mobile emulation a page wider than the screen
# zooms out, and innerWidth then grows to the page's width.
OVERFLOW = """((width) => {
  const wide = [];
  // Inside a box that scrolls or clips its overflow (the phone menu), a child past the edge
  // widens nothing: only the others are named.
  const clipped = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p);
      if (o.overflowX != 'visible') return true;
    }
    return false;
  };
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.right > width + 0.5 && wide.length < 5 && !clipped(e))
      wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className == 'string' ? '.' + e.className.split(' ').join('.') : '') + ' right=' + Math.round(r.right));
  }
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, wide: wide};
})"""


def check_layout(chrome, out, urls):
    failures = []
    for width in (1280, 390, 360):
        for url in urls:
            chrome.open(url, width)
            m = chrome.evaluate(f"{OVERFLOW}({width})")
            name = url.split("//", 1)[-1].split("/", 1)[-1].replace("/", "_").replace("?", "_").replace("&", "_").replace("=", "-") or "home"
            chrome.screenshot(os.path.join(out, f"layout-{width}-{name[:60]}.png"))
            line = f"{width:>5} px  scrollWidth {m['scrollWidth']:>5}  {url}"
            if m["scrollWidth"] > width or m["innerWidth"] > width:
                failures.append(line + "  wider than the window: " + ", ".join(m["wide"]))
            print("layout_check:", line)
    if failures:
        raise AssertionError("horizontal overflow:\n  " + "\n  ".join(failures))


# What a phone user can reach on a listing: each entry is a problem, none is a pass. An element
# counts as reachable when it is at least 8 px each way, inside the window's width and inside
# every ancestor that clips its overflow (whole, not cut), and is what a tap at its centre hits
# once it is scrolled into view (not hidden or covered).
PHONE = """((width, height, needRank) => {
  const problems = [];
  const reachable = (e) => {
    e.scrollIntoView({block: 'center', inline: 'nearest'});
    const r = e.getBoundingClientRect();
    if (r.width < 8 || r.height < 8) return 'is ' + Math.round(r.width) + ' x ' + Math.round(r.height) + ' px';
    if (r.left < -0.5 || r.right > width + 0.5) return 'spans ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px';
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p);
      if (o.overflowX == 'visible' && o.overflowY == 'visible') continue;
      const c = p.getBoundingClientRect();
      if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5)
        return 'is cut by ' + p.tagName.toLowerCase() + (p.className ? '.' + p.className.split(' ').join('.') : '') +
               ' (' + Math.round(r.left) + '..' + Math.round(r.right) + ' px inside ' + Math.round(c.left) + '..' + Math.round(c.right) + ')';
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === e || e.contains(hit) || (e.labels && [...e.labels].some(l => l.contains(hit)))))
      return 'is covered or clipped (a tap hits ' + (hit ? hit.tagName.toLowerCase() + (hit.className ? '.' + hit.className : '') : 'nothing') + ')';
    return '';
  };
  const sorts = [...document.querySelectorAll('a[href*="sort="]')];
  if (!sorts.some(a => reachable(a) === '')) problems.push('no sort link is reachable (' + sorts.length + ' in the page: ' + (sorts.length ? reachable(sorts[0]) : 'none') + ')');
  const boxes = [...document.querySelectorAll('input[type=checkbox]')];
  boxes.forEach((b, i) => { const why = reachable(b); if (why) problems.push('compare checkbox ' + i + ' ' + why); });
  window.scrollTo(0, 0);
  const rank = document.querySelector('td.rank');
  if (!needRank) {}
  else if (!rank) problems.push('no rank cell');
  else {
    const r = rank.getBoundingClientRect();
    if (!(r.width > 0 && r.bottom <= height && r.top >= 0)) problems.push('the first rank is not on the first screen (top ' + Math.round(r.top) + ' px of ' + height + ')');
  }
  return problems;
})"""


def check_phone(chrome, out, urls):
    failures = []
    for width, height in ((390, 844), (360, 740)):
        for url in urls:
            chrome.open(url, width, height)
            # The leaderboard ("/") must show a rank on the first screen; every listing its sort
            # links and whole checkboxes.
            need_rank = "true" if url.split("//", 1)[-1].split("?", 1)[0].rstrip("/").count("/") == 0 else "false"
            problems = chrome.evaluate(f"{PHONE}({width}, {height}, {need_rank})")
            chrome.evaluate("window.scrollTo(0, 0)")
            name = url.split("//", 1)[-1].split("/", 1)[-1].replace("/", "_").replace("?", "_").replace("&", "_").replace("=", "-") or "home"
            chrome.screenshot(os.path.join(out, f"phone-{width}-{name[:60]}.png"),
                              {"x": 0, "y": 0, "width": width, "height": height})
            line = f"{width:>5} x {height} px  {url}"
            print("layout_check:", line, "ok" if not problems else "; ".join(problems))
            if problems:
                failures.append(line + ": " + "; ".join(problems))
    if failures:
        raise AssertionError("on a phone:\n  " + "\n  ".join(failures))


def check_japanese(chrome, out, url):
    """Draws the page's Japanese <h1>, then the same element with each character replaced by a
    different code point of Unicode's Private Use Area, which no font covers (U+E000...). Without a
    Japanese font both are rows of the same "missing glyph" box (tofu), so the two pictures are
    identical and the check fails; with one, the kana and kanji differ from the boxes. The
    heading's width per character is checked too: CJK glyphs are full width (about 1 em), the
    missing-glyph box of the fallback font is narrower."""
    chrome.open(url, 1280)
    heading = chrome.evaluate("document.querySelector('h1').textContent")
    if not heading or all(ord(c) < 0x3000 for c in heading):
        raise AssertionError(f"the page's heading is not Japanese: {heading!r}")
    box = chrome.evaluate("""(() => {
      const h = document.querySelector('h1');
      h.style.display = 'inline-block';
      const r = h.getBoundingClientRect();
      const size = parseFloat(getComputedStyle(h).fontSize);
      return {x: r.x, y: r.y, width: r.width, height: r.height, size: size};
    })()""")
    clip = {"x": box["x"], "y": box["y"], "width": max(box["width"], 1), "height": max(box["height"], 1)}
    real = chrome.screenshot(os.path.join(out, "japanese-heading.png"), clip)
    chrome.evaluate("""(() => {
      const h = document.querySelector('h1');
      h.textContent = Array.from(h.textContent).map((c, i) => String.fromCodePoint(0xE000 + i)).join('');
    })()""")
    tofu = chrome.screenshot(os.path.join(out, "japanese-heading-tofu.png"), clip)
    per_char = box["width"] / (len(heading) * box["size"])
    print(f"layout_check: heading {heading!r}: {box['width']:.0f} px for {len(heading)} characters at "
          f"{box['size']:.0f} px ({per_char:.2f} em each); real and private-use renders "
          f"{'identical' if real == tofu else 'differ'}")
    if real == tofu:
        raise AssertionError("the Japanese heading is drawn as missing-glyph boxes (tofu): no Japanese font")
    if per_char < 0.75:
        raise AssertionError(f"the Japanese heading's glyphs are {per_char:.2f} em wide, not full width: tofu?")
    chrome.screenshot(os.path.join(out, "japanese-page.png"))


def main():
    mode, binary, out, urls = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sm-cdp.") as profile:
        chrome = Chrome(binary, profile)
        try:
            if mode == "layout":
                check_layout(chrome, out, urls)
            elif mode == "phone":
                check_phone(chrome, out, urls)
            elif mode == "japanese":
                check_japanese(chrome, out, urls[0])
            else:
                raise SystemExit(f"unknown mode {mode}")
        finally:
            chrome.close()
    print(f"layout_check: {mode} ok")


if __name__ == "__main__":
    main()
