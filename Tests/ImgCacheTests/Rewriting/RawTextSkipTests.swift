import Foundation
import Testing
@testable import ImgCache
#if canImport(Darwin)
import libxml2
#else
import CLibXML2
#endif
@testable import ImgCacheMarkup

/// The scanner moves libxml2 past script and style content where the libxml2 it runs reads that
/// content the way the skip reproduces (2.9.14). Whatever the rewriter is told must not
/// change: every element it hears of, where its tag is, what encloses it, and every style text,
/// on edge cases and random markup, with the skip and without it (the path any other libxml2
/// takes). The real pages are compared once for both shortcuts, in `UnreadInputCutTests`.
@Suite("Skipping script and style content")
struct RawTextSkipTests {
    /// Everything the scanner reports, as text to compare.
    final class Recorder: HTMLScanHandler {
        var events: [String] = []
        /// Which attribute names make an element reported: by default all, every element with
        /// attributes; fewer, and whether an element is reported says which names libxml2 saw.
        let attributesOfInterest: Set<String>?

        init(attributesOfInterest: Set<String>? = nil) {
            self.attributesOfInterest = attributesOfInterest
        }

        func interest(inElement name: String) -> ScanInterest { attributesOfInterest == nil ? .imageElement : [] }
        func interest(inAttribute name: String) -> ScanInterest {
            attributesOfInterest.map { $0.contains(name) ? .holdsImages : [] } ?? .holdsImages
        }

        func elementStarted(_ element: ElementStart, scanner: HTMLScanner) {
            let pending = scanner.pendingTag
            let tag = scanner.locate().map { "\($0.start)...\($0.end) attributes \($0.attributes.count)" } ?? "not located"
            events.append("\(element.name) in \(element.parentName ?? "-") svg \(element.inSVG) inert \(element.isInert) "
                + "reported at \(pending.searchStart)..<\(pending.end) tag \(tag)")
        }

        func styleText(_ range: Range<Int>, isInert: Bool) {
            events.append("style text \(range) inert \(isInert)")
        }
    }

    /// What the scanner reports for `page`, and how many content and attribute value bytes
    /// libxml2 was moved past.
    static func scan(_ page: [UInt8], skipping: Bool, attributesOfInterest: Set<String>? = nil)
        -> (events: [String], skipped: Int, cut: Int) {
        page.withUnsafeBufferPointer { bytes in
            let buffer = ParseBuffer(page: bytes, pageIsUTF8: true)
            let recorder = Recorder(attributesOfInterest: attributesOfInterest)
            let scanner = HTMLScanner(buffer: buffer, handler: recorder, takesInputShortcuts: skipping)
            scanner.run()
            return (recorder.events, scanner.skippedRawTextBytes, scanner.cutInputBytes)
        }
    }

    /// Compares the reports with libxml2's input shortcuts and without; returns the bytes skipped.
    @discardableResult
    static func expectSameReports(
        _ page: [UInt8], _ label: @autoclosure () -> String, attributesOfInterest: Set<String>? = nil
    ) -> (skipped: Int, cut: Int) {
        let read = scan(page, skipping: false, attributesOfInterest: attributesOfInterest)
        let skipped = scan(page, skipping: true, attributesOfInterest: attributesOfInterest)
        #expect(read.skipped == 0 && read.cut == 0)
        if skipped.events != read.events {
            let first = skipped.events.indices.first { $0 >= read.events.count || skipped.events[$0] != read.events[$0] }
                ?? skipped.events.count
            let skippingFrom = Array(skipped.events.dropFirst(first).prefix(3)), readingFrom = Array(read.events.dropFirst(first).prefix(3))
            Issue.record("\(label()): reports differ from event \(first): skipping \(skippingFrom), reading \(readingFrom)")
        }
        return (skipped.skipped, skipped.cut)
    }

