import KioskFleet
import KioskReport
import KioskSystem

/// The report as one self-contained HTML page: tables rendered here (every figure cell carries
/// `data-k`, its path in the JSON, and `data-f`, its format, so a test can compare the page with
/// `report --format json`), charts drawn by the inlined Chart.js from the embedded JSON, the
/// heat maps as CSS-coloured tables. No request leaves the page.
struct ReportPage {
    static let defaultChartJSPath = "/usr/share/javascript/chart.js/chart.min.js"

    struct ChartJS {
        var source: String
        var version: String
    }

    /// Reads Chart.js (the UMD build) and its version from its banner ("Chart.js v3.9.1").
    struct LoadError: Error {
        var message: String
    }

    /// `text` with every `target` replaced by `replacement` (no Foundation here).
    static func replacing(_ target: String, with replacement: String, in text: String) -> String {
        let t = Array(target.utf8)
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == t[0] && i + t.count <= bytes.count && Array(bytes[i..<i + t.count]) == t {
                out += replacement.utf8
                i += t.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func loadChartJS(path: String) -> Result<ChartJS, LoadError> {
        let text: String
        do { text = try FileIO.readText(path, limit: 8 << 20, what: path) } catch {
            return .failure(
                LoadError(
                    message: "cannot read Chart.js at \(path) (\(error)) — install Debian's libjs-chart.js"
                        + " (apt-get install libjs-chart.js) or point --chart-js at chart.min.js"))
        }
        let head = Array(text.utf8.prefix(400))
        let banner = Array("Chart.js v".utf8)
        guard
            let at = (0..<max(0, head.count - banner.count)).first(where: {
                Array(head[$0..<$0 + banner.count]) == banner
            })
        else {
            return .failure(
                LoadError(
                    message:
                        "\(path) does not look like Chart.js (no 'Chart.js vX.Y.Z' banner); use libjs-chart.js's chart.min.js"
                ))
        }
        let rest = head[(at + banner.count)...].prefix { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }
        let version = String(decoding: rest, as: UTF8.self)
        return .success(ChartJS(source: replacing("</script", with: "<\\/script", in: text), version: version))
    }

    let figures: ReportFigures
    let json: JSONValue
    let chartJS: ChartJS
    /// Every registered kiosk's health (fleet only; nil from a kiosk's SQLite).
    let health: [KioskStatus]?

    /// Between a figure and its unit: a no-break space, so that on a narrow screen a unit
    /// ("%", "ms") never starts a line of its own (`&nbsp;` in the page's fixed text).
    static let unitSpace = "\u{00A0}"

    /// One figure cell: the value at `path` formatted by `format` (pct, int, ms, num).
    func cell(_ path: String, _ format: String, tag: String = "td") -> String {
        let value = json[path]
        let text: String
        let u = Self.unitSpace
        switch (value?.double, format) {
        case (nil, _): text = "–"
        case (let x?, "pct"): text = jsonNumber(x * 100, decimals: 1) + u + "%"
        case (let x?, "pts"): text = (x > 0 ? "+" : "") + jsonNumber(x * 100, decimals: 1) + u + "pts"
        case (let x?, "ms"): text = jsonNumber(x, decimals: 0) + u + "ms"
        case (let x?, "int"): text = jsonNumber(x, decimals: 0)
        case (let x?, _): text = jsonNumber(x, decimals: 2)
        }
        return "<\(tag) data-k=\"\(Escape.htmlAttribute(path))\" data-f=\"\(format)\">\(text)</\(tag)>"
    }

    private func string(_ path: String) -> String {
        if case .string(let s)? = json[path] { return Escape.htmlText(s) }
        return "–"
    }

    /// The text at `path`, unescaped (for formatting before escaping); nil when not a string.
    private func rawString(_ path: String) -> String? {
        if case .string(let s)? = json[path] { return s }
        return nil
    }

    private func isTrue(_ path: String) -> Bool { json[path] == .bool(true) }

    private func count(_ path: String) -> Int {
        if case .array(let items)? = json[path] { return items.count }
        return 0
    }

    var html: String {
        let k = figures.settings.k
        var body = ""
        // Header.
        let a = figures.aggregates
        let period = "\(a.firstMs.map { Self.localTime($0) } ?? "–") – \(a.lastMs.map { Self.localTime($0) } ?? "–")"
        body += """
            <header><h1>What visitors decided</h1>
            <p class="meta">\(string("source")) · period \(period) · time zone \(string("filter.timeZone")) ·
            generated \(Self.localTime(figures.generatedMs))</p>
            <ul class="totals"><li>Visits \(cell("totals.visits", "int", tag: "b"))</li>
            <li>Decision rows \(cell("totals.decisionRows", "int", tag: "b"))</li>
            <li>Counted answers \(cell("totals.finalAnswers", "int", tag: "b"))</li>
            <li>Button-mashing visits \(isTrue("quality.mashing.excluded") ? "excluded" : "included")
            \(cell("quality.mashing.visits", "int", tag: "b")) (\(cell("quality.mashing.decisions", "int", tag: "span")) decisions)</li></ul>
            \(comparisonLine)</header>
            """
        if let health { body += healthSection(health) }
        if figures.aggregates.decisionRows == 0 && figures.aggregates.visits == 0 {
            body += "<p class=\"empty\">No decisions or visits in this period: nothing to show yet.</p>"
        }
        if !figures.aggregates.hasVisits {
            body +=
                "<p class=\"note\">This database predates visit recording (no visits table): visits are inferred from decisions; positions, input methods and end reasons are unknown.</p>"
        }
        // 1–2. Cards.
        var rows = ""
        for i in 0..<count("cards") {
            let p = "cards.\(i)"
            let grey = isTrue("\(p).suppressed") || isTrue("\(p).belowMinN")
            let compared =
                figures.previous == nil
                ? "" : cell("\(p).previous.approval", "pct") + cell("\(p).approvalChange", "pts")
            let name: String = cardName(p)
            // Approval beside the card, so a phone shows both without scrolling the table.
            var row = "<tr class=\"\(grey ? "grey" : "")\"><td class=\"name\">\(name)</td>"
            row += cell("\(p).approval", "pct") + compared + cell("\(p).n", "int") + "<td>\(string("\(p).deck"))</td>"
            row += cell("\(p).version", "int") + cell("\(p).position", "int") + cell("\(p).low", "pct")
            row += cell("\(p).high", "pct")
            row += cell("\(p).visits", "int") + cell("\(p).medianDwellMs", "ms") + cell("\(p).p90DwellMs", "ms")
            rows += row + cell("\(p).tooFastShare", "pct") + "</tr>\n"
        }
        body += """
            <section id="cards"><h2>Per card</h2>
            <p class="help">Approval = right ÷ (left + right) over each visit's final answer per card, with a
            Wilson 95&nbsp;% interval. Grey: fewer than \(figures.settings.minimumN) answers, or fewer than \(k) visits (hidden).</p>
            <div class="chart"><canvas id="chart-approval"></canvas></div>
            <div class="chart"><canvas id="chart-dwell"></canvas></div>
            <input id="card-search" type="search" placeholder="Search cards" aria-label="Search cards">
            <div class="scroll"><table id="card-table" class="sortable"><thead><tr><th>Card (id)</th><th>Approval</th>
            \(figures.previous == nil ? "" : "<th>Previous period</th><th>Change</th>")<th>n</th><th>Deck</th><th>Version</th><th>Position</th><th>95&nbsp;% low</th><th>95&nbsp;% high</th><th>Visits</th><th>Median dwell</th><th>p90 dwell</th><th>Too fast</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>\(unknownDecksNote)</section>
            """ + trendSection
        // 3. Funnel, per deck version (positions 1-based, as in the charts).
        var reached = ""
        for d in 0..<count("decks") {
            let deck = "decks.\(d)"
            for i in 0..<count("\(deck).reached") {
                let p = "\(deck).reached.\(i)"
                reached +=
                    "<tr><td>\(string("\(deck).name"))</td>" + cell("\(p).position", "int") + cell("\(p).visits", "int")
                    + cell("\(p).stoppedHere", "int") + cell("\(p).completedHere", "int") + "</tr>"
            }
        }
        var reasons = ""
        if case .object(let fields)? = json["funnel.endReasons"] {
            for (name, _) in fields {
                reasons += "<tr><td>\(Escape.htmlText(name))</td>" + cell("funnel.endReasons.\(name)", "int") + "</tr>"
            }
        }
        body += """
            <section id="funnel"><h2>Funnel</h2>
            <div class="scroll"><table><tr><th>Attract shown</th><th>Visits started</th><th>First decision</th><th>Deck completed</th></tr>
            <tr>\(cell("funnel.attractShown", "int"))\(cell("funnel.visitsStarted", "int"))\(cell("funnel.firstDecision", "int"))\(cell("funnel.completed", "int"))</tr></table></div>
            <div class="chart"><canvas id="chart-funnel"></canvas></div>
            <div class="two"><div class="chart"><canvas id="chart-dropoff"></canvas></div>
            <div class="chart"><canvas id="chart-ends"></canvas></div></div>
            <p class="help">Per deck id@version: a visit that completed the deck is never counted as stopping there.</p>
            <div class="two"><div class="scroll"><table><tr><th>Deck</th><th>Position</th><th>Visits reaching it</th><th>Stopped there</th><th>Completed there</th></tr>\(reached)</table></div>
            <div class="scroll"><table><tr><th>Visit ended</th><th>Visits</th></tr>\(reasons)</table></div></div></section>
            """
        // 4. When.
        body += "<section id=\"when\"><h2>When</h2>" + heatMap(visits: true) + heatMap(visits: false)
        var days = ""
        for i in 0..<count("days") {
            let p = "days.\(i)"
            days +=
                "<tr><td>\(string("\(p).date"))</td>" + cell("\(p).visits", "int") + cell("\(p).n", "int")
                + cell("\(p).approval", "pct") + "</tr>"
        }
        body += """
            <div class="chart"><canvas id="chart-days"></canvas></div>
            <div class="scroll"><table><tr><th>Day</th><th>Visits</th><th>Answers</th><th>Approval</th></tr>\(days)</table></div></section>
            """
        // 5. Kiosks.
        var kiosks = ""
        for i in 0..<count("kiosks") {
            let p = "kiosks.\(i)"
            kiosks +=
                "<tr>" + cell("\(p).rank", "int") + "<td>\(string("\(p).kiosk"))</td>" + cell("\(p).visits", "int")
                + cell("\(p).visitsPerDay", "num") + cell("\(p).completion", "pct") + cell("\(p).approval", "pct")
                + "<td>\(Self.localTime(iso: rawString("\(p).lastSeen")))</td>"
                + cell("\(p).uptimeShare", "pct") + "</tr>"
        }
        body += """
            <section id="kiosks"><h2>Per kiosk</h2>
            <p class="help">Last seen: the latest visit or decision. Uptime (fleet only): the share of in-service
            time covered by heartbeats (each covers \(KioskStatus.staleAfter) s), from the later of the period's start
            and the kiosk's first heartbeat to the earlier of the period's end and the report's time.</p>
            <div class="chart"><canvas id="chart-kiosks"></canvas></div>
            <div class="scroll"><table><tr><th>Rank</th><th>Kiosk</th><th>Visits</th><th>Visits / active day</th><th>Completion</th>
            <th>Approval</th><th>Last seen</th><th>Uptime</th></tr>\(kiosks)</table></div></section>
            """ + kioskCardSection + codesSection
        // 6. Quality.
        var positions = ""
        for d in 0..<count("decks") {
            for i in 0..<count("decks.\(d).positionBias") {
                let p = "decks.\(d).positionBias.\(i)"
                positions +=
                    "<tr><td>\(string("decks.\(d).name"))</td>" + cell("\(p).position", "int") + cell("\(p).n", "int")
                    + cell("\(p).approval", "pct") + "</tr>"
            }
        }
        var methods = ""
        if case .object(let fields)? = json["quality.inputMethods"] {
            for (name, _) in fields {
                methods +=
                    "<tr><td>\(Escape.htmlText(name))</td>" + cell("quality.inputMethods.\(name)", "int") + "</tr>"
            }
        }
        var languages = ""
        for i in 0..<count("quality.languages") {
            let p = "quality.languages.\(i)"
            let name = json["\(p).language"] == .null ? "unknown" : string("\(p).language")
            languages += "<tr><td>\(name)</td>" + cell("\(p).decisions", "int") + "</tr>"
        }
        var modes = ""
        for key in ["on", "off", "unknown"] {
            modes += "<tr><td>\(key)</td>" + cell("quality.accessibilityMode.\(key)", "int") + "</tr>"
        }
        body += """
            <section id="quality"><h2>Quality</h2>
            <div class="scroll"><table><tr><th>Undo rate</th><th>Too fast (&lt; \(figures.filter.tooFastMs)&nbsp;ms)</th><th>Mashing visits</th><th>Their decisions</th></tr>
            <tr>\(cell("quality.undoRate", "pct"))\(cell("quality.tooFastShare", "pct"))\(cell("quality.mashing.visits", "int"))\(cell("quality.mashing.decisions", "int"))</tr></table></div>
            <p class="help">Suspected button-mashing: a visit with at least \(figures.filter.mashMinimum) left/right decisions, all one
            direction, each faster than \(figures.filter.cooldownMs)&nbsp;ms. \(isTrue("quality.mashing.excluded") ? "Excluded from the rates above and below (--include-mashing yes counts them)." : "Included in the rates.")</p>
            <div class="two"><div class="chart"><canvas id="chart-methods"></canvas></div>
            <div class="chart"><canvas id="chart-position"></canvas></div></div>
            <div class="two"><div class="scroll"><table><tr><th>Input method</th><th>Decisions</th></tr>\(methods)</table></div>
            <div class="scroll"><table><tr><th>Deck</th><th>Position</th><th>Answers</th><th>Approval</th></tr>\(positions)</table></div></div>
            <div class="two"><div class="chart"><canvas id="chart-languages"></canvas></div>
            <div class="chart"><canvas id="chart-modes"></canvas></div></div>
            <div class="two"><div class="scroll"><table><tr><th>Language</th><th>Decisions</th></tr>\(languages)</table></div>
            <div class="scroll"><table><tr><th>Accessibility mode</th><th>Decisions</th></tr>\(modes)</table></div></div>
            <p class="help">Decisions that are not undos, all visits: by the language the visitor read the card in, and by
            whether large text, high contrast, reduced motion or the kiosk's accessible mode was on in that visit by then
            (unknown: recorded before the kiosk kept it, or a fleet server before central schema 7).</p></section>
            """
        let data = Escape.jsonInScript(json.text())
        let scripts = [chartJS.source, Self.script]
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(Self.contentSecurityPolicy(scripts: scripts))">
            <title>KioskCards report</title>
            <style>\(Self.style)</style></head>
            <body>\(body)
            <footer>Made by KioskCards \(kioskCardsVersion) report · charts by Chart.js \(Escape.htmlText(chartJS.version)) (inlined from Debian's libjs-chart.js) ·
            privacy floor k = \(k) visits · definitions in docs/REPORT.md</footer>
            <script id="report-data" type="application/json">\(data)</script>
            <script>\(scripts[0])</script>
            <script>\(scripts[1])</script>
            </body></html>
            """
    }

    /// The page's policy: nothing loads from anywhere (no request, no frame, no form target, no
    /// base URL), and only the page's own two scripts run, named by their SHA-256, so neither an
    /// inline event handler nor an injected `<script>` would. Styles may be inline (the heat map's
    /// colours); they can load nothing.
    static func contentSecurityPolicy(scripts: [String]) -> String {
        let hashes = scripts.map { "'sha256-\(SHA256.base64Digest(Array($0.utf8)))'" }.joined(separator: " ")
        return "default-src 'none'; script-src \(hashes); style-src 'unsafe-inline'; connect-src 'none';"
            + " img-src 'none'; form-action 'none'; base-uri 'none'; frame-src 'none'; object-src 'none'"
    }

    /// Weekday × hour as a table coloured by value (visits, or approval from red to green).
    private func heatMap(visits: Bool) -> String {
        var cells: [Int: Int] = [:]
        for i in 0..<count("hourWeekday") {
            if case .int(let w)? = json["hourWeekday.\(i).weekday"], case .int(let h)? = json["hourWeekday.\(i).hour"] {
                cells[w * 24 + h] = i
            }
        }
        var maxVisits = 1.0
        for i in cells.values { maxVisits = max(maxVisits, json["hourWeekday.\(i).visits"]?.double ?? 0) }
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        var out =
            "<h3>\(visits ? "Visits" : "Approval") by hour × weekday</h3><div class=\"scroll\"><table class=\"heat\"><tr><th></th>"
        for h in 0..<24 { out += "<th>\(h)</th>" }
        out += "</tr>"
        for w in 0..<7 {
            out += "<tr><th>\(names[w])</th>"
            for h in 0..<24 {
                guard let i = cells[w * 24 + h] else {
                    out += "<td></td>"
                    continue
                }
                let p = "hourWeekday.\(i)"
                let path = visits ? "\(p).visits" : "\(p).approval"
                guard let x = json[path]?.double else {
                    out += "<td class=\"hidden\" title=\"fewer than \(figures.settings.k) visits\">·</td>"
                    continue
                }
                let colour =
                    visits
                    ? "rgba(37,99,235,\(jsonNumber(0.12 + 0.88 * x / maxVisits, decimals: 3)))"
                    : Self.approvalColour(x)
                let text = visits ? jsonNumber(x, decimals: 0) : jsonNumber(x * 100, decimals: 0)
                out +=
                    "<td style=\"background:\(colour)\" data-k=\"\(path)\" data-f=\"\(visits ? "int" : "pct0")\">\(text)</td>"
            }
            out += "</tr>"
        }
        return out + "</table></div>" + (visits ? Self.visitsLegend(max: maxVisits) : Self.approvalLegend)
    }

    static let style = """
        *{box-sizing:border-box}body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 12px 24px;color:#1f2328}
        h1{font-size:1.5em;margin:.6em 0 .2em}h2{margin-top:1.6em;border-bottom:1px solid #d0d7de}h3{font-size:1em}
        .meta,.help,footer{color:#57606a;font-size:.9em}.totals{display:flex;flex-wrap:wrap;gap:.4em 1.4em;padding:0;list-style:none}
        .scroll{overflow-x:auto;max-width:100%;background:linear-gradient(to right,#fff 30%,#fff0) left/32px 100% no-repeat local,linear-gradient(to left,#fff 30%,#fff0) right/32px 100% no-repeat local,radial-gradient(farthest-side at 0 50%,#0003,#0000) left/12px 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0003,#0000) right/12px 100% no-repeat scroll}table{border-collapse:collapse;margin:.5em 0}th,td{padding:3px 8px;border-bottom:1px solid #eaeef2;text-align:right;white-space:nowrap}
        th{background:#f6f8fa;cursor:default}th:first-child,td:first-child{text-align:left}.sortable th{cursor:pointer}
        tr.grey td{color:#8c959f}.heat td{width:2.2em;text-align:center;font-size:.8em;padding:2px}.heat td.hidden{color:#8c959f}
        .chart{position:relative;height:260px;margin:.6em 0}.chart .csv{position:absolute;top:0;right:0;font-size:.75em}.two{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr));gap:12px}
        input[type=search]{width:100%;max-width:320px;padding:6px;margin:.4em 0}.empty,.note{background:#fff8c5;padding:8px}tr.attention td{background:#fff1f0}
        .legend{font-size:.85em;color:#57606a}.ramp{display:inline-block;width:8em;height:.9em;vertical-align:middle;border:1px solid #d0d7de}
        .swatch{display:inline-block;width:1.4em;text-align:center;color:#8c959f}.id{color:#57606a;white-space:nowrap}.untitled::after{content:" (title unknown)";color:#9a6700;font-size:.8em}.heatwrap{position:relative}
        .heatwrap>.csv{position:absolute;top:-2.2em;right:0;font-size:.75em}.heat.cards td{width:3em}
        .heat.cards td.name,td.name{width:auto;text-align:left;white-space:normal;min-width:9em;max-width:18em;font-size:inherit}
        @media (max-width:600px){td.name{max-width:44vw;min-width:7em;font-size:.9em}}.compare{font-size:.95em}
        footer{margin-top:2em;border-top:1px solid #d0d7de;padding-top:.6em}canvas{max-width:100%}
        """

    static let script = """
        (function(){
        const R=JSON.parse(document.getElementById('report-data').textContent);
        Chart.defaults.animation=false;Chart.defaults.maintainAspectRatio=false;
        const shown=R.cards.filter(c=>!c.suppressed);
        const grey=c=>c.belowMinN?'rgba(140,149,159,0.6)':'rgba(37,99,235,0.75)';
        const csvCell=v=>{let t=v===null||v===undefined?'':Array.isArray(v)?v.join(' – '):String(v);
          if(/^[=+\\-@]/.test(t))t="'"+t;return /[",\\n]/.test(t)?'"'+t.replace(/"/g,'""')+'"':t;};
        function chart(id,config){const el=document.getElementById(id);if(!el)return;const c=new Chart(el,config);
          const b=document.createElement('button');b.type='button';b.className='csv';b.textContent='CSV';
          b.title='Download this chart\\'s data as CSV';
          b.addEventListener('click',()=>{
            const rows=[['label'].concat(c.data.datasets.map(d=>d.label||'value'))]
              .concat(c.data.labels.map((l,i)=>[l].concat(c.data.datasets.map(d=>d.data[i]))));
            const a=document.createElement('a');
            a.href=URL.createObjectURL(new Blob([rows.map(r=>r.map(csvCell).join(',')).join('\\n')+'\\n'],{type:'text/csv'}));
            a.download=id.replace('chart-','')+'.csv';document.body.appendChild(a);a.click();a.remove();});
          el.parentElement.appendChild(b);}
        const pctText=v=>v===null||v===undefined?'–':(v*100).toFixed(1)+' %';
        const pctAxis=title=>({min:0,max:1,title:{display:true,text:title},ticks:{callback:v=>Math.round(v*100)+' %'}});
        const axis=title=>({beginAtZero:true,title:{display:true,text:title}});
        const pctTip={callbacks:{label:c=>(c.dataset.label||c.label)+': '+(Array.isArray(c.raw)?pctText(c.raw[0])+' – '+pctText(c.raw[1]):pctText(c.raw))}};
        const name=c=>c.title===null?c.card:c.title;
        const cardAxis={title:{display:true,text:'Card'},ticks:{callback:function(v){const l=String(this.getLabelForValue(v));
          return l.length>22?l.slice(0,21)+'…':l;}}};
        chart('chart-approval',{type:'bar',data:{labels:shown.map(name),datasets:[
          {label:'Approval',data:shown.map(c=>c.approval),backgroundColor:shown.map(grey)},
          {label:'Wilson 95 %',data:shown.map(c=>[c.low,c.high]),backgroundColor:'rgba(0,0,0,0.28)',grouped:false,barPercentage:0.25}]},
          options:{scales:{x:cardAxis,y:pctAxis('Approval')},plugins:{tooltip:pctTip,title:{display:true,text:'Approval per card (n ≥ '+R.filter.minN+' in colour)'}}}});
        chart('chart-dwell',{type:'bar',data:{labels:shown.map(name),datasets:[
          {label:'Median dwell (ms)',data:shown.map(c=>c.medianDwellMs),backgroundColor:'rgba(16,185,129,0.7)'},
          {label:'p90 dwell (ms)',data:shown.map(c=>c.p90DwellMs),backgroundColor:'rgba(245,158,11,0.7)'}]},
          options:{scales:{x:cardAxis,y:{type:'logarithmic',title:{display:true,text:'Time to decide (ms, log scale)'}}},plugins:{title:{display:true,text:'Time to decide'}}}});
        const f=R.funnel,palette=['#2563eb','#e5484d','#30a46c','#f59e0b','#8b5cf6','#06b6d4','#db2777','#65a30d'];
        const longest=Math.max(0,...R.decks.map(d=>d.reached.length));
        const cardLabels=Array.from({length:longest},(_,i)=>'Card '+(i+1));
        const pad=(a,n)=>a.concat(Array(Math.max(0,n-a.length)).fill(null));
        chart('chart-funnel',{type:'bar',data:{labels:['Visit started','First decision'].concat(cardLabels).concat(['Completed']),
          datasets:R.decks.map((d,i)=>({label:d.name,data:[d.visitsStarted,d.firstDecision].concat(pad(d.reached.map(r=>r.visits),longest)).concat([d.completed]),backgroundColor:palette[i%palette.length]}))},
          options:{indexAxis:'y',scales:{x:axis('Visits')},plugins:{title:{display:true,text:'Funnel per deck version'}}}});
        chart('chart-dropoff',{type:'bar',data:{labels:cardLabels,datasets:R.decks.map((d,i)=>({label:d.name+': stopped here (not completed)',data:pad(d.reached.map(r=>r.stoppedHere),longest),backgroundColor:palette[i%palette.length]}))},
          options:{scales:{x:{title:{display:true,text:'Card position'}},y:axis('Visits')},plugins:{title:{display:true,text:'Drop-off by card position'}}}});
        const ends=Object.entries(f.endReasons);
        chart('chart-ends',{type:'doughnut',data:{labels:ends.map(e=>e[0]),datasets:[{data:ends.map(e=>e[1]),backgroundColor:['#30a46c','#f59e0b','#2563eb','#8b5cf6','#8c959f','#e5484d']}]},
          options:{plugins:{title:{display:true,text:'How visits ended'}}}});
        chart('chart-days',{type:'line',data:{labels:R.days.map(d=>d.date),datasets:[
          {label:'Visits',data:R.days.map(d=>d.visits),borderColor:'#2563eb',yAxisID:'y'},
          {label:'Approval',data:R.days.map(d=>d.approval),borderColor:'#30a46c',yAxisID:'a'}]},
          options:{scales:{y:axis('Visits'),a:Object.assign(pctAxis('Approval'),{position:'right',grid:{drawOnChartArea:false}})},
            plugins:{tooltip:{callbacks:{label:c=>c.dataset.yAxisID==='a'?'Approval: '+pctText(c.raw):'Visits: '+c.raw}},title:{display:true,text:'Per day (days without visits as 0)'}}}});
        chart('chart-kiosks',{type:'bar',data:{labels:R.kiosks.map(k=>k.kiosk),datasets:[
          {label:'Visits per active day',data:R.kiosks.map(k=>k.visitsPerDay),backgroundColor:'rgba(37,99,235,0.75)'}]},
          options:{scales:{y:axis('Visits per active day')},plugins:{title:{display:true,text:'Kiosks, ranked'}}}});
        const m=Object.entries(R.quality.inputMethods).filter(e=>e[1]>0);
        chart('chart-methods',{type:'doughnut',data:{labels:m.map(e=>e[0]),datasets:[{data:m.map(e=>e[1]),backgroundColor:['#2563eb','#30a46c','#f59e0b','#8b5cf6','#e5484d','#8c959f']}]},
          options:{plugins:{title:{display:true,text:'Input methods'}}}});
        const lang=R.quality.languages.filter(l=>l.decisions>0);
        chart('chart-languages',{type:'doughnut',data:{labels:lang.map(l=>l.language===null?'unknown':l.language),datasets:[{data:lang.map(l=>l.decisions),backgroundColor:['#2563eb','#30a46c','#f59e0b','#8b5cf6','#e5484d','#06b6d4','#db2777','#65a30d','#8c959f']}]},
          options:{plugins:{title:{display:true,text:'Decisions by language read'}}}});
        const am=R.quality.accessibilityMode;
        const modes=[['on',am.on,'#8b5cf6'],['off',am.off,'#2563eb'],['unknown',am.unknown,'#8c959f']].filter(e=>e[1]>0);
        chart('chart-modes',{type:'doughnut',data:{labels:modes.map(e=>e[0]),datasets:[{data:modes.map(e=>e[1]),backgroundColor:modes.map(e=>e[2])}]},
          options:{plugins:{title:{display:true,text:'Decisions with an accessibility mode on'}}}});
        const longestBias=Math.max(0,...R.decks.map(d=>Math.max(0,...d.positionBias.map(p=>p.position))));
        chart('chart-position',{type:'line',data:{labels:Array.from({length:longestBias},(_,i)=>'Card '+(i+1)),
          datasets:R.decks.map((d,i)=>{const a=Array(longestBias).fill(null);for(const p of d.positionBias)a[p.position-1]=p.suppressed?null:p.approval;
            return {label:d.name,data:a,borderColor:palette[i%palette.length]};})},
          options:{scales:{x:{title:{display:true,text:'Card position'}},y:pctAxis('Approval')},plugins:{tooltip:pctTip,title:{display:true,text:'Position bias: approval by position shown'}}}});
        const trends=[];for(const c of R.approvalOverTime.cards){let t=trends.find(x=>x.deck===c.deckVersion);
          if(!t){t={deck:c.deckVersion,cards:[]};trends.push(t);}t.cards.push(c);}
        const periodAxis=R.approvalOverTime.bucket==='week'?'Week (from Monday, local time)':'Day (local time)';
        trends.forEach((t,i)=>chart('chart-trend-'+i,{type:'line',data:{labels:t.cards[0].points.map(p=>p.period),
          datasets:t.cards.map((c,j)=>({label:name(c),data:c.points.map(p=>p.approval),borderColor:palette[j%palette.length],backgroundColor:palette[j%palette.length],spanGaps:false}))},
          options:{scales:{x:{title:{display:true,text:periodAxis}},y:pctAxis('Approval')},plugins:{tooltip:pctTip,title:{display:true,text:'Approval over time: '+t.deck}}}}));
        const download=(file,rows)=>{const a=document.createElement('a');
          a.href=URL.createObjectURL(new Blob([rows.map(r=>r.map(csvCell).join(',')).join('\\n')+'\\n'],{type:'text/csv'}));
          a.download=file;document.body.appendChild(a);a.click();a.remove();};
        const kc=R.kioskCards;
        for(const b of document.querySelectorAll('button[data-csv=kiosk-card]'))b.addEventListener('click',()=>download('kiosk-card.csv',
          [['card','title','deck'].concat(kc.kiosks.map(k=>k+' approval')).concat(kc.kiosks.map(k=>k+' n'))]
            .concat(kc.cards.map(c=>[c.card,c.title,c.deckVersion].concat(c.kiosks.map(x=>x.approval)).concat(c.kiosks.map(x=>x.n))))));
        const search=document.getElementById('card-search'),table=document.getElementById('card-table');
        search.addEventListener('input',()=>{const q=search.value.toLowerCase();
          for(const tr of table.tBodies[0].rows)tr.style.display=tr.cells[0].textContent.toLowerCase().includes(q)?'':'none';});
        table.querySelectorAll('th').forEach((th,i)=>th.addEventListener('click',()=>{
          const rows=Array.from(table.tBodies[0].rows),dir=th.dataset.dir==='1'?-1:1;th.dataset.dir=dir===1?'1':'-1';
          const v=r=>{const t=r.cells[i].textContent;const x=parseFloat(t);return isNaN(x)?t:x;};
          rows.sort((a,b)=>{const x=v(a),y=v(b);return (x>y?1:x<y?-1:0)*dir;});rows.forEach(r=>table.tBodies[0].appendChild(r));}));
        })();
        """
}
