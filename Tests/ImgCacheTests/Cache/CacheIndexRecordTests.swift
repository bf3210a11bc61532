import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheStore

/// Local names as the cache writes them (the index refuses any other).
private let nameA = String(repeating: "3f", count: 32) + ".png"
private let nameB = String(repeating: "b0", count: 32) + ".gif"

@Suite("Cache index records")
struct CacheIndexRecordTests {
    private func sample(url: String = "https://example.com/a b/\"quoted\"\\é\u{1}\n🙂.png", etag: String? = "W/\"x\"",
                        checksum: ContentChecksum = .xxh64(0x0012_3456_789A_BCDE)) -> CacheEntryMetadata {
        CacheEntryMetadata(
            url: url, localName: nameA, contentType: "image/png", byteCount: 1234,
            checksum: checksum, etag: etag, lastModified: nil,
            fetchedAt: CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_869.3455696)),
            lastUsedAt: CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_900.125)),
            imageFile: ImageFileFingerprint(size: 1234, modifiedAtNanoseconds: 1_795_366_869_345_742_786, inode: UInt64.max - 7))
    }

    @Test("each kind of record is one line that reads back equal, with exact 64-bit integers and any characters in its strings")
    func roundTrip() throws {
        let records: [CacheIndexRecord] = [
            .entry(sample()),
            .entry(sample(checksum: .sha256(String(repeating: "ab", count: 32)))),
            .used(localName: nameA, at: CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_999.5))),
            .removed(localName: nameA),
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
                           ("\"xxh64\"", "\"xxh-64\""),
                           ("\"xxh64\":\"00123456789abcde\"", "\"xxh64\":\"00123456789ABCDE\""),
                           ("\"xxh64\":\"00123456789abcde\"", "\"xxh64\":\"123456789abcde\""),
                           ("\"xxh64\":\"00123456789abcde\"", "\"xxh64\":5124095576030430"),
                           ("\"xxh64\":\"00123456789abcde\"", "\"xxh64\":\"00123456789abcde\",\"sha256\":\"ab\"")] {
            #expect(text.contains(from))
            #expect(CacheIndexRecord.decode(Array(text.replacingOccurrences(of: from, with: to).utf8)[...]) == nil, "\(to)")
        }
        #expect(CacheIndexRecord.decode(Array("{\"removed\":\"\(nameA)\"}".utf8)[...]) == .removed(localName: nameA))
        #expect(CacheIndexRecord.decode(Array("{\"removed\":\"\(nameA)\",\"extra\":1}".utf8)[...]) == nil)
        #expect(CacheIndexRecord.decode(Array("{\"used\":\"\(nameA)\"}".utf8)[...]) == nil)
        #expect(CacheIndexRecord.decode(Array(String(repeating: "[", count: 10_000).utf8)[...]) == nil, "deep nesting is refused, not a crash")
        // JSON has no infinity, but 1e400 reads as one: such a date would keep an entry from ever
        // being evicted, and could not be written back (found by the index line fuzz target).
        #expect(CacheIndexRecord.decode(Array("{\"lastUsedAt\":1e400,\"used\":\"\(nameA)\"}".utf8)[...]) == nil)
        #expect(CacheIndexRecord.decode(Array("{\"used\":\"\(nameA)\", \"lastUsedAt\": -1E999}".utf8)[...]) == nil)
        let infiniteFetch = text.replacingOccurrences(of: "\"fetchedAt\":", with: "\"fetchedAt\":1e999,\"x\":")
        #expect(CacheIndexRecord.decode(Array(infiniteFetch.utf8)[...]) == nil, "an extra key: the general JSON reader's path")

        let removed = CacheIndexRecord.removed(localName: nameB)
        let lines = Array(good.prefix(40)) + [UInt8(ascii: "\n")] + removed.encoded() + Array("not json\n".utf8) + good + [UInt8(ascii: "\n")]
        #expect(CacheIndexRecord.decodeLines(lines[...]) == [removed, .entry(sample())])
    }
}

