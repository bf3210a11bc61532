import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheStore

/// `.imgcache.lookup` lets a store that has not read the index look a page's entries up without
/// reading every record. It must never change an answer: what a lookup through it says is what
/// reading the whole index says, and a table that does not fit the index is not used.
@Suite("Index lookup table")
struct CacheLookupTableTests {
    /// Enough entries for the index to pass 1 MiB, past which a store writes the table.
    static let count = 3_200
    static let t0 = CacheTestData.t0
    static let policy = CachePolicy(maxAge: 86_400)

    /// A folder holding `count` entries stored by `writer` in one batch, which leaves a table.
    private static func filledFolder(prefix: String = "table") throws -> (folder: CacheTestFolder, writer: ImageCacheStore, urls: [BrowserURL]) {
        let folder = try CacheTestFolder()
        let writer = try ImageCacheStore(directory: folder.path, policy: policy)
        let urls = (0..<count).map { CacheTestData.url("\(prefix)-\($0)") }
        try storeAll(urls, in: writer, round: 0)
        return (folder, writer, urls)
    }

    private static func storeAll(_ urls: [BrowserURL], in store: ImageCacheStore, round: Int) throws {
        let images = urls.enumerated().map { index, url in
            ImageToStore(bytes: CacheTestData.bytes(64, seed: index + 10_000 * round), url: url, contentType: "image/png",
                         etag: "\"e\(index)-\(round)\"", lastModified: nil)
        }
        for result in store.store(images, now: t0 + Double(round)) { _ = try result.get() }
    }

    /// What a store that read the whole index records for `urls`.
    private static func readingTheWholeIndex(_ folder: CacheTestFolder, _ urls: [BrowserURL]) throws -> [CacheEntryMetadata?] {
        let store = try ImageCacheStore(directory: folder.path, policy: policy)
        _ = store.stats()
        #expect(store.hasReadIndex)
        return store.metadata(forLocalNames: urls.map { store.localName(for: $0) })
    }

    private static func metadata(_ store: ImageCacheStore, _ urls: [BrowserURL]) -> [CacheEntryMetadata?] {
        store.metadata(forLocalNames: urls.map { store.localName(for: $0) })
    }

    @Test("a store that has not read the index finds entries through the table as reading the whole index does: entries stored, replaced, used and removed after the table included")
    func lookupsAgreeWithTheIndex() async throws {
        try await offPool {
            let (folder, writer, urls) = try Self.filledFolder()
            #expect(folder.exists(".imgcache.lookup"))
            // After the table: read from the index's last lines.
            try writer.store(CacheTestData.bytes(300, seed: 99), for: urls[1], contentType: "image/png", etag: "\"new\"",
                             lastModified: nil, now: Self.t0 + 10)
            writer.markUsed(urls[2], now: Self.t0 + 100)
            try writer.remove(urls[3])
            let late = CacheTestData.url("after-the-table")
            try writer.store(CacheTestData.bytes(100, seed: 7), for: late, contentType: "image/png", etag: nil,
                             lastModified: nil, now: Self.t0 + 20)
            let asked = [urls[0], urls[1], urls[2], urls[3], urls[Self.count - 1], late, CacheTestData.url("never-stored")]

            let reader = try ImageCacheStore(directory: folder.path, policy: Self.policy)
            let found = Self.metadata(reader, asked)
            #expect(!reader.hasReadIndex, "looked up through the table")
            #expect(found == (try Self.readingTheWholeIndex(folder, asked)))
            #expect(found[0]?.url == urls[0].serialized && found[0]?.etag == "\"e0-0\"")
            #expect(found[1]?.etag == "\"new\"" && found[1]?.byteCount == 300)
            #expect(found[2]?.lastUsedAt == Self.t0 + 100)
            #expect(found[3] == nil, "removed")
            #expect(found[4]?.url == urls[Self.count - 1].serialized)
            #expect(found[5]?.url == late.serialized)
            #expect(found[6] == nil)
        }
    }

