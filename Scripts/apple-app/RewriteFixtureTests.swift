// The rewriting and encoding checks of Tests/ImgCacheTests (EncodingTests, BaseElementTests, and
// the splice property of RealPagesTests and the fuzz targets), through ImgCache's public API only,
// for an app's test bundle: Scripts/check-apple.sh copies the repository's fixtures/rewrite/ into
// this target as a resource and runs it on an iOS Simulator (the SDK's libxml2 and libiconv) and
// on macOS. The package's own test target cannot run there: it depends on Linux-only test servers.
import Foundation
import Testing
import ImgCache

/// The pages of fixtures/rewrite/, as copied into this bundle.
enum RewriteFixtures {
    static func folder() throws -> URL {
        guard let url = Bundle.module.url(forResource: "rewrite", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }

    static func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder().path).filter { $0.hasSuffix(".html") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder().appendingPathComponent(name)))
    }
}

func rewrite(_ input: [UInt8], pageURL: String = "https://example.com/dir/page.html",
             options: RewriteOptions = RewriteOptions()) -> RewriteResult {
    ImageRewriter(options: options).rewrite(input, pageURL: BrowserURL(pageURL))
}

/// The bytes the references' byte ranges count in: the page's own, or for a UTF-16 page its UTF-8
/// form (a byte order mark included, as U+FEFF). Nil for UTF-16 that is not in whole units.
func rangeBytes(_ bytes: [UInt8], _ encoding: HTMLEncoding) -> [UInt8]? {
    let bigEndian: Bool
    if encoding == .utf16LE {
        bigEndian = false
    } else if encoding == .utf16BE {
        bigEndian = true
    } else {
        return bytes
    }
    guard bytes.count % 2 == 0 else { return nil }
    let units = stride(from: 0, to: bytes.count, by: 2).map { i -> UInt16 in
        let first = UInt16(bytes[i]), second = UInt16(bytes[i + 1])
        return bigEndian ? first << 8 | second : second << 8 | first
    }
    return Array(String(decoding: units, as: UTF16.self).utf8)
}

/// Expects two pages to be byte-identical; on failure, says where they first differ, in text.
func expectSameBytes(_ actual: [UInt8], _ expected: [UInt8], _ what: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    guard actual != expected else { return }
    let offset = zip(actual, expected).prefix { $0 == $1 }.count
    let from = max(0, offset - 40)
    let actualContext = String(decoding: actual[from..<min(actual.count, offset + 60)], as: UTF8.self)
    let expectedContext = String(decoding: expected[from..<min(expected.count, offset + 60)], as: UTF8.self)
    Issue.record("\(what): bytes differ at offset \(offset) (sizes \(actual.count) vs \(expected.count)):\n  actual:   …\(actualContext)…\n  expected: …\(expectedContext)…",
                 sourceLocation: sourceLocation)
}

extension Array where Element == UInt8 {
    /// These bytes with the first occurrence of `old` replaced by `new`; records an issue when
    /// `old` does not occur, so that an expectation cannot pass by accident.
    func replacing(_ old: String, with new: String) -> [UInt8] {
        let old = Array(old.utf8)
        var i = 0
        while i + old.count <= count {
            if self[i..<(i + old.count)].elementsEqual(old) {
                return Array(self[..<i]) + Array(new.utf8) + Array(self[(i + old.count)...])
            }
            i += 1
        }
        Issue.record("'\(String(decoding: old, as: UTF8.self))' does not occur")
        return self
    }
}

/// The local path the rewriter wrote for the reference to `url`.
func localPath(_ result: RewriteResult, _ url: String) throws -> String {
    try #require(result.references.first { $0.url == url }?.localPath, "no rewritten reference to \(url)")
}