@Suite("Cache index fast line reader")
struct CacheIndexLineParserTests {
    static func records() -> [CacheIndexRecord] {
        let time = CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_869.3455696))
        func entry(url: String, type: String?, etag: String?, modified: String?,
                   checksum: ContentChecksum = .xxh64(0xFEDC_BA98_7654_3210)) -> CacheIndexRecord {
            .entry(CacheEntryMetadata(
                url: url, localName: String(repeating: "3f", count: 32) + ".png", contentType: type, byteCount: 21_345,
                checksum: checksum, etag: etag, lastModified: modified, fetchedAt: time,
                lastUsedAt: time + 60, imageFile: ImageFileFingerprint(size: 21_345, modifiedAtNanoseconds: 1_795_366_869_345_742_786, inode: 4_821_113)))
        }
        return [
            entry(url: "http://127.0.0.1:8080/assets/a.png", type: "image/png", etag: "\"6560f5a2-5361\"", modified: "Wed, 21 Oct 2015 07:28:00 GMT"),
            entry(url: "https://example.com/a b/\"q\"\\é\u{1}\n🙂.png", type: nil, etag: "W/\"x\"", modified: nil),
            entry(url: "https://example.com/p.gif", type: "image/gif", etag: nil, modified: nil),
            entry(url: "https://example.com/old.gif", type: "image/gif", etag: nil, modified: nil,
                  checksum: .sha256(String(repeating: "ab", count: 32))),
            .used(localName: nameB, at: time),
            .removed(localName: nameB),
        ]
    }

    @Test("on what the writer writes, it reads what the general reader reads, and usually reads it itself")
    func agreesOnWrittenLines() {
        var fast = 0
        for record in Self.records() {
            let line = record.encoded().dropLast()
            #expect(CacheIndexRecord.decodeAnyJSON(line) == record)
            #expect(CacheIndexRecord.decode(line) == record)
            if let parsed = CacheIndexLineParser.parse(line) {
                #expect(parsed == record)
                fast += 1
            }
        }
        #expect(fast >= 4, "only the record with non-ASCII and control characters needs the general reader")
    }

    @Test("on 20,000 damaged lines it answers nil or exactly what the general reader answers")
    func neverDisagreesOnDamage() {
        var generator = SystemRandomNumberGenerator()
        let lines = Self.records().map { Array($0.encoded().dropLast()) }
        let alphabet = Array("{}[]:,\"\\-.0123456789eEnulltrx ".utf8)
        var disagreements: [String] = []
        for round in 0..<20_000 {
            var line = lines[round % lines.count]
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !line.isEmpty {
                let at = Int.random(in: 0..<line.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: line.remove(at: at)
                case 1: line.insert(alphabet.randomElement(using: &generator)!, at: at)
                default: line[at] = alphabet.randomElement(using: &generator)!
                }
            }
            if let fast = CacheIndexLineParser.parse(line[...]), fast != CacheIndexRecord.decodeAnyJSON(line[...]) {
                disagreements.append(String(decoding: line, as: UTF8.self))
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(3))")
    }

    @Test("numbers of every length and scale, and times as the writer writes them, read as the general reader reads them")
    func readsNumbersExactly() async throws {
        // Seconds of synchronous work: off the cooperative pool, so the timing tests beside it keep their threads.
        try await offPool {
            var generator = SystemRandomNumberGenerator()
            let line = String(decoding: Self.records()[0].encoded().dropLast(), as: UTF8.self)
            let fetchedAt = try #require(line.firstMatch(of: /"fetchedAt":([^,]+)/)?.1)
            let byteCount = try #require(line.firstMatch(of: /"byteCount":([^,]+)/)?.1)
            var disagreements: [String] = []
            for round in 0..<20_000 {
                let digits = String((0..<Int.random(in: 1...21, using: &generator)).map { _ in "0123456789".randomElement(using: &generator)! })
                let sign = round % 7 == 0 ? "-" : ""
                let scale = Int.random(in: 0...min(digits.count, 24), using: &generator)
                let decimal = scale == 0 ? digits : String(digits.dropLast(scale)).ifEmpty("0") + "." + digits.suffix(scale)
                let time = round % 2 == 0 ? sign + decimal : String(Date(timeIntervalSince1970: .random(in: 0...4e9, using: &generator)).timeIntervalSince1970)
                let edited = line.replacingOccurrences(of: "\"fetchedAt\":\(fetchedAt)", with: "\"fetchedAt\":\(time)")
                    .replacingOccurrences(of: "\"byteCount\":\(byteCount)", with: "\"byteCount\":\(sign)\(digits)")
                let bytes = Array(edited.utf8)
                let general = CacheIndexRecord.decodeAnyJSON(bytes[...])
                if let fast = CacheIndexLineParser.parse(bytes[...]), fast != general {
                    disagreements.append(edited)
                }
            }
            #expect(disagreements.count == 0, "\(disagreements.prefix(3))")
        }
    }
}

private extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}

@Suite("Cache index records that must not be taken")
struct CacheIndexRecordSafetyTests {
    @Test("a record naming a file outside the cache, or with a negative size, is skipped, and prune deletes nothing it names")
    func hostileRecords() throws {
        let folder = try CacheTestFolder()
        let outside = folder.path + "/outside.png"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: outside))
        let cache = folder.path + "/cache"
        let store = try ImageCacheStore(directory: cache)
        let kept = try store.storeEntry([9, 9], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)

        var hostile = kept
        hostile.localName = "../outside.png"
        hostile.byteCount = 3
        hostile.imageFile.size = 3
        var negative = kept
        negative.byteCount = -5
        for record: CacheIndexRecord in [.entry(hostile), .removed(localName: "../outside.png"),
                                         .used(localName: "/etc/passwd", at: CacheTestData.t0), .entry(negative)] {
            #expect(CacheIndexRecord.decode(record.encoded().dropLast()) == nil, "\(record)")
        }
        let index = try #require(FileHandle(forWritingAtPath: cache + "/.imgcache.index"))
        try index.seekToEnd()
        try index.write(contentsOf: Data(CacheIndexRecord.entry(hostile).encoded()))
        try index.close()

        let reopened = try ImageCacheStore(directory: cache)
        #expect(reopened.stats().entryCount == 1)
        #expect(try reopened.prune() == 0)
        #expect(FileManager.default.fileExists(atPath: outside), "prune deleted a file outside the cache")
        #expect(reopened.contents(for: CacheTestData.url("a"))?.bytes == [9, 9])
    }
}

@Suite("Cache index entries read skimmed")
struct SkimmedIndexEntryTests {
    private let file = CacheIndexFileHandle(descriptor: open("/dev/null", O_RDONLY))

    private func metadata(url: String, etag: String?, inode: UInt64) -> CacheEntryMetadata {
        CacheEntryMetadata(
            url: url, localName: nameB, contentType: "image/gif", byteCount: 98_765,
            checksum: .xxh64(0x0F0E_0D0C_0B0A_0908), etag: etag, lastModified: "Mon, 23 Nov 2026 16:25:56 GMT",
            fetchedAt: CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_869.3455696)),
            lastUsedAt: CacheIndexRecord.storable(Date(timeIntervalSince1970: 1_795_366_900.125)),
            imageFile: ImageFileFingerprint(size: 98_765, modifiedAtNanoseconds: 1_795_366_869_345_742_786, inode: inode))
    }

    private func skim(_ line: [UInt8]) -> SkimmedIndexEntry? {
        line.withUnsafeBufferPointer { SkimmedIndexEntry.skim($0, file: file, offset: 0) }
    }

    @Test("an entry record as the writer writes it is skimmed to the same name, size, times and fingerprint, and reads whole as itself")
    func skimsWhatTheWriterWrites() throws {
        let samples = [
            metadata(url: "https://example.com/a.gif", etag: "\"6b046914-d7b\"", inode: 2_303_203),
            // Quotes, key-like text and escapes in the strings must not mislead the skimmer.
            metadata(url: "https://example.com/x.gif?q=\",\"localName\":\"", etag: "W/\",\"url\":\"", inode: UInt64.max - 7),
        ]
        for sample in samples {
            let line = Array(CacheIndexRecord.entry(sample).encoded().dropLast())
            let entry = try #require(skim(line), "the writer's own line is skimmed")
            #expect(entry.localName == sample.localName && entry.byteCount == sample.byteCount)
            #expect(entry.fetchedAt == sample.fetchedAt && entry.lastUsedAt == sample.lastUsedAt)
            #expect(entry.imageFile == sample.imageFile)
            #expect(entry.metadata(inLine: line[...]) == sample)
        }
    }

    @Test("a line cut short at any byte, or of another format version, is not skimmed (it is read whole, and skipped)")
    func refusesWhatIsNotWhole() {
        let sample = metadata(url: "https://example.com/a.gif", etag: nil, inode: 7)
        let line = Array(CacheIndexRecord.entry(sample).encoded().dropLast())
        #expect((0..<line.count).allSatisfy { skim(Array(line[..<$0])) == nil })
        var future = sample
        future.formatVersion = 2
        #expect(skim(Array(CacheIndexRecord.entry(future).encoded().dropLast())) == nil)
    }
}