    @Test("uses recorded by a store that looked up through the table reach the index, once a minute at most")
    func usesReachTheIndex() async throws {
        try await offPool {
            let (folder, _, urls) = try Self.filledFolder()
            let reader = try ImageCacheStore(directory: folder.path, policy: Self.policy)
            let lookups = reader.lookUpForUse([urls[5], urls[6]].map { ImageToFetch($0) }, now: Self.t0 + 500)
            #expect(!reader.hasReadIndex)
            guard case .fresh = lookups[0], case .fresh = lookups[1] else {
                Issue.record("not found fresh: \(lookups)")
                return
            }
            let recorded = try Self.readingTheWholeIndex(folder, [urls[5], urls[6], urls[7]])
            #expect(recorded.map { $0?.lastUsedAt } == [Self.t0 + 500, Self.t0 + 500, Self.t0])

            let length = folder.read(".imgcache.index")?.count
            _ = try ImageCacheStore(directory: folder.path, policy: Self.policy).lookUpForUse([urls[5]].map { ImageToFetch($0) }, now: Self.t0 + 530)
            #expect(folder.read(".imgcache.index")?.count == length, "used 30 s ago: no new record")
        }
    }

    @Test("a table that does not fit the index is not used: another folder's, a cut one, one with rows moved, one from before the index was replaced")
    func aTableThatDoesNotFitIsNotUsed() async throws {
        try await offPool {
            let (folder, _, urls) = try Self.filledFolder()
            let (other, _, _) = try Self.filledFolder(prefix: "other")
            let asked = [urls[0], urls[350], urls[Self.count - 1]]
            let truth = try Self.readingTheWholeIndex(folder, asked)
            #expect(truth.allSatisfy { $0 != nil })
            let table = folder.path + "/.imgcache.lookup"
            let original = try #require(folder.read(".imgcache.lookup"))

            func check(_ what: String, usesTable: Bool) throws {
                let reader = try ImageCacheStore(directory: folder.path, policy: Self.policy)
                let found = Self.metadata(reader, asked)
                // Rows moved can at worst make an entry read as missing, never as another's.
                for (seen, expected) in zip(found, truth) where seen != nil {
                    #expect(seen == expected, "\(what): another entry's record")
                }
                if !usesTable {
                    #expect(found == truth, "\(what)")
                    #expect(reader.hasReadIndex, "\(what): the table was used")
                }
            }

            try #require(FileManager.default.removeItem(atPath: table) == ())
            try FileManager.default.copyItem(atPath: other.path + "/.imgcache.lookup", toPath: table)
            try check("another folder's table", usesTable: false)

            try Data(original.prefix(original.count - 20)).write(to: URL(fileURLWithPath: table))
            try check("a cut table", usesTable: false)

            // Every row's offset moved to the next row's: each points at another entry's record.
            var moved = original
            let rows = (original.count - 64) / 32
            for row in 0..<rows {
                let from = 64 + ((row + 1) % rows) * 32 + 8, to = 64 + row * 32 + 8
                moved.replaceSubrange(to..<(to + 16), with: original[from..<(from + 16)])
            }
            try Data(moved).write(to: URL(fileURLWithPath: table))
            try check("rows moved", usesTable: true)

            // The same lines in a new file, as a tool that copies the index would leave it.
            try Data(original).write(to: URL(fileURLWithPath: table))
            let index = folder.path + "/.imgcache.index"
            try FileManager.default.copyItem(atPath: index, toPath: index + ".copy")
            #expect(rename(index + ".copy", index) == 0)
            try check("the index replaced", usesTable: false)
        }
    }

