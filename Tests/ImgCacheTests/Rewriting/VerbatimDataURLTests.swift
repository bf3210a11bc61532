import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("data: URLs reported without the parser")
struct VerbatimDataURLTests {
    @Test("whenever a data: URL skips the parser, the parser would have given back the text itself")
    func agreesWithParser() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["image/png", ";base64,", "iVBORw0KGgo", "+/=", "%20", "%", ",", " ", "\t", "\n", "?", "#", "/", "\\",
                      "<svg>", "'", "\"", "\u{7f}", "\u{1}", "\u{e9}", "..", "./", "A", "z", ":", "@", "{", "|", "^", "`"]
        let starts = ["data:", "DATA:", "Data:", " data:", "data:/", "data", "dat:"]
        var fast = 0
        for _ in 0..<20_000 {
            let input = starts.randomElement(using: &generator)!
                + (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            guard VerbatimDataURL.matches(input) else { continue }
            fast += 1
            #expect(BrowserURL(input)?.serialized == input, "input \(input)")
            #expect(BrowserURL(input, relativeTo: BrowserURL("https://example.com/a/page.html"))?.serialized == input, "input \(input)")
        }
        #expect(fast > 500)
    }

    @Test("inline images skip the parser; what the parser would change does not")
    func typicalInput() {
        #expect(VerbatimDataURL.matches("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="))
        #expect(VerbatimDataURL.matches("data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%3E%3C/svg%3E"))
        #expect(!VerbatimDataURL.matches("data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'></svg>"))
        #expect(!VerbatimDataURL.matches("DATA:image/png;base64,AAAA"))
        #expect(!VerbatimDataURL.matches("data:/x"))
        #expect(!VerbatimDataURL.matches("data:"))
        #expect(!VerbatimDataURL.matches("data:a#b"))
        #expect(!VerbatimDataURL.matches("data:a?b"))
        #expect(!VerbatimDataURL.matches("https://example.com/a.png"))
    }

    @Test("a byte the parser would change is noticed wherever it stands in a long data: URL")
    func everyPosition() {
        let payload = Array("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk".unicodeScalars)
        #expect(VerbatimDataURL.matches("data:image/png;base64," + String(String.UnicodeScalarView(payload))))
        for changed in [" ", "\t", "?", "#", "\u{7f}", "\u{e9}", "\u{1}", "\u{0}"] as [Unicode.Scalar] {
            for position in payload.indices {
                var scalars = payload
                scalars[position] = changed
                let text = "data:image/png;base64," + String(String.UnicodeScalarView(scalars))
                #expect(!VerbatimDataURL.matches(text), "\(changed.escaped(asASCII: true)) at \(position)")
            }
        }
    }
}