@Suite("Rewriting the fixture pages through the public API")
struct RewriteFixtureTests {
    /// The output is the input with each rewritten reference's byte range replaced by its local
    /// path, and nothing else changed; where a range spells its URL plainly, it spells exactly it.
    static func checkSplice(_ name: String, _ input: [UInt8], _ result: RewriteResult) {
        guard let before = rangeBytes(input, result.encoding), let after = rangeBytes(result.bytes, result.encoding) else {
            Issue.record("\(name): a \(result.encoding.name) page not in whole UTF-16 units")
            return
        }
        for reference in result.references {
            let range = reference.byteRange
            guard range.lowerBound >= 0, range.upperBound <= before.count else {
                Issue.record("\(name): \(reference.original) has range \(range) outside the \(before.count) bytes")
                return
            }
            let raw = before[range]
            if raw.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "&") && $0 != UInt8(ascii: "\\") }) {
                #expect(String(decoding: raw, as: UTF8.self) == reference.original, "\(name): the span \(range)")
            }
        }
        var expected = before
        for reference in result.rewrittenReferences.sorted(by: { $0.byteRange.lowerBound > $1.byteRange.lowerBound }) {
            guard let path = reference.localPath else {
                Issue.record("\(name): \(reference.original) is rewritten but has no local path")
                return
            }
            expected.replaceSubrange(reference.byteRange, with: Array(path.utf8))
        }
        expectSameBytes(after, expected, name)
    }

    @Test("every page is its input with the rewritten URLs replaced, every other byte kept; a second pass rewrites nothing")
    func everyPage() throws {
        let names = try RewriteFixtures.names()
        #expect(names.count >= 10, "\(names)")
        var encodings = Set<String>()
        var emptiedBase: [String] = []
        var rewrittenInAll = 0
        for name in names {
            let input = try RewriteFixtures.bytes(name)
            for options in [RewriteOptions(), RewriteOptions(referenceStyle: .urlPrefix("imgcache://cache/"))] {
                let result = rewrite(input, options: options)
                encodings.insert(result.encoding.name)
                // A page whose <base href> is emptied has edits besides its references': checked
                // byte for byte below, as BaseElementTests does.
                if result.warnings.contains(where: { if case .baseEmptied = $0 { true } else { false } }) {
                    emptiedBase.append(name)
                    continue
                }
                rewrittenInAll += result.rewrittenReferences.count
                Self.checkSplice(name, input, result)
                if case .urlPrefix = options.referenceStyle, !result.rewrittenReferences.isEmpty {
                    let again = rewrite(result.bytes, options: options)
                    #expect(again.encoding != result.encoding || again.rewrittenReferences.isEmpty,
                            "\(name): a second pass rewrote \(again.rewrittenReferences.count) more")
                }
            }
        }
        #expect(Set(emptiedBase) == ["base-absolute.html", "base-relative.html"])
        #expect(encodings.isSuperset(of: ["GBK", "Shift_JIS", "UTF-16LE", "UTF-8"]), "\(encodings)")
        #expect(rewrittenInAll >= 30, "\(rewrittenInAll) references rewritten in all")
    }

    @Test("a GBK page round-trips byte for byte; path URLs are UTF-8 and the query uses GBK, as browsers do")
    func gbk() throws {
        let input = try RewriteFixtures.bytes("gbk.html")
        let result = rewrite(input, pageURL: "https://example.cn/dir/page.html")
        #expect(result.encoding.name == "GBK")
        #expect(result.references.map(\.url) == [
            "https://example.cn/dir/%E5%9B%BE%E7%89%87/%E7%8C%AB.png",
            "https://example.cn/photo.jpg?%B1%EA%CC%E2=%B7%E7%BE%B0",
        ])
        #expect(result.references.first?.original == "图片/猫.png")
        #expect(result.rewrittenReferences.count == 2)
        Self.checkSplice("gbk.html", input, result)
    }

    @Test("a Shift_JIS page whose characters contain the byte 0x5C keeps every byte; CSS escapes are not misread")
    func shiftJIS() throws {
        let input = try RewriteFixtures.bytes("shift_jis.html")
        let result = rewrite(input, pageURL: "https://example.jp/")
        #expect(result.encoding.name == "Shift_JIS")
        #expect(result.references.map(\.url) == [
            "https://example.jp/%E7%94%BB%E5%83%8F/%E3%82%BD.png",
            "https://example.jp/%E8%83%8C%E6%99%AF%E3%82%BD.jpg",
        ])
        #expect(result.rewrittenReferences.count == 2)
        Self.checkSplice("shift_jis.html", input, result)
    }

    @Test("a byte order mark is kept and wins over the meta declaration")
    func byteOrderMark() throws {
        let input = try RewriteFixtures.bytes("bom.html")
        let result = rewrite(input)
        #expect(result.encoding == .utf8)
        #expect(result.encodingSource == .byteOrderMark)
        let path = try localPath(result, "https://example.com/bom.png")
        expectSameBytes(result.bytes, input.replacing("/bom.png", with: path), "bom.html")
        #expect(Array(result.bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
    }

    @Test("a page that declares gb2312 but is UTF-8 is read as UTF-8: no mojibake in URLs, bytes kept")
    func lyingDeclaration() throws {
        let input = try RewriteFixtures.bytes("lying-charset.html")
        let result = rewrite(input)
        let url = "https://example.com/%E5%9B%BE%E7%89%87/%E7%9C%9F.png"
        #expect(result.encoding == .utf8)
        #expect(result.references.first?.original == "/图片/真.png")
        #expect(result.references.first?.url == url)
        let path = try localPath(result, url)
        expectSameBytes(result.bytes, input.replacing("/图片/真.png", with: path), "lying-charset.html")
        #expect(!result.warnings.isEmpty)
    }

    @Test("a caller-given charset (HTTP) beats the meta declaration")
    func transportCharset() throws {
        let input = try RewriteFixtures.bytes("gbk.html")
        let result = rewrite(input, options: RewriteOptions(transportEncodingLabel: "gb18030"))
        #expect(result.encoding.name == "gb18030")
        #expect(result.references.first?.original == "图片/猫.png")
    }

    @Test("a UTF-16 page is rewritten in UTF-16, BOM included")
    func utf16() throws {
        let input = try RewriteFixtures.bytes("utf16le.html")
        let result = rewrite(input)
        #expect(result.encoding == .utf16LE)
        let path = try localPath(result, "https://example.com/wide.png")
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "<html><head></head><body><p>UTF-16 页面</p><img src=\"\(path)\"></body></html>\n".utf16 {
            utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        expectSameBytes(result.bytes, utf16, "utf16le.html")
    }

    @Test("an absolute base is emptied and the URLs it steered made absolute; nothing else changes")
    func absoluteBase() throws {
        let input = try RewriteFixtures.bytes("base-absolute.html")
        let result = rewrite(input)
        let assets = "https://cdn.example.com/assets/"
        let logo = try localPath(result, assets + "img/logo.png")
        let expected = input
            .replacing("<base href=\"https://cdn.example.com/assets/\">", with: "<base href=\"\">")
            .replacing("\"site.css\"", with: "\"\(assets)site.css\"")
            .replacing("\"app.js\"", with: "\"\(assets)app.js\"")
            .replacing("\"page2.html\"", with: "\"\(assets)page2.html\"")
            .replacing("\"#top\"", with: "\"\(assets)#top\"")
            .replacing("\"img/logo.png\"", with: "\"\(logo)\"")
            .replacing("\"img/photo.jxl\"", with: "\"\(assets)img/photo.jxl\"")
            .replacing("\"submit\"", with: "\"\(assets)submit\"")
        expectSameBytes(result.bytes, expected, "base-absolute.html")
    }

    @Test("a relative base resolves against the page URL; unquoted values stay valid")
    func relativeBase() throws {
        let input = try RewriteFixtures.bytes("base-relative.html")
        let result = rewrite(input, pageURL: "https://example.com/a/b/page.html")
        let staticBase = "https://example.com/a/static/"
        let picture = try localPath(result, staticBase + "pic.png")
        let tile = try localPath(result, staticBase + "tile.png")
        let expected = input
            .replacing("'../static/'", with: "''")
            .replacing("src=pic.png", with: "src=\(picture)")
            .replacing("href=about.html", with: "href=\(staticBase)about.html")
            .replacing("url(tile.png)", with: "url(\(tile))")
        expectSameBytes(result.bytes, expected, "base-relative.html")
    }
}
