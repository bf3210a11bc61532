import Foundation
import Testing
@testable import ImgCache

@Suite("Cache sidecar JSON")
struct CacheMetadataCodingTests {
    private func sample(url: String = "https://example.com/a b/\"quoted\"\\é\u{1}\n🙂.png", etag: String? = "W/\"x\"") -> CacheEntryMetadata {
        CacheEntryMetadata(
            url: url, localName: "3f2a.png", contentType: "image/png", byteCount: 1234,
            sha256: String(repeating: "ab", count: 32), etag: etag, lastModified: nil,
            fetchedAt: CacheMetadataCoding.storable(Date(timeIntervalSince1970: 1_795_366_869.3455696)),
            lastUsedAt: CacheMetadataCoding.storable(Date(timeIntervalSince1970: 1_795_366_900.125)),
            imageFile: ImageFileFingerprint(size: 1234, modifiedAtNanoseconds: 1_795_366_869_345_742_786, inode: UInt64.max - 7))
    }

    @Test("a record reads back equal, with exact 64-bit integers and any characters in its strings")
    func roundTrip() throws {
        let metadata = sample()
        let encoded = try CacheMetadataCoding.encode(metadata)
        #expect(CacheMetadataCoding.decode(encoded) == metadata)
        #expect(try CacheMetadataCoding.encode(metadata) == encoded, "the same record gives the same bytes")
        let parsed = try JSONSerialization.jsonObject(with: Data(encoded)) as? [String: Any]
        #expect(parsed?["url"] as? String == metadata.url, "what is written is JSON any reader understands")
        #expect(String(decoding: encoded, as: UTF8.self).contains("\n  \"byteCount\" : 1234,\n"), "indented for people")
    }

    @Test("sidecars written by Foundation's JSONEncoder (earlier versions) still read")
    func readsJSONEncoderOutput() throws {
        let metadata = sample(etag: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        #expect(CacheMetadataCoding.decode(Array(try encoder.encode(metadata))) == metadata)
    }

    @Test("damaged, truncated, mistyped or future-version sidecars are refused")
    func refusesBadInput() throws {
        let good = try CacheMetadataCoding.encode(sample())
        #expect(CacheMetadataCoding.decode(Array(good.prefix(good.count / 2))) == nil)
        #expect(CacheMetadataCoding.decode(good + Array("x".utf8)) == nil)
        #expect(CacheMetadataCoding.decode([]) == nil)
        let text = String(decoding: good, as: UTF8.self)
        for (from, to) in [("\"byteCount\" : 1234", "\"byteCount\" : \"1234\""),
                           ("\"formatVersion\" : 1", "\"formatVersion\" : 2"),
                           ("\"contentType\" : \"image/png\"", "\"contentType\" : true"),
                           ("\"size\" : 1234", "\"size\" : 12.5"),
                           ("\"sha256\"", "\"sha-256\"")] {
            #expect(text.contains(from))
            #expect(CacheMetadataCoding.decode(Array(text.replacingOccurrences(of: from, with: to).utf8)) == nil, "\(to)")
        }
        let nullType = text.replacingOccurrences(of: "\"image/png\"", with: "null")
        #expect(CacheMetadataCoding.decode(Array(nullType.utf8))?.contentType == nil)
        #expect(CacheMetadataCoding.decode(Array(nullType.utf8)) != nil)
        #expect(CacheMetadataCoding.decode(Array("[".utf8 + good)) == nil)
        #expect(CacheMetadataCoding.decode(Array(String(repeating: "[", count: 10_000).utf8)) == nil, "deep nesting is refused, not a crash")
    }
}
