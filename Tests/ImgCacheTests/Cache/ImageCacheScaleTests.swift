import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheStore

@Suite("Image cache store at scale")
struct ImageCacheScaleTests {
    // Speed is measured by Benchmarks/fetch, not here: this checks that a cap reached a thousand
    // times over evicts exactly the least recently used entries and keeps the rest fresh.
    @Test("2,000 images of 20 KB under a cap of 1,000: the oldest thousand are evicted, the newest all found fresh")
    func twoThousandImages() async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            // Half of it fits: the second thousand stores each evict, which must not rescan the folder.
            let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 3600, maxTotalBytes: 1_000 * 20_000))
            // Distinct bytes per image, cheap to make (random bytes would dominate a debug build's time).
            let images = (0..<2_000).map { index in
                withUnsafeBytes(of: UInt32(index).littleEndian) { Array($0) } + [UInt8](repeating: UInt8(index % 251), count: 19_996)
            }
            let urls = (0..<2_000).map { CacheTestData.url("perf-\($0)") }

            for index in 0..<2_000 {
                try store.store(images[index], for: urls[index], contentType: "image/png", etag: nil, lastModified: nil,
                                now: CacheTestData.t0 + Double(index))
            }
            var found = 0
            for round in 0..<5 {
                for index in 1_000..<2_000 {
                    if case .fresh = store.lookup(urls[index], now: CacheTestData.t0 + 2_000 + Double(round)) { found += 1 }
                }
            }

            #expect(found == 5_000)
            #expect(store.stats().entryCount == 1_000)
            #expect(store.lookup(urls[999]) == .missing, "the oldest thousand were evicted")
        }
    }

    // A store reads the entries another wrote skimmed (name, size, last use) and the rest of each
    // record only when asked: what it reads must agree with what the writer knows.
    @Test("a second store on the folder sees the first's entries, uses and removals: lookups, stats and the eviction order agree")
    func anotherStoreReadsTheSameIndex() async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let writer = try ImageCacheStore(directory: folder.path)
            let urls = (0..<40).map { CacheTestData.url("skim-\($0)") }
            for (index, url) in urls.enumerated() {
                try writer.store([UInt8](repeating: UInt8(index), count: 1_000), for: url, contentType: "image/png",
                                 etag: "\"e\(index)\"", lastModified: nil, now: CacheTestData.t0 + Double(index))
            }
            // The first ten are used last, so 10, 11, … are the least recently used.
            for url in urls[0..<10] { writer.markUsed(url, now: CacheTestData.t0 + 1_000) }
            try writer.remove(urls[39])

            let reader = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxTotalBytes: 39 * 1_000))
            #expect(reader.stats() == writer.stats())
            #expect(reader.stats().entryCount == 39)
            let lookups = reader.lookUpForUse([urls[3], urls[20], urls[39]].map { ImageToFetch($0) }, now: CacheTestData.t0 + 1_010)
            guard case .fresh(let used) = lookups[0], case .fresh(let plain) = lookups[1] else {
                Issue.record("entries written by another store are not found: \(lookups)")
                return
            }
            #expect(lookups[2] == .missing, "a removed entry stays removed")
            #expect(used.lastUsedAt == CacheIndexRecord.storable(CacheTestData.t0 + 1_000), "a later use record applies")
            #expect(plain.etag == "\"e20\"" && plain.byteCount == 1_000)
            #expect(reader.contents(for: urls[20])?.bytes == [UInt8](repeating: 20, count: 1_000))

            // At the cap, three more images evict the three least recently used: 10, 11 and 12.
            for index in 0..<3 {
                try reader.storeEntry([UInt8](repeating: 200, count: 1_000), for: CacheTestData.url("new-\(index)"),
                                 contentType: "image/png", etag: nil, lastModified: nil, now: CacheTestData.t0 + 2_000)
            }
            #expect(urls[10...12].allSatisfy { writer.lookup($0) == .missing })
            #expect(urls[0..<10].allSatisfy { writer.lookup($0) != .missing })
            #expect(urls[13..<39].allSatisfy { writer.lookup($0) != .missing })
            #expect(writer.stats().totalBytes == 39 * 1_000)
        }
    }

    // Compaction copies each entry's line as it is, unless a later use record changed the entry.
    @Test("compaction keeps every entry as it stands, later uses included, for this store and a new one")
    func compactionKeepsUses() async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let store = try ImageCacheStore(directory: folder.path)
            let urls = (0..<20).map { CacheTestData.url("compact-\($0)") }
            for (index, url) in urls.enumerated() {
                try store.storeEntry([UInt8](repeating: UInt8(index), count: 100 + index), for: url, contentType: "image/png",
                                etag: nil, lastModified: nil, now: CacheTestData.t0)
            }
            for url in urls[0..<5] { store.markUsed(url, now: CacheTestData.t0 + 500) }
            let before = (0..<20).map { store.lookup(urls[$0]) }
            // 304s append whole records (about 400 bytes each) until the index compacts past 256 KB.
            let inode = { (try? FileManager.default.attributesOfItem(atPath: folder.path + "/.imgcache.index")[.systemFileNumber]) as? Int }
            let original = inode()
            var round = 0
            while inode() == original, round < 2_000 {
                round += 1
                try store.markRevalidated(urls[19], etag: "\"\(round)\"", lastModified: nil, now: CacheTestData.t0 + 1)
            }
            #expect(inode() != original, "the index was compacted")
            let fresh = try ImageCacheStore(directory: folder.path)
            for index in 0..<19 {
                #expect(store.lookup(urls[index]) == before[index])
                #expect(fresh.lookup(urls[index]) == before[index], "entry \(index) after compaction")
            }
            #expect(fresh.lookup(urls[0]).metadata?.lastUsedAt == CacheIndexRecord.storable(CacheTestData.t0 + 500))
            #expect(fresh.lookup(urls[19]).metadata?.etag == "\"\(round)\"")
            #expect(fresh.stats() == store.stats())
        }
    }
}
