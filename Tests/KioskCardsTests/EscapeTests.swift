import Testing

@testable import KioskCards
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
}
