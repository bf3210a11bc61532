import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport

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

@Suite("Fetch manifest's own formatting")
struct FetchManifestFormattingTests {
    @Test("the time is written as Date.ISO8601FormatStyle writes it, for any time from 1970 to 2100 and a few before")
    func timeAsISO8601() {
        var generator = SystemRandomNumberGenerator()
        let edges: [TimeInterval] = [0, -0.5, -1, 86_399.999, 86_400, 951_782_400, 4_107_542_399.9, -2_208_988_800]
        let times = edges + (0..<5_000).map { _ in TimeInterval.random(in: 0..<4_102_444_800, using: &generator) }
        let mismatches = times.map { Date(timeIntervalSince1970: $0) }
            .filter { FetchManifest.iso8601($0) != $0.formatted(.iso8601) }
            .map { "\($0.timeIntervalSince1970): \(FetchManifest.iso8601($0)) against \($0.formatted(.iso8601))" }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
    }

    @Test("images are listed in the order of their URLs as strings, bytes beyond ASCII included")
    func imagesInKeyOrder() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "b", "B", "/", ".", "-", "%2F", "img", "0", "9", "~", "é", "e\u{301}", "z"]
        for asciiOnly in [true, false] {
            let usable = asciiOnly ? pieces.filter { $0.utf8.allSatisfy { $0 < 0x80 } } : pieces
            var map: [String: String] = [:]
            for index in 0..<500 {
                let path = (0..<Int.random(in: 0...6, using: &generator)).map { _ in usable.randomElement(using: &generator)! }.joined()
                map["https://example.com/" + path] = "\(index).png"
            }
            let ordered = FetchManifest.keyOrdered(map)
            #expect(ordered.map(\.key) == map.keys.sorted())
            #expect(ordered.allSatisfy { map[$0.key] == $0.value })
        }
    }
}