    @Test("the index compacted by a store comes with a table for the new file")
    func compactionWritesATable() async throws {
        try await offPool {
            let (folder, writer, urls) = try Self.filledFolder()
            let before = try FileManager.default.attributesOfItem(atPath: folder.path + "/.imgcache.index")[.systemFileNumber] as? Int
            // Storing every image again three times makes the index four times what one would be
            // (about 1,600 bytes an entry, over the 1,200 at which it compacts).
            try Self.storeAll(urls, in: writer, round: 1)
            try Self.storeAll(urls, in: writer, round: 2)
            try Self.storeAll(urls, in: writer, round: 3)
            let after = try FileManager.default.attributesOfItem(atPath: folder.path + "/.imgcache.index")[.systemFileNumber] as? Int
            #expect(before != after, "the index was not compacted")

            let asked = [urls[0], urls[123], urls[Self.count - 1]]
            let reader = try ImageCacheStore(directory: folder.path, policy: Self.policy)
            let found = Self.metadata(reader, asked)
            #expect(!reader.hasReadIndex, "looked up through the table")
            #expect(found == (try Self.readingTheWholeIndex(folder, asked)))
            #expect(found.allSatisfy { $0?.etag?.hasSuffix("-3\"") == true })
        }
    }

    @Test("an image whose URL names no format is found through the table under the name its bytes gave it, the newer one after it changed format")
    func urlsWithoutAFormatAreFoundThroughTheTable() async throws {
        try await offPool {
            let (folder, writer, urls) = try Self.filledFolder()
            let photo = BrowserURL("https://cdn.example.com/photo?id=7")!
            let avatar = BrowserURL("https://cdn.example.com/avatar/12")!
            try writer.store(TestImages.png(width: 4, height: 4), for: photo, contentType: "image/png", etag: nil,
                             lastModified: nil, now: Self.t0 + 5)
            try writer.store(TestImages.png(width: 3, height: 3), for: avatar, contentType: "image/png", etag: nil,
                             lastModified: nil, now: Self.t0 + 5)
            // The CDN now answers GIF for the avatar: its name changes, and the PNG goes.
            try writer.store(TestImages.gif(), for: avatar, contentType: "image/gif", etag: nil, lastModified: nil, now: Self.t0 + 6)

            let reader = try ImageCacheStore(directory: folder.path, policy: Self.policy)
            let lookups = reader.lookUpForUse([photo, avatar, urls[9], BrowserURL("https://cdn.example.com/never")!].map { ImageToFetch($0) }, now: Self.t0 + 30)
            #expect(!reader.hasReadIndex, "looked up through the table")
            guard case .fresh(let photoEntry) = lookups[0], case .fresh(let avatarEntry) = lookups[1], case .fresh = lookups[2] else {
                Issue.record("not found fresh: \(lookups)")
                return
            }
            #expect(photoEntry.localName.hasSuffix(".png") && photoEntry.url == photo.serialized)
            #expect(avatarEntry.localName.hasSuffix(".gif") && avatarEntry.contentType == "image/gif")
            #expect(lookups[3] == .missing)
            let whole = try ImageCacheStore(directory: folder.path, policy: Self.policy)
            _ = whole.stats()
            #expect(whole.localNames(for: [photo, avatar]) == [photoEntry.localName, avatarEntry.localName])
        }
    }

    @Test("a store that keeps looking image by image reads the index once after a few looks, and its answers stay right")
    func aStoreThatKeepsLookingReadsTheIndex() async throws {
        try await offPool {
            let (folder, _, urls) = try Self.filledFolder()
            let truth = try Self.readingTheWholeIndex(folder, Array(urls[0..<10]))
            let reader = try ImageCacheStore(directory: folder.path, policy: Self.policy)
            var readAfter: Int?
            for (position, url) in urls[0..<10].enumerated() {
                guard case .fresh(let metadata) = reader.lookup(url, now: Self.t0 + 1) else {
                    Issue.record("\(url) not found fresh")
                    return
                }
                #expect(metadata == truth[position])
                if readAfter == nil, reader.hasReadIndex { readAfter = position + 1 }
            }
            #expect(readAfter.map { (2...6).contains($0) } == true, "the index was read after \(String(describing: readAfter)) looks")
        }
    }
}
