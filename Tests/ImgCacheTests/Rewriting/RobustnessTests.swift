import Foundation
import Testing
@testable import ImgCache

@Suite("Bad input")
struct RobustnessTests {
    @Test("empty input gives empty output")
    func empty() {
        #expect(rewrite([UInt8]()).bytes == [])
        #expect(rewrite([UInt8]()).references.isEmpty)
    }

    @Test("binary garbage with NULs and invalid UTF-8: no crash, and only complete tags are rewritten")
    func garbage() async throws {
        try await offPool {
            let input = try Fixtures.bytes("rewrite/garbage.html")
            let result = rewrite(input)
            // The first tag's quote never closes before `>`… of the second tag, and the last tag never ends:
            // browsers see neither `/b.png` nor `/c.png` as an image.
            var expected = input
            for reference in result.rewrittenReferences.reversed() {
                expected.replaceSubrange(reference.byteRange, with: Array(reference.localPath!.utf8))
            }
            expectSameBytes(result.bytes, expected)
            #expect(result.references.map(\.original) == ["/a.png"])
        }
    }

    @Test("random bytes never crash the rewriter and unrewritable pages come back identical")
    func randomBytes() async {
        await offPool {
            var generator = SystemRandomNumberGenerator()
            let alphabet = Array("<>/=\"' \nimgsrc.pngabc&#;-!".utf8) + [0, 0x80, 0xFF, 0xC3]
            for _ in 0..<300 {
                let length = Int.random(in: 0..<400, using: &generator)
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
                let result = rewrite(bytes, pageURL: nil)
                if result.rewrittenReferences.isEmpty {
                    #expect(result.bytes == bytes)
                }
            }
        }
    }

    @Test("unterminated tags, attributes and comments do not hang and lose nothing")
    func unterminated() async {
        await offPool {
            for html in ["<img src=\"a.png", "<img src='a.png' ", "<!-- <img src=a.png>", "<img", "<", "<img src=a.png><!--", "<style>url(a.png)"] {
                let result = rewrite(html)
                if html == "<img src=a.png><!--" {
                    #expect(result.bytes.text == "<img src=\(localPath("https://example.com/dir/a.png"))><!--")
                } else if html == "<style>url(a.png)" {
                    #expect(result.bytes.text == "<style>url(\(localPath("https://example.com/dir/a.png")))")
                } else {
                    #expect(result.bytes.text == html)
                }
            }
        }
    }

    @Test("100,000 nested elements: the image inside is still found")
    func deepNesting() async {
        await offPool {
            let html = String(repeating: "<div>", count: 100_000) + "<img src=deep.png>" + String(repeating: "</div>", count: 100_000)
            let result = rewrite(html)
            #expect(result.rewrittenReferences.map(\.original) == ["deep.png"])
            #expect(result.bytes.count == html.utf8.count - "deep.png".count + localPath("https://example.com/dir/deep.png").count)
        }
    }

    @Test("a large page (8 MB) is rewritten completely")
    func largePage() async {
        await offPool {
            let chunk = "<div class=\"card\"><p>Some text &amp; more</p><img src=\"https://cdn.example.com/i/%d.jpg\" alt=\"x\"></div>\n"
            var html = "<html><body>"
            html.reserveCapacity(8_500_000)
            var n = 0
            while html.utf8.count < 8_000_000 {
                html += chunk.replacingOccurrences(of: "%d", with: String(n))
                n += 1
            }
            let result = rewrite(html)
            #expect(result.rewrittenReferences.count == n)
            #expect(result.rewrittenReferences.last?.url == "https://cdn.example.com/i/\(n - 1).jpg")
        }
    }
}
