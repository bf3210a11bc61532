import Foundation
import ImgCacheTestServer
import Testing

/// What servers and pages wrote reaches the terminal with its control characters escaped
/// (`\xHH`): an escape sequence in a `Content-Type`, a `Location` or a page could otherwise
/// retitle the terminal, erase earlier lines or write the clipboard.
@Suite("imgcache escapes what servers and pages wrote")
struct TerminalEscapingTests {
    /// The characters of `text` a terminal acts on: C0 but the line break, DEL, C1.
    static func controls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }
    }

    #if os(Linux)
    // Over libcurl. A C0 control or DEL in a header field makes the response refused outright (as
    // AsyncHTTPClient refuses it: "invalid character in header"); a C1 control, which UTF-8
    // writes as bytes a field may hold, reaches the failure line, and is escaped there.
    @Test("fetch: a Content-Type holding a C1 escape sequence is shown escaped on standard error; C0 ones refuse the response")
    func serverHeaders() async throws {
        let server = try await TestImageServer.start()
        let contentType = "text/html\u{1B}]0;owned\u{07}\u{1B}[2K"
        server.route("/fake.png", .unvalidatedHead(status: 200, headers: [(name: "Content-Type", value: contentType)],
                                                   body: Array("<html>not an image</html>".utf8)))
        server.route("/c1.png", .unvalidatedHead(status: 200, headers: [(name: "Content-Type", value: "text/plain\u{9B}2J\u{9D}0;x\u{9C}")],
                                                 body: Array("text".utf8)))
        let location = "http://ex\u{1B}[1Aample.com/a.png"
        server.route("/moved.png", .unvalidatedHead(status: 302, headers: [(name: "Location", value: location)]))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=fake.png><img src=c1.png><img src=moved.png>")
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--retries", "0", "--http-client", "curl"],
            in: folder.url)
        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(Self.controls(in: outcome.stderr).isEmpty, "raw control characters on standard error: \(outcome.stderr.debugDescription)")
        let failures = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("imgcache: failed: ") }
        #expect(failures.count == 3, "\(outcome.stderr)")
        // The person still sees what the server sent.
        #expect(outcome.stderr.contains("imgcache: failed: \(server.url("/c1.png")): not an image: text/plain\\x9B2J\\x9D0;x\\x9C"),
                "\(outcome.stderr)")
        for path in ["/fake.png", "/moved.png"] {
            #expect(outcome.stderr.contains("imgcache: failed: \(server.url(path)): invalid response: a response header holds a control character"),
                    "\(outcome.stderr)")
        }
        try await server.shutdown()
    }
    #endif

    /// A page whose references hold an OSC title sequence, BEL, C1 CSI, DEL, a tab and a line break.
    static let hostilePage = "<img src=\"a\u{1B}]0;owned\u{07}.png\"><img src=\"b\u{9B}2J\u{7F}\tc.png\"><img src=\"d\ne.png\"><img src=\"caf\u{E9}.png\">"

    @Test("list on a terminal shows the page's control characters escaped; piped, it writes them as the page has them")
    func listOnTerminal() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", Self.hostilePage)
        let arguments = ["list", "page.html", "--base-url", "https://example.com/"]

        let shown = try await PseudoTerminal.run(arguments, in: folder.url)
        #expect(shown.status == 0, "\(shown.stderr)")
        let text = String(decoding: shown.terminal, as: UTF8.self)
        // Lines and their tab-separated fields are the command's own; nothing inside a field is a control.
        let fields = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(fields.allSatisfy { $0.count == 5 }, "\(text.debugDescription)")
        #expect(fields.joined().allSatisfy { Self.controls(in: String($0)).isEmpty }, "raw control characters on the terminal: \(text.debugDescription)")
        let originals = fields.map { $0[2] }
        #expect(originals == ["a\\x1B]0;owned\\x07.png", "b\\x9B2J\\x7F\\x09c.png", "d\\x0Ae.png", "caf\u{E9}.png"], "\(text)")

        let piped = try await CommandRunner.runOffPool(arguments, in: folder.url)
        #expect(piped.status == 0, "\(piped.stderr)")
        let lines = piped.stdout.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.split(separator: "\t")[2] == "a\u{1B}]0;owned\u{07}.png", "\(piped.stdout.text.debugDescription)")
        #expect(piped.stdout.text.contains("b\u{9B}2J\u{7F}\tc.png"), "\(piped.stdout.text.debugDescription)")
    }
}
