import Foundation
import Testing
@testable import ImgCache

@Suite("Fetch manifest JSON")
struct FetchManifestTests {
    @Test("the manifest reads back with JSONDecoder exactly as it was, odd characters and absent fields included")
    func readsBackWithFoundation() throws {
        let entries = [
            FetchManifest.Entry(kind: "img-src", original: "a \"b\"/c\\d\té🙂.png", url: "https://example.com/a.png",
                                localPath: "images/3f.png", status: .downloaded, bytes: 12, contentType: "image/png", error: nil),
            FetchManifest.Entry(kind: "srcset", original: "x.gif", url: nil, localPath: nil, status: .skipped, bytes: 0,
                                contentType: nil, error: "not an image URL\u{1}"),
        ]
        let manifest = FetchManifest(
            generatedAt: Date(timeIntervalSince1970: 1_795_366_869), cacheDirectory: "out/images",
            pages: [FetchManifest.Page(input: "page.html", output: "out/page.html", pageURL: nil, references: entries),
                    FetchManifest.Page(input: "https://example.com/", output: "out/index.html", pageURL: "https://example.com/", references: [])])
        let written = try manifest.encoded()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let read = try decoder.decode(FetchManifest.self, from: Data(written))

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        #expect(try encoder.encode(read) == encoder.encode(manifest))
        #expect(read.generatedAt == manifest.generatedAt)
        #expect(written.last == 0x0A)
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains("\n  \"generatedAt\" : \"2026-11-22T"), "\(text)")
        #expect(!text.contains("\"localPath\" : null"), "absent fields are left out")
    }

    @Test("a manifest of thousands of images is written in pieces that make the same file; a write that fails leaves the old manifest whole")
    func largeManifestIsWrittenInPieces() throws {
        let entries = (0..<3_000).map { index in
            FetchManifest.Entry(kind: "img-src", original: "img/\(index).png", url: "https://example.com/img/\(index).png",
                                localPath: "images/\(index).png", status: .downloaded, bytes: index, contentType: "image/png",
                                error: nil, localName: "\(index).png")
        }
        let manifest = FetchManifest(cacheDirectory: "out/images",
                                     pages: [FetchManifest.Page(input: "page.html", output: "out/page.html", pageURL: nil, references: entries)])
        var pieces: [[UInt8]] = []
        try manifest.encode { pieces.append(Array($0)) }
        #expect(pieces.count > 5, "\(pieces.count) pieces")
        #expect(pieces.dropLast().allSatisfy { $0.count < 80_000 })
        let whole = try manifest.encoded()
        #expect(Array(pieces.joined()) == whole)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(FetchManifest.self, from: Data(whole)).pages[0].references.count == 3_000)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imgcache-manifest-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/imgcache-manifest.json"
        try AtomicFile.write(to: path) { emit in try manifest.encode(into: emit) }
        #expect(try AtomicFile.read(path) == whole)

        struct Interrupted: Error {}
        #expect(throws: Interrupted.self) {
            try AtomicFile.write(to: path) { emit in
                try Array("{ half a manifest".utf8).withUnsafeBytes(emit)
                throw Interrupted()
            }
        }
        #expect(try AtomicFile.read(path) == whole, "the old manifest is kept whole")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["imgcache-manifest.json"], "no temporary file left")
    }
}
