import Foundation
import Testing
@testable import ImgCache

@Suite("Cache index records")
struct CacheIndexRecordTests {
    private func sample(url: String = "https://example.com/a b/\"quoted\"\\é\u{1}\n🙂.png", etag: String? = "W/\"x\"") -> CacheEntryMetadata {
        CacheEntryMetadata(
            url: url, localName: "3f2a.png", contentType: "image/png", byteCount: 1234,
            sha256: String(repeating: "ab", count: 32), etag: etag, lastModified: nil,
            fetchedAt: CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_869.3455696)),
            lastUsedAt: CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_900.125)),
            imageFile: ImageFileFingerprint(size: 1234, modifiedAtNanoseconds: 1_795_366_869_345_742_786, inode: UInt64.max - 7))
    }

    @Test("each kind of record is one line that reads back equal, with exact 64-bit integers and any characters in its strings")
    func roundTrip() throws {
        let records: [CacheIndexRecord] = [
            .entry(sample()),
            .used(localName: "3f2a.png", at: CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_999.5))),
            .removed(localName: "3f2a.png"),
        ]
        for record in records {
            let line = record.encoded()
            #expect(line.last == UInt8(ascii: "\n"))
            #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1, "one line, whatever the strings hold")
            #expect(CacheIndexRecord.decode(line.dropLast()) == record)
            #expect(record.encoded() == line, "the same record gives the same bytes")
            #expect(try JSONSerialization.jsonObject(with: Data(line)) is [String: Any], "what is written is JSON any reader understands")
        }
        let all = records.flatMap { $0.encoded() }
        #expect(CacheIndexRecord.decodeLines(all[...]) == records)
    }

    @Test("damaged, truncated, mistyped or future-version lines are skipped, and the lines around them still read")
    func refusesBadInput() throws {
        let good = CacheIndexRecord.entry(sample()).encoded().dropLast()
        #expect(CacheIndexRecord.decode(good.prefix(good.count / 2)) == nil)
        #expect(CacheIndexRecord.decode(good + Array("x".utf8)) == nil)
        #expect(CacheIndexRecord.decode([]) == nil)
        let text = String(decoding: good, as: UTF8.self)
        for (from, to) in [("\"byteCount\":1234", "\"byteCount\":\"1234\""),
                           ("\"formatVersion\":1", "\"formatVersion\":2"),
                           ("\"contentType\":\"image/png\"", "\"contentType\":true"),
                           ("\"size\":1234", "\"size\":12.5"),
                           ("\"sha256\"", "\"sha-256\"")] {
            #expect(text.contains(from))
            #expect(CacheIndexRecord.decode(Array(text.replacingOccurrences(of: from, with: to).utf8)[...]) == nil, "\(to)")
        }
        #expect(CacheIndexRecord.decode(Array("{\"removed\":\"a.png\",\"extra\":1}".utf8)[...]) == nil)
        #expect(CacheIndexRecord.decode(Array("{\"used\":\"a.png\"}".utf8)[...]) == nil)
        #expect(CacheIndexRecord.decode(Array(String(repeating: "[", count: 10_000).utf8)[...]) == nil, "deep nesting is refused, not a crash")

        let removed = CacheIndexRecord.removed(localName: "b.png")
        let lines = Array(good.prefix(40)) + [UInt8(ascii: "\n")] + removed.encoded() + Array("not json\n".utf8) + good + [UInt8(ascii: "\n")]
        #expect(CacheIndexRecord.decodeLines(lines[...]) == [removed, .entry(sample())])
    }
}
