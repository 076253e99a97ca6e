#!/usr/bin/env python3
"""Opens a KioskCards report in real headless Chromium and checks it (stdlib only).

Usage: scripts/report-browser-check.py REPORT.html REPORT.json SCREENSHOT_DIR

Talks to Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages separated by NUL on fds 3 and 4), so no websocket library is needed. Checks:
no console errors or exceptions, no network request (anything but file: and data:), every
<canvas> drew something, every chart's labels and datasets (read back from Chart.js in the
page) are the JSON's values, every figure cell (data-k) shows the JSON's value, no unit
("%", "ms") wrapped onto a line apart from its number and no header cell ending in a line of
only a unit, and no horizontal scroll at 390x844. Saves screenshots at 1280x800 and 390x844. Exit 0 when all hold.
"""
import base64, json, os, shutil, subprocess, sys, tempfile, time

def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("report-browser-check: no chromium on PATH — apt-get install chromium (scripts/setup.sh does)")

class Browser:
    def __init__(self):
        self.to_r, self.to_w = os.pipe()
        self.from_r, self.from_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="kioskcards-chromium-")
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        def child_fds():
            os.dup2(self.to_r, 3)
            os.dup2(self.from_w, 4)
        self.proc = subprocess.Popen(
            [find_chromium(), "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
             "--user-data-dir=" + self.profile, "about:blank"],
            # fds 3 and 4 are kept open after preexec_fn (close_fds runs after it).
            pass_fds=tuple(sorted({3, 4, self.to_r, self.from_w})), preexec_fn=child_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(self.to_r)
        os.close(self.from_w)
        self.buffer = b""
        self.next_id = 1
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        msg_id = self.next_id
        self.next_id += 1
        msg = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            reply = self.read(deadline)
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)
        raise TimeoutError(method)

    def read(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("no reply from chromium")
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe (did it start?)")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(line)

    def wait_event(self, method, session, timeout=30):
        deadline = time.time() + timeout
        for e in self.events:
            if e.get("method") == method and e.get("sessionId") == session:
                return e
        while time.time() < deadline:
            e = self.read(deadline)
            self.events.append(e)
            if e.get("method") == method and e.get("sessionId") == session:
                return e
        raise TimeoutError(method)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

PROBE = r"""(() => {
  const canvases = Array.from(document.querySelectorAll('canvas')).map(c => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) painted++;
    return {id: c.id, width: c.width, height: c.height, painted};
  });
  const cells = Array.from(document.querySelectorAll('[data-k]')).map(e =>
    ({k: e.dataset.k, f: e.dataset.f, text: e.textContent.trim()}));
  // What each chart plots, read back from Chart.js: its labels and every dataset's data.
  const charts = {};
  for (const c of document.querySelectorAll('canvas')) {
    const ch = window.Chart && Chart.getChart(c);
    if (ch) charts[c.id] = {labels: ch.data.labels, data: ch.data.datasets.map(d => d.data)};
  }
  const csvButtons = document.querySelectorAll('.chart button.csv').length;
  // Where the browser broke each text block into lines (each character's box, grouped by its
  // top): a unit must not start a line when the line before ends in its number, and a header
  // cell's last line must not be a unit alone.
  const unit = /^(%|‰|ms|s|h|pts|mm|°C|KiB|MB)(?![A-Za-z0-9])/;
  const unitBreaks = [];
  for (const el of document.querySelectorAll('th, td, p, li, h1, h2, h3')) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const lines = [];
    let top = null, line = '', node;
    while ((node = walker.nextNode())) {
      for (let i = 0; i < node.length; i++) {
        const r = document.createRange();
        r.setStart(node, i);
        r.setEnd(node, i + 1);
        const box = r.getClientRects()[0];
        if (!box) continue;
        if (top !== null && Math.abs(box.top - top) > 2) { lines.push(line); line = ''; }
        top = box.top;
        line += node.data[i];
      }
    }
    lines.push(line);
    const last = lines[lines.length - 1].trim();
    if (el.tagName === 'TH' && lines.length > 1 && unit.test(last) && last.replace(unit, '').trim() === '')
      unitBreaks.push(`header "${el.textContent.trim()}" ends in a line of only "${last}"`);
    for (let i = 1; i < lines.length; i++) {
      const before = lines[i - 1].replace(/\s+/g, " ").trimEnd(), now = lines[i].replace(/\s+/g, " ").trim();
      if (/[0-9]$/.test(before) && unit.test(now))
        unitBreaks.push(`<${el.tagName.toLowerCase()}> "${el.textContent.replace(/\s+/g, " ").trim().slice(0, 60)}…": "${before.slice(-12)}" ⏎ "${now.slice(0, 12)}"`);
    }
  }
  return {canvases, cells, charts, csvButtons, unitBreaks, scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth, chartVersion: (window.Chart && Chart.version) || null};
})()"""

def expected_charts(doc):
    """What each chart must plot, from `report --format json` alone: {canvas id: (labels, [dataset data])}.
    The charts show cards and positions that are not suppressed (too few decisions), and only the
    input methods, languages and accessibility states that occur."""
    shown = [c for c in doc["cards"] if not c["suppressed"]]
    f = doc["funnel"]
    decks = doc["decks"]
    longest = max([len(d["reached"]) for d in decks], default=0)
    cards = [f"Card {i + 1}" for i in range(longest)]
    pad = lambda values, n: values + [None] * (n - len(values))
    longest_bias = max([p["position"] for d in decks for p in d["positionBias"]], default=0)
    def bias(d):
        values = [None] * longest_bias
        for p in d["positionBias"]:
            values[p["position"] - 1] = None if p["suppressed"] else p["approval"]
        return values
    methods = [(k, v) for k, v in doc["quality"]["inputMethods"].items() if v > 0]
    languages = [l for l in doc["quality"]["languages"] if l["decisions"] > 0]
    modes = [(k, doc["quality"]["accessibilityMode"][k]) for k in ("on", "off", "unknown")]
    modes = [(k, v) for k, v in modes if v > 0]
    # A card is labelled by its title; by its id when its deck is not known to the report.
    name = lambda c: c["card"] if c["title"] is None else c["title"]
    # Approval over time: one chart per deck version, a line per card, a point per period.
    trends = []
    for c in doc["approvalOverTime"]["cards"]:
        if not trends or trends[-1][0] != c["deckVersion"]:
            trends.append((c["deckVersion"], []))
        trends[-1][1].append(c)
    trend_charts = {
        f"chart-trend-{i}": ([p["period"] for p in cards[0]["points"]],
                             [[p["approval"] for p in c["points"]] for c in cards])
        for i, (_, cards) in enumerate(trends)
    }
    return trend_charts | {
        "chart-approval": ([name(c) for c in shown],
                           [[c["approval"] for c in shown], [[c["low"], c["high"]] for c in shown]]),
        "chart-dwell": ([name(c) for c in shown],
                        [[c["medianDwellMs"] for c in shown], [c["p90DwellMs"] for c in shown]]),
        "chart-funnel": (["Visit started", "First decision"] + cards + ["Completed"],
                         [[d["visitsStarted"], d["firstDecision"]] + pad([r["visits"] for r in d["reached"]], longest)
                          + [d["completed"]] for d in decks]),
        "chart-dropoff": (cards, [pad([r["stoppedHere"] for r in d["reached"]], longest) for d in decks]),
        "chart-ends": (list(f["endReasons"]), [list(f["endReasons"].values())]),
        "chart-days": ([d["date"] for d in doc["days"]],
                       [[d["visits"] for d in doc["days"]], [d["approval"] for d in doc["days"]]]),
        "chart-kiosks": ([k["kiosk"] for k in doc["kiosks"]], [[k["visitsPerDay"] for k in doc["kiosks"]]]),
        "chart-methods": ([k for k, _ in methods], [[v for _, v in methods]]),
        "chart-languages": (["unknown" if l["language"] is None else l["language"] for l in languages],
                            [[l["decisions"] for l in languages]]),
        "chart-modes": ([k for k, _ in modes], [[v for _, v in modes]]),
        "chart-position": ([f"Card {i + 1}" for i in range(longest_bias)], [bias(d) for d in decks]),
    }

def same(a, b):
    """Equal as plotted: numbers to 1e-9 (JSON → JavaScript → JSON), None for null, lists item by item."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
    return a == b

def check_charts(probe, doc):
    """Every chart's labels and datasets as Chart.js holds them, against the JSON; the problems."""
    problems = []
    want = expected_charts(doc)
    got = probe["charts"]
    if sorted(got) != sorted(want):
        problems.append(f"the page's charts are {sorted(got)}, the check knows {sorted(want)}")
    for chart_id, (labels, data) in want.items():
        chart = got.get(chart_id)
        if chart is None:
            continue
        if not same(chart["labels"], labels):
            problems.append(f"chart {chart_id} labels {chart['labels']}, the JSON gives {labels}")
        if not same(chart["data"], data):
            problems.append(f"chart {chart_id} plots {chart['data']}, the JSON gives {data}")
    return problems

def lookup(doc, path):
    node = doc
    for part in path.split("."):
        node = node[int(part)] if isinstance(node, list) else node.get(part)
        if node is None:
            return None
    return node

def check_cell(cell, doc):
    expected = lookup(doc, cell["k"])
    text = cell["text"]
    if expected is None:
        return None if text == "–" else f"{cell['k']}: page shows {text!r}, JSON has null"
    number = float(text.replace("%", "").replace("ms", "").replace("pts", "").strip())
    scale, tolerance = {"pct": (100, 0.05), "pct0": (100, 0.5), "ms": (1, 0.5), "int": (1, 0.5), "num": (1, 0.005),
                        "pts": (100, 0.05)}[cell["f"]]
    if abs(number - expected * scale) > tolerance + 1e-9:
        return f"{cell['k']}: page shows {text!r}, JSON has {expected}"
    return None

def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    html, json_path, shots = sys.argv[1:]
    doc = json.load(open(json_path))
    os.makedirs(shots, exist_ok=True)
    url = "file://" + os.path.abspath(html)
    browser = Browser()
    problems = []
    try:
        for name, width, height, mobile in (("desktop", 1280, 800, False), ("phone", 390, 844, True)):
            target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Runtime", "Log", "Network", "Page"):
                browser.send(domain + ".enable", session=session)
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}, session=session)
            browser.events.clear()
            browser.send("Page.navigate", {"url": url}, session=session)
            browser.wait_event("Page.loadEventFired", session)
            time.sleep(0.3)
            result = browser.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=session)
            if "exceptionDetails" in result:
                problems.append(f"{name}: the probe failed: {result['exceptionDetails']}")
                continue
            probe = result["result"]["value"]
            for e in browser.events:
                if e.get("sessionId") != session:
                    continue
                m, p = e.get("method"), e.get("params", {})
                if m == "Runtime.exceptionThrown":
                    problems.append(f"{name}: exception: {p['exceptionDetails'].get('text')} {p['exceptionDetails'].get('exception', {}).get('description', '')}")
                elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                    problems.append(f"{name}: console error: {p.get('args')}")
                elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                    problems.append(f"{name}: log error: {p['entry'].get('text')} {p['entry'].get('url', '')}")
                elif m == "Network.requestWillBeSent":
                    req = p["request"]["url"]
                    if not (req.startswith("file:") or req.startswith("data:")):
                        problems.append(f"{name}: network request to {req}")
            if not probe["canvases"]:
                problems.append(f"{name}: no canvas on the page")
            for c in probe["canvases"]:
                if c["painted"] == 0:
                    problems.append(f"{name}: chart {c['id']} drew nothing ({c['width']}x{c['height']})")
            problems += [f"{name}: {p}" for p in check_charts(probe, doc)]
            if probe["csvButtons"] != len(probe["charts"]):
                problems.append(f"{name}: {probe['csvButtons']} CSV download buttons for {len(probe['charts'])} charts")
            for cell in probe["cells"]:
                issue = check_cell(cell, doc)
                if issue:
                    problems.append(f"{name}: {issue}")
            problems += [f"{name}: a unit stands apart from its number: {b}" for b in probe["unitBreaks"]]
            if mobile and probe["scrollWidth"] > probe["innerWidth"]:
                problems.append(f"{name}: scrolls horizontally ({probe['scrollWidth']} px wide in {probe['innerWidth']} px)")
            shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False}, session=session)
            path = os.path.join(shots, f"report-{name}-{width}x{height}.png")
            with open(path, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            print(f"report-browser-check: {name}: {len(probe['canvases'])} charts drawn, {len(probe['charts'])} charts' "
                  f"data compared with the JSON, {len(probe['cells'])} figures "
                  f"checked, Chart.js {probe['chartVersion']}, page {probe['scrollWidth']} px wide; {path}")
            browser.send("Target.closeTarget", {"targetId": target})
    finally:
        browser.close()
    for p in problems:
        print("report-browser-check: FAIL " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)

if __name__ == "__main__":  # report-hostile-check.py imports the Browser
    main()