    @Test("the libxml2 version read at run time agrees with the headers, and decides whether content is skipped")
    func versionDecides() {
        #expect(LibXML2Runtime.allowsInputShortcuts
                == (!LibXML2Runtime.isApplePlatform && Int(LIBXML_VERSION) == 20914))
        let page = Array("<p class=a>x</p><script>var a = '<b>' + 1;</script><img src=a.png>".utf8)
        let skipped = Self.scan(page, skipping: LibXML2Runtime.allowsInputShortcuts).skipped
        #expect(skipped == (LibXML2Runtime.allowsInputShortcuts ? "var a = '<b>' + 1".utf8.count : 0))
    }

    @Test("the shortcuts are taken for upstream libxml2 2.9.14, the version these tests run them on, off Apple platforms only",
          arguments: [nil, 20910, 20911, 20912, 20913, 20914, 21000, 21200, 21400])
    func gatePerPlatform(version: Int?) {
        let upstreamChecked = version == 20914
        #expect(LibXML2Runtime.allowsInputShortcuts(version: version, onApplePlatform: false) == upstreamChecked)
        #expect(!LibXML2Runtime.allowsInputShortcuts(version: version, onApplePlatform: true))
    }

    @Test("edge cases: end tags in any case or as a prefix, other end tags inside, empty and self-closed elements, no end tag, tags right after the start tag", arguments: [
        "<style>a{background:url(a.png)}</style><img src=b.png>",
        "<STYLE type=text/css>a{}</STYLE ><img src=b.png>",
        "<style media=all>a{} </StYlE><img src=b.png>",
        "<script src=a.js>if (a </ b) x()</scripts><img src=b.png></script><img src=c.png>",
        "<script id=s>document.write('</div><img src=x.png>')</script><img src=b.png>",
        "<style id=s></style><img src=b.png>",
        "<style id=s/>a{}<img src=b.png></style><img src=c.png>",
        "<style id=s>a{}<img src=b.png>",
        "<style id=s><img src=b.png></style><img src=c.png>",
        "<style id=s></p>a{}</style><img src=c.png>",
        "<style id=s>x</style",
        "<style id=s>x</sty",
        "<style id=s>x</",
        "<style id=s>x<",
        "<script id=s><!-- </script> --><img src=b.png>",
        "<textarea id=t><style id=s>a{}</style><img src=b.png></textarea><img src=c.png>",
        "<title id=t><script id=s>1</script></title><img src=c.png>",
        "<svg id=v><style id=s>rect{fill:url(#g)}</style><image href=a.png /></svg><img src=c.png>",
        "<noscript id=n><style id=s>a{}</style></noscript><img src=c.png>",
        "<table id=t><style id=s>a{}</style><tr><td><img src=c.png></table>",
        "<head id=h><style id=s>é{content:'ü'}</style><body id=b><img src=c.png>",
        "<style id=s>\r\n\u{1}\u{8}\u{B}\u{FFFF}\u{0}x</style><img src=c.png>",
        "<script id=s>a\u{0}</script><img src=c.png></script><img src=d.png>",
        "<p id=p><style id=s>a{}</style>text<img src=c.png>",
        "<style id=s>a</style><style id=t>b</style><script id=u>c</script><img src=c.png>",
        "<script id=s>x</script  foo=bar><img src=c.png>",
        "<xmp id=x><script id=s>1</script></xmp><img src=c.png>",
        "<plaintext id=p><style id=s>a{}</style><img src=c.png>",
    ])
    func edgeCases(page: String) {
        Self.expectSameReports(Array(page.utf8), page)
    }

    @Test("invalid UTF-8 and legacy bytes inside and around the content")
    func invalidBytes() {
        let pages: [[UInt8]] = [
            Array("<style id=s>a{}".utf8) + [0xFF, 0xC3] + Array("</style><img src=c.png>".utf8),
            Array("<script id=s>".utf8) + [0xE9, 0x3C, 0x2F] + Array("script><img src=c.png>".utf8),
            Array("<style id=s>".utf8) + [0xC3] + Array("</style><img src=c.png>".utf8),
            Array("<style id=s>a{}<".utf8) + [0xC3, 0xA9] + Array("/style></style><img src=c.png>".utf8),
        ]
        for page in pages { Self.expectSameReports(page, "\(page)") }
    }

    @Test("random markup built from the pieces that decide where raw text ends reports the same")
    func randomMarkup() async {
        let pieces = [
            "<script>", "<script src=a.js>", "</script>", "</SCRIPT >", "</scripts>", "<style>", "<style id=s>", "</style>",
            "</Style>", "</styles>", "<style/>", "<script/>", "<img src=a.png>", "<img src='b.png' alt=\"</style>\">",
            "<p class=a>", "</p>", "<div id=d>", "</div>", "<!--", "-->", "<!-- c -->", "<textarea id=t>", "</textarea>",
            "<title id=t>", "</title>", "<svg id=v>", "</svg>", "<table id=t>", "<td id=c>", "<![CDATA[", "]]>", "<?x ?>",
            "<!DOCTYPE html>", "<noscript id=n>", "</noscript>", "<a href=x.html>", "<link rel=icon href=i.png>",
            "a{background:url(c.gif)}", "if (a < b) {}", "x", " ", "\n", "é", "<", "</", ">", "/>", "'", "\"", "=",
            "&amp;", "&", "\u{0}", "\u{1}", "</sty", "le>",
        ]
        await offPool {
            var generator = EncodingFuzzGenerator(seed: 0x5C21_7E47)
            for round in 0..<3_000 {
                let count = Int.random(in: 1...60, using: &generator)
                let page = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
                Self.expectSameReports(Array(page.utf8), "round \(round): \(page)")
            }
        }
    }
}
