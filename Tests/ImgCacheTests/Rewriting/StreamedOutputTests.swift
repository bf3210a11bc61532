import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport
@testable import ImgCacheMarkup

/// A rewritten page handed out in pieces (`writeBytes`, `write(toFile:)`) is the same page as
/// `bytes` spells out, so that a large page can go to its file without being whole in memory.
@Suite("Rewritten pages written in pieces")
struct StreamedOutputTests {
    /// `count` images with a line of text between them: about 120 bytes an image.
    private static func page(images count: Int, base: Bool = false) -> (page: [UInt8], expected: [UInt8]) {
        var page = "<!doctype html><html><head>" + (base ? "<base href=\"https://cdn.example/assets/\">" : "") + "</head><body>\n"
        var expected = "<!doctype html><html><head>" + (base ? "<base href=\"\">" : "") + "</head><body>\n"
        for index in 0..<count {
            let url = "https://img.example/photos/\(index).png"
            page += "<p>photo \(index) <a href=\"p\(index).html\">more</a></p><img src=\"\(url)\" alt=\"\">\n"
            let link = base ? "https://cdn.example/assets/p\(index).html" : "p\(index).html"
            expected += "<p>photo \(index) <a href=\"\(link)\">more</a></p><img src=\"\(localPath(url))\" alt=\"\">\n"
        }
        page += "</body></html>\n"
        expected += "</body></html>\n"
        return (Array(page.utf8), Array(expected.utf8))
    }

    private static func pieces(of result: RewriteResult) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        result.writeBytes { pieces.append(Array($0)) }
        return pieces
    }

    @Test("a page of 5,000 images comes out in pieces of at most 64 KB that make up the whole rewritten page", arguments: [false, true])
    func piecesMakeThePage(withBase: Bool) {
        let (page, expected) = Self.page(images: 5_000, base: withBase)
        let result = rewrite(page)
        #expect(result.rewrittenReferences.count == 5_000)
        expectSameBytes(result.bytes, expected)
        let pieces = Self.pieces(of: result)
        #expect(pieces.count > 5, "\(pieces.count) pieces for \(expected.count) bytes")
        #expect(pieces.allSatisfy { $0.count <= 1 << 16 })
        expectSameBytes(pieces.flatMap { $0 }, expected)
        #expect(result.byteCount == expected.count)
    }

    @Test("a long stretch without images is handed on as it is, not copied piece by piece")
    func longUnchangedStretch() {
        let filler = "<p>" + String(repeating: "text ", count: 40_000) + "</p>"
        let input = Array(("<img src=\"https://img.example/a.png\">" + filler + "<img src=\"https://img.example/b.png\">").utf8)
        let result = rewrite(input)
        let pieces = Self.pieces(of: result)
        #expect(pieces.contains { $0.count >= filler.utf8.count }, "\(pieces.map(\.count))")
        expectSameBytes(pieces.flatMap { $0 }, result.bytes)
    }

    @Test("pages that keep their start for <meta charset>, and UTF-16 pages converted back whole, come out the same in pieces")
    func otherOutputs() throws {
        let head = "<html><head><link rel=icon href=\"http://a.example/b.png\">"
        let filler = "<p>" + String(repeating: "x", count: 990 - head.utf8.count - 7) + "</p>"
        let window = Array((head + filler + "<meta charset=\"shift_jis\"></head><body><img src=\"http://a.example/c.png\"></body></html>").utf8)
        let utf16 = try Fixtures.bytes("rewrite/utf16le.html")
        for input in [window, utf16] {
            let result = rewrite(input)
            #expect(result.rewrittenReferences.count >= 1)
            #expect(result.bytes != input)
            expectSameBytes(Self.pieces(of: result).flatMap { $0 }, result.bytes)
            #expect(result.byteCount == result.bytes.count)
        }
    }

    @Test("write(toFile:) writes the page whole; when the write fails, what was there stays and no temporary file is left")
    func writeToFile() throws {
        let folder = try TemporaryFolder()
        let (page, expected) = Self.page(images: 2_000)
        let result = rewrite(page)
        let path = folder.url.appendingPathComponent("page.html").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try result.write(toFile: path)
        expectSameBytes(try AtomicFile.read(path), expected)

        // A folder where the page should go: the rename fails after every piece was written.
        let blocked = folder.url.appendingPathComponent("blocked.html").path
        try FileManager.default.createDirectory(atPath: blocked + "/inside", withIntermediateDirectories: true)
        #expect(throws: FileError.self) { try result.write(toFile: blocked) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: blocked) == ["inside"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["blocked.html", "page.html"])
    }
}
