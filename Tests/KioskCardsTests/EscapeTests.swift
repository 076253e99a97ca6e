import Testing

@testable import KioskCards
@testable import KioskFleet
@testable import KioskSystem

/// The escaping of kiosk- and file-supplied text, one function per output context.
@Suite struct EscapeTests {
    @Test func htmlTextCannotOpenATag() {
        #expect(Escape.htmlText("\"><img src=x onerror=alert(1)>") == "\"&gt;&lt;img src=x onerror=alert(1)&gt;")
        #expect(Escape.htmlText("a & b") == "a &amp; b")
    }

    @Test func anAttributeValueCannotCloseItsQuotes() {
        let escaped = Escape.htmlAttribute("x\" onmouseover='alert(1)' y=`z`")
        #expect(!escaped.contains("\"") && !escaped.contains("'") && !escaped.contains("`"))
        #expect(escaped == "x&quot; onmouseover=&#39;alert(1)&#39; y=&#96;z&#96;")
    }

    @Test func jsonInAScriptCannotEndTheElementAndReadsBackTheSame() throws {
        let hostile = "</script><script>alert(1)</script><!-- & \u{2028}\u{2029}"
        let escaped = Escape.jsonInScript(JSONWriter.quoted(hostile))
        for forbidden in ["<", ">", "&", "\u{2028}", "\u{2029}"] { #expect(!escaped.contains(forbidden)) }
        // The JSON reader (not the escaper) is the oracle: the same string comes back.
        let value = try JSONReader.parse(Array(escaped.utf8))
        #expect(value.stringValue == hostile)
    }

    /// Digests from `openssl dgst -sha256 -binary | base64`.
    @Test(arguments: [
        ("abc", "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="),
        ("", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="),
        (String(repeating: "a", count: 1000), "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM="),
    ])
    func theScriptHashesAreOpenSSLs(text: String, base64: String) {
        #expect(SHA256.base64Digest(Array(text.utf8)) == base64)
    }

    @Test func thePolicyAllowsOnlyThePagesScriptsAndNoRequest() {
        let policy = ReportPage.contentSecurityPolicy(scripts: ["abc"])
        #expect(policy.contains("script-src 'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=';"))
        for directive in [
            "default-src 'none'", "connect-src 'none'", "form-action 'none'", "base-uri 'none'", "img-src 'none'",
        ] {
            #expect(policy.contains(directive))
        }
        #expect(!policy.contains("script-src 'unsafe-inline'"))
    }

    /// A heartbeat as a compromised kiosk might send it: a newline that forges a row for
    /// another kiosk, ESC sequences (clear the screen, retitle the window, a hyperlink), a C1
    /// CSI, a bidi override that reverses what follows.
    static let hostile = KioskStatus(
        kioskID: "lobby-1\nlobby-2  online  1s ago", state: .online, secondsSinceHeartbeat: 1, appVersion: nil,
        deckApplied: "deck\u{1b}[2J\u{1b}]0;pwned\u{7}", deckAssigned: nil, unsent: 0,
        lastTouch: "\u{9b}31m\u{202e}gnp.exe", lastFlip: "\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\",
        cpuTemperatureC: nil, throttled: nil, storageFailing: nil, decisions: 3,
        deckError: "bad\rlobby-3: deck not applied: forged")

    @Test func fleetStatusShowsAKiosksControlCharactersVisibly() {
        let text = FleetStatusCommand.tableText([Self.hostile])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // Header, the one kiosk, its deck problem, the footnote and the final newline: no forged line.
        #expect(lines.count == 5)
        #expect(lines[1].hasPrefix("lobby-1\\nlobby-2  online  1s ago"))
        #expect(
            lines[2] == "lobby-1\\nlobby-2  online  1s ago: deck not applied: bad\\rlobby-3: deck not applied: forged")
        for scalar in text.unicodeScalars where scalar != "\n" {
            #expect(
                !(scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)), "U+\(String(scalar.value, radix: 16))")
            #expect(!(0x202A...0x202E).contains(scalar.value))
        }
        #expect(text.contains("deck\\e[2J\\e]0;pwned\\x07"))
        #expect(text.contains("\\x9b31m\\u{202e}gnp.exe"))
    }

    @Test func fleetStatusJSONCarriesNoControlCharacterEither() throws {
        let text = FleetStatusCommand.json([Self.hostile])
        for scalar in text.unicodeScalars where scalar != "\n" {
            #expect(!(scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || scalar.value == 0x202E))
        }
        // The JSON reader is the oracle: the same text comes back.
        let array = try #require(try JSONReader.parse(Array(text.utf8))["kiosks"]?.elements)
        #expect(array.first?["kiosk_id"]?.stringValue == Self.hostile.kioskID)
        #expect(array.first?["last_touch"]?.stringValue == Self.hostile.lastTouch)
    }

    @Test func terminalTextIsReversibleAndPrintable() {
        #expect(Escape.terminal("a\\b") == "a\\\\b")  // a real backslash cannot fake an escape
        #expect(Escape.terminal("tab\there\u{0}\u{7f}") == "tab\\there\\x00\\x7f")
        #expect(Escape.terminal("ünï 中文 العربية") == "ünï 中文 العربية")
    }
}
