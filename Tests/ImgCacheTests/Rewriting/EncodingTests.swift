import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("Encodings")
struct EncodingTests {
    @Test("a GBK page round-trips byte for byte; path URLs are UTF-8 and the query uses GBK, as browsers do")
    func gbk() throws {
        let input = try Fixtures.bytes("rewrite/gbk.html")
        let result = rewrite(input, pageURL: "https://example.cn/dir/page.html")
        #expect(result.encoding.name == "GBK")
        let urls = result.references.map(\.url)
        #expect(urls == [
            "https://example.cn/dir/%E5%9B%BE%E7%89%87/%E7%8C%AB.png",
            "https://example.cn/photo.jpg?%B1%EA%CC%E2=%B7%E7%BE%B0",
        ])
        #expect(result.references.first?.original == "图片/猫.png")
        var expected = input
        for reference in result.references.reversed() {
            expected.replaceSubrange(reference.byteRange, with: Array(reference.localPath!.utf8))
        }
        expectSameBytes(result.bytes, expected)
        #expect(result.bytes.count == input.count - result.references.map(\.byteRange.count).reduce(0, +)
            + result.references.map { $0.localPath!.utf8.count }.reduce(0, +))
    }

    @Test("a Shift_JIS page whose characters contain the byte 0x5C keeps every byte; CSS escapes are not misread")
    func shiftJIS() throws {
        let input = try Fixtures.bytes("rewrite/shift_jis.html")
        let result = rewrite(input, pageURL: "https://example.jp/")
        #expect(result.encoding.name == "Shift_JIS")
        #expect(result.references.map(\.url) == [
            "https://example.jp/%E7%94%BB%E5%83%8F/%E3%82%BD.png",
            "https://example.jp/%E8%83%8C%E6%99%AF%E3%82%BD.jpg",
        ])
        var expected = input
        for reference in result.references.reversed() {
            expected.replaceSubrange(reference.byteRange, with: Array(reference.localPath!.utf8))
        }
        expectSameBytes(result.bytes, expected)
    }

    @Test("a byte order mark is kept and wins over the meta declaration")
    func byteOrderMark() throws {
        let input = try Fixtures.bytes("rewrite/bom.html")
        let result = rewrite(input)
        #expect(result.encoding == .utf8)
        #expect(result.encodingSource == .byteOrderMark)
        expectSameBytes(result.bytes, input.replacing("/bom.png", with: localPath("https://example.com/bom.png")))
        #expect(Array(result.bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
    }

    @Test("a page that declares gb2312 but is UTF-8 is read as UTF-8: no mojibake in URLs, bytes kept")
    func lyingDeclaration() throws {
        let input = try Fixtures.bytes("rewrite/lying-charset.html")
        let result = rewrite(input)
        #expect(result.encoding == .utf8)
        #expect(result.references.first?.original == "/图片/真.png")
        #expect(result.references.first?.url == "https://example.com/%E5%9B%BE%E7%89%87/%E7%9C%9F.png")
        expectSameBytes(result.bytes, input.replacing("/图片/真.png", with: localPath("https://example.com/%E5%9B%BE%E7%89%87/%E7%9C%9F.png")))
        #expect(!result.warnings.isEmpty)
    }

    @Test("a caller-given charset (HTTP) beats the meta declaration")
    func transportCharset() throws {
        let input = try Fixtures.bytes("rewrite/gbk.html")
        var options = RewriteOptions()
        options.transportEncodingLabel = "gb18030"
        let result = rewrite(input, options: options)
        #expect(result.encoding.name == "gb18030")
        #expect(result.references.first?.original == "图片/猫.png")
    }

    @Test("a UTF-16 page is rewritten in UTF-16, BOM included")
    func utf16() throws {
        let input = try Fixtures.bytes("rewrite/utf16le.html")
        let result = rewrite(input)
        #expect(result.encoding == .utf16LE)
        let expectedText = String(decoding: input.dropFirst(2).withUnsafeBufferPointer { Array($0) }, as: UTF8.self)
        _ = expectedText
        let path = localPath("https://example.com/wide.png")
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "<html><head></head><body><p>UTF-16 页面</p><img src=\"\(path)\"></body></html>\n".utf16 {
            utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        #expect(result.bytes == utf16)
    }
}
