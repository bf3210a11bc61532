import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

@Suite("Image cache store")
struct ImageCacheStoreTests {
    let t0 = CacheTestData.t0

    @Test("a stored image is on disk under its naming's file name, with its metadata, and a lookup finds it")
    func storeAndLookUp() throws {
        let folder = try CacheTestFolder()
        let naming = LocalImageNaming()
        let store = try ImageCacheStore(directory: folder.path, naming: naming, policy: CachePolicy(maxAge: 3600))
        let url = BrowserURL("https://images.example.com/a/cat.PNG?size=2#frag")!
        let bytes = CacheTestData.bytes(5_000, seed: 1)

        let stored = try store.storeEntry(bytes, for: url, contentType: "image/png", etag: "\"abc\"",
                                     lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", now: t0)

        let localName = try #require(naming.localName(for: url))
        #expect(stored.localName == localName)
        #expect(folder.read(localName) == bytes)
        #expect(!folder.exists(localName + ".json"), "the metadata is in the index, not in a second file")
        #expect(store.path(for: url) == folder.path + "/" + localName)
        #expect(store.fileURL(for: url)?.path == folder.path + "/" + localName)
        #expect(stored.url == "https://images.example.com/a/cat.PNG?size=2")
        #expect(stored.contentType == "image/png")
        #expect(stored.byteCount == 5_000)
        #expect(stored.checksum == .xxh64(XXH64.hash(bytes)))
        #expect(stored.etag == "\"abc\"")
        #expect(stored.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(stored.fetchedAt == t0)
        #expect(stored.lastUsedAt == t0)

        #expect(store.lookup(url, now: t0.addingTimeInterval(1)) == .fresh(stored))
        // The fragment never changes what is fetched, so it does not change the entry.
        #expect(store.lookup(BrowserURL("https://images.example.com/a/cat.PNG?size=2")!, now: t0) == .fresh(stored))
        let contents = try #require(store.entry(for: url))
        #expect(contents.bytes == bytes)
        #expect(contents.metadata == stored)
        // What an app sees: the same, without the record's internals.
        let view = try #require(store.contents(for: url))
        #expect(view.bytes == bytes)
        #expect(view.image == CachedImage(stored))
        #expect(view.image.etag == stored.etag && view.image.localName == localName && view.image.byteCount == bytes.count)
        #expect(store.cachedImage(for: url) == CachedImage(stored))
        #expect(store.contents(forLocalName: localName)?.bytes == bytes)
        #expect(folder.entryFiles() == [localName])
    }

    @Test("a second store instance (a later run) reads back exactly the metadata the first wrote, dates included")
    func metadataSurvivesReopening() throws {
        let folder = try CacheTestFolder()
        let odd = Date(timeIntervalSinceReferenceDate: 722_000_000.123_456_789)
        let stored = try ImageCacheStore(directory: folder.path).storeEntry(
            [1, 2, 3], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil, now: odd)
        let reopened = try ImageCacheStore(directory: folder.path)
        #expect(reopened.lookup(CacheTestData.url("a")) == .fresh(stored))
        #expect(abs(stored.fetchedAt.timeIntervalSince(odd)) < 1e-6)
        let index = String(decoding: try #require(folder.read(".imgcache.index")), as: UTF8.self)
        #expect(index.contains("\"fetchedAt\":1700307200.123"))
    }

    @Test("an entry is fresh until maxAge has passed since it was fetched, then stale with its validators")
    func freshThenStale() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 3600))
        let url = CacheTestData.url("a")
        try store.storeEntry([7, 7, 7], for: url, contentType: "image/png", etag: "\"v1\"", lastModified: nil, now: t0)

        guard case .fresh = store.lookup(url, now: t0.addingTimeInterval(3599)) else {
            Issue.record("expected fresh just before maxAge")
            return
        }
        guard case .stale(let metadata) = store.lookup(url, now: t0.addingTimeInterval(3600)) else {
            Issue.record("expected stale once maxAge has passed")
            return
        }
        #expect(metadata.etag == "\"v1\"")
        #expect(store.lookup(CacheTestData.url("never-stored"), now: t0) == .missing)
    }

    @Test("maxAge 0 makes every entry stale at once; no maxAge keeps entries fresh for ever")
    func maxAgeExtremes() throws {
        let folder = try CacheTestFolder()
        let url = CacheTestData.url("a")
        let always = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 0))
        try always.storeEntry([1], for: url, contentType: nil, etag: nil, lastModified: nil, now: t0)
        guard case .stale = always.lookup(url, now: t0) else { Issue.record("maxAge 0: expected stale"); return }
        // Even when the clock went backwards.
        guard case .stale = always.lookup(url, now: t0.addingTimeInterval(-60)) else { Issue.record("expected stale"); return }

        let never = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: nil))
        guard case .fresh = never.lookup(url, now: t0.addingTimeInterval(10 * 365 * 86_400)) else {
            Issue.record("no maxAge: expected fresh")
            return
        }
    }

    @Test("over the size cap, the least recently used entries are evicted first and the rest stay")
    func leastRecentlyUsedEviction() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxTotalBytes: 400))
        let (a, b, c, d, e) = (CacheTestData.url("a"), CacheTestData.url("b"), CacheTestData.url("c"),
                               CacheTestData.url("d"), CacheTestData.url("e"))
        try store.storeEntry(CacheTestData.bytes(100, seed: 1), for: a, contentType: nil, etag: nil, lastModified: nil, now: t0)
        try store.storeEntry(CacheTestData.bytes(100, seed: 2), for: b, contentType: nil, etag: nil, lastModified: nil, now: t0 + 1)
        try store.storeEntry(CacheTestData.bytes(100, seed: 3), for: c, contentType: nil, etag: nil, lastModified: nil, now: t0 + 2)
        store.markUsed(a, now: t0 + 100)

        // 300 + 200 = 500 > 400: the least recently used (B, since A was used) goes, and that is enough.
        try store.storeEntry(CacheTestData.bytes(200, seed: 4), for: d, contentType: nil, etag: nil, lastModified: nil, now: t0 + 101)
        #expect(store.lookup(b, now: t0 + 101) == .missing)
        for kept in [a, c, d] { #expect(store.lookup(kept, now: t0 + 101) != .missing) }

        // 400 + 100 = 500 again: now C is the least recently used.
        try store.storeEntry(CacheTestData.bytes(100, seed: 5), for: e, contentType: nil, etag: nil, lastModified: nil, now: t0 + 102)
        #expect(store.lookup(c, now: t0 + 102) == .missing)
        for kept in [a, d, e] { #expect(store.contents(for: kept) != nil) }
        #expect(store.stats().totalBytes == 400)
        #expect(store.stats().entryCount == 3)
    }

    @Test("an image eviction cannot delete stays an entry, and goes once it can")
    func undeletableImageStaysAnEntry() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxTotalBytes: 300))
        let (a, b, c, d, e) = (CacheTestData.url("a"), CacheTestData.url("b"), CacheTestData.url("c"),
                               CacheTestData.url("d"), CacheTestData.url("e"))
        let stored = try store.storeEntry(CacheTestData.bytes(100, seed: 1), for: a, contentType: nil, etag: nil, lastModified: nil, now: t0)
        try store.storeEntry(CacheTestData.bytes(100, seed: 2), for: b, contentType: nil, etag: nil, lastModified: nil, now: t0 + 1)
        try store.storeEntry(CacheTestData.bytes(100, seed: 3), for: c, contentType: nil, etag: nil, lastModified: nil, now: t0 + 2)
        // A's image becomes something `unlink` refuses (a folder with a file in it).
        let imagePath = try #require(store.path(for: a))
        try FileManager.default.removeItem(atPath: imagePath)
        try FileManager.default.createDirectory(atPath: imagePath + "/inside", withIntermediateDirectories: true)

        // Over the cap: A, the least recently used, cannot go; D is stored all the same.
        try store.storeEntry(CacheTestData.bytes(100, seed: 4), for: d, contentType: nil, etag: nil, lastModified: nil, now: t0 + 3)
        #expect(store.recordedEntries()[stored.localName] != nil, "still an entry")
        for kept in [b, c, d] { #expect(store.lookup(kept, now: t0 + 3) != .missing, "nothing else went in its place") }

        // Once it can be deleted, the next store evicts it and the folder is within its cap.
        try FileManager.default.removeItem(atPath: imagePath)
        try store.storeEntry(CacheTestData.bytes(100, seed: 5), for: e, contentType: nil, etag: nil, lastModified: nil, now: t0 + 4)
        #expect(store.recordedEntries()[stored.localName] == nil)
        #expect(store.stats().totalBytes <= 300)
        for kept in [c, d, e] { #expect(store.lookup(kept, now: t0 + 4) != .missing) }
    }

    @Test("an image larger than the whole cap is refused without evicting anything")
    func imageLargerThanCap() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxTotalBytes: 1_000))
        try store.storeEntry(CacheTestData.bytes(500, seed: 1), for: CacheTestData.url("small"), contentType: nil, etag: nil, lastModified: nil)
        #expect(throws: ImageCacheError.largerThanCache(url: CacheTestData.url("huge").serialized, byteCount: 1_001, maxTotalBytes: 1_000)) {
            try store.storeEntry(CacheTestData.bytes(1_001, seed: 2), for: CacheTestData.url("huge"), contentType: nil, etag: nil, lastModified: nil)
        }
        #expect(store.contents(for: CacheTestData.url("small")) != nil)
        #expect(store.lookup(CacheTestData.url("huge")) == .missing)
    }

    @Test("a URL that cannot be named is refused, and never found")
    func unnameableURL() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let page = BrowserURL("https://example.com/index.html")!
        #expect(throws: ImageCacheError.noLocalName(url: "https://example.com/index.html")) {
            try store.storeEntry([1], for: page, contentType: nil, etag: nil, lastModified: nil)
        }
        #expect(store.lookup(page) == .missing)
        #expect(store.path(for: page) == nil)
        #expect(try store.remove(page) == false)
    }

    @Test("a truncated image reads as missing, is never served, and verify names it")
    func truncatedImage() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let damaged = try store.storeEntry(CacheTestData.bytes(1_000, seed: 1), for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        try store.storeEntry(CacheTestData.bytes(1_000, seed: 2), for: CacheTestData.url("b"), contentType: nil, etag: nil, lastModified: nil)

        let handle = try #require(FileHandle(forWritingAtPath: folder.path + "/" + damaged.localName))
        try handle.truncate(atOffset: 400)
        try handle.close()

        #expect(store.lookup(CacheTestData.url("a")) == .missing)
        #expect(store.contents(for: CacheTestData.url("a")) == nil)
        #expect(store.contents(forLocalName: damaged.localName) == nil)
        guard case .fresh = store.lookup(CacheTestData.url("b")) else { Issue.record("the other entry should be intact"); return }
        #expect(store.verify() == [damaged.localName])
        #expect(store.stats().entryCount == 1)
    }

    @Test("an image replaced by other bytes of the same size reads as missing and verify names it")
    func replacedImage() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let entry = try store.storeEntry(CacheTestData.bytes(1_000, seed: 1), for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        try Data(CacheTestData.bytes(1_000, seed: 99)).write(to: URL(fileURLWithPath: folder.path + "/" + entry.localName), options: .atomic)

        #expect(store.lookup(CacheTestData.url("a")) == .missing)
        #expect(store.contents(for: CacheTestData.url("a")) == nil)
        #expect(store.verify() == [entry.localName])
        #expect(throws: ImageCacheError.notCached(url: CacheTestData.url("a").serialized)) {
            try store.markRevalidated(CacheTestData.url("a"), etag: nil, lastModified: nil)
        }
    }

    @Test("a warm lookup trusts the file's size, inode and time, but bytes are hashed before being served")
    func lookupDoesNotHashButServingDoes() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let entry = try store.storeEntry(CacheTestData.bytes(1_000, seed: 1), for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        let path = folder.path + "/" + entry.localName

        // Forge the bytes in place and put the modification time back: nothing `stat` sees changes.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data(CacheTestData.bytes(1_000, seed: 2)))
        try handle.close()
        #expect(folder.setModificationTime(entry.localName, nanoseconds: entry.imageFile.modifiedAtNanoseconds))
        let status = try #require(CacheFileSystem.status(ofPath: path))
        try #require(status.fingerprint == entry.imageFile, "the forgery must keep the fingerprint for this test to mean anything")

        guard case .fresh = store.lookup(CacheTestData.url("a")) else { Issue.record("lookup only stats"); return }
        #expect(store.contents(for: CacheTestData.url("a")) == nil)
        #expect(store.contents(forLocalName: entry.localName) == nil)
        #expect(store.verify() == [entry.localName])
    }

    @Test("a cache folder copied elsewhere (new inodes and times) is still found, and rehashed only once")
    func copiedFolderStillWorks() throws {
        let original = try CacheTestFolder()
        let store = try ImageCacheStore(directory: original.path)
        let entry = try store.storeEntry(CacheTestData.bytes(2_000, seed: 1), for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil, now: t0)

        let copy = try CacheTestFolder()
        for name in original.allFiles() where name != ".imgcache.lock" {
            try FileManager.default.copyItem(atPath: original.path + "/" + name, toPath: copy.path + "/" + name + ".copy")
            try FileManager.default.moveItem(atPath: copy.path + "/" + name + ".copy", toPath: copy.path + "/" + name)
        }
        let copied = try ImageCacheStore(directory: copy.path)
        guard case .fresh(let found) = copied.lookup(CacheTestData.url("a"), now: t0) else { Issue.record("expected the copy to be found"); return }
        #expect(found.checksum == entry.checksum)
        #expect(found.imageFile != entry.imageFile)
        // The index now describes the copy, so the next lookup is a plain stat again, in any process.
        let reread = try #require(try ImageCacheStore(directory: copy.path).metadata(for: entry.localName))
        #expect(reread.imageFile == found.imageFile)
        #expect(copied.stats().entryCount == 1)
    }

    @Test("a leftover temporary file is not an entry, and prune removes it once it is an hour old")
    func leftoverTemporaryFile() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let entry = try store.storeEntry([1, 2, 3], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        let leftover = "." + entry.localName + ".tmp-99999-12345"
        try Data([9, 9]).write(to: URL(fileURLWithPath: folder.path + "/" + leftover))

        #expect(store.stats().entryCount == 1)
        #expect(store.verify().isEmpty)
        #expect(try store.prune() == 0)
        #expect(folder.exists(leftover), "a young temporary file may be a write in progress")

        try folder.setModificationTime(leftover, to: Date().addingTimeInterval(-2 * 3600))
        #expect(try store.prune() == 0)
        #expect(!folder.exists(leftover))
        #expect(store.contents(for: CacheTestData.url("a"))?.bytes == [1, 2, 3])
    }

    @Test("prune removes stale entries, damaged entries and half entries, and keeps the rest")
    func pruneRemovesWhatIsUseless() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 100))
        try store.storeEntry([1], for: CacheTestData.url("old"), contentType: nil, etag: nil, lastModified: nil, now: t0)
        try store.storeEntry([2], for: CacheTestData.url("recent"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 500)
        let damaged = try store.storeEntry([3, 3], for: CacheTestData.url("damaged"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 500)
        try Data([4]).write(to: URL(fileURLWithPath: folder.path + "/" + damaged.localName))
        let orphan = String(repeating: "ab", count: 32) + ".png"
        try Data([5]).write(to: URL(fileURLWithPath: folder.path + "/" + orphan))
        let unrelated = "notes.txt"
        try Data([6]).write(to: URL(fileURLWithPath: folder.path + "/" + unrelated))
        let vanished = try store.storeEntry([7], for: CacheTestData.url("vanished"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 500)
        try FileManager.default.removeItem(atPath: folder.path + "/" + vanished.localName)
        let indexBefore = try #require(folder.read(".imgcache.index"))

        #expect(try store.prune(now: t0 + 550) == 4)
        #expect(store.lookup(CacheTestData.url("old"), now: t0 + 550) == .missing)
        #expect(store.lookup(CacheTestData.url("recent"), now: t0 + 550) != .missing)
        #expect(!folder.exists(damaged.localName))
        #expect(!folder.exists(orphan))
        // The index is rewritten to what is left: one record.
        let indexAfter = try #require(folder.read(".imgcache.index"))
        #expect(indexAfter.count < indexBefore.count)
        #expect(indexAfter.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try ImageCacheStore(directory: folder.path).verify().isEmpty)
        #expect(folder.exists(unrelated), "files that are not the cache's are left alone")
    }

    @Test("remove, stats and clear")
    func removeStatsClear() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, naming: LocalImageNaming(fanOut: true))
        #expect(store.stats() == CacheStats(entryCount: 0, totalBytes: 0, oldestFetchedAt: nil, newestFetchedAt: nil))
        try store.storeEntry(CacheTestData.bytes(10, seed: 1), for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 5)
        try store.storeEntry(CacheTestData.bytes(20, seed: 2), for: CacheTestData.url("b"), contentType: nil, etag: nil, lastModified: nil, now: t0)
        try store.storeEntry(CacheTestData.bytes(30, seed: 3), for: CacheTestData.url("c"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 9)
        #expect(store.stats() == CacheStats(entryCount: 3, totalBytes: 60, oldestFetchedAt: t0, newestFetchedAt: t0 + 9))

        #expect(try store.remove(CacheTestData.url("b")))
        #expect(try store.remove(CacheTestData.url("b")) == false)
        #expect(store.lookup(CacheTestData.url("b")) == .missing)
        #expect(store.stats() == CacheStats(entryCount: 2, totalBytes: 40, oldestFetchedAt: t0 + 5, newestFetchedAt: t0 + 9))

        let stray = try #require(store.naming.localName(for: CacheTestData.url("z")))
        let strayTemporary = (stray as NSString).deletingLastPathComponent + "/.x.png.tmp-1-2"
        try FileManager.default.createDirectory(atPath: folder.path + "/" + (stray as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: folder.path + "/" + strayTemporary))

        #expect(try store.clear() == 2)
        #expect(folder.entryFiles().isEmpty)
        #expect(FileManager.default.fileExists(atPath: folder.path))
        #expect(store.stats().entryCount == 0)
        // The folder is still a working cache.
        try store.storeEntry([1], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        #expect(store.contents(for: CacheTestData.url("a"))?.bytes == [1])
    }

    @Test("with fan-out, files go into a two-hex-digit subfolder and are served by that local name")
    func fanOut() throws {
        let folder = try CacheTestFolder()
        let naming = LocalImageNaming(fanOut: true)
        let store = try ImageCacheStore(directory: folder.path, naming: naming)
        let entry = try store.storeEntry([4, 5, 6], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        #expect(entry.localName == naming.localName(for: CacheTestData.url("a")))
        #expect(entry.localName.dropFirst(2).hasPrefix("/" + entry.localName.prefix(2)))
        #expect(folder.read(entry.localName) == [4, 5, 6])
        #expect(folder.entryFiles() == [entry.localName])
        #expect(store.contents(forLocalName: entry.localName)?.bytes == [4, 5, 6])
    }

    @Test("contents(forLocalName:) serves only names the cache writes, never a path out of the folder")
    func localNamesAreChecked() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let entry = try store.storeEntry([1], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        let hex = String(entry.localName.prefix(64))
        for hostile in ["../" + entry.localName, "/etc/passwd", "./" + entry.localName, entry.localName + "/..",
                        hex + ".png/../" + entry.localName, "ab/" + hex + ".png", hex + "..png", hex, "", ".imgcache.lock",
                        entry.localName + ".json", hex.uppercased() + ".png"] {
            #expect(store.contents(forLocalName: hostile) == nil, "\(hostile)")
            #expect(store.path(forLocalName: hostile) == nil, "\(hostile)")
        }
        #expect(store.contents(forLocalName: entry.localName)?.bytes == [1])
    }

    @Test("a 304 keeps the bytes, restarts the freshness clock and updates only the validators given")
    func revalidation() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 100))
        let url = CacheTestData.url("a")
        let bytes = CacheTestData.bytes(3_000, seed: 1)
        let stored = try store.storeEntry(bytes, for: url, contentType: "image/png", etag: "\"v1\"", lastModified: nil, now: t0)
        guard case .stale = store.lookup(url, now: t0 + 200) else { Issue.record("expected stale"); return }

        try store.markRevalidated(url, etag: nil, lastModified: "Tue, 14 Nov 2023 22:13:20 GMT", now: t0 + 200)

        guard case .fresh(let after) = store.lookup(url, now: t0 + 250) else { Issue.record("expected fresh after a 304"); return }
        #expect(after.fetchedAt == t0 + 200)
        #expect(after.lastUsedAt == t0 + 200)
        #expect(after.etag == "\"v1\"")
        #expect(after.lastModified == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(after.checksum == stored.checksum)
        #expect(after.imageFile == stored.imageFile, "the image file itself is not rewritten")
        #expect(store.contents(for: url)?.bytes == bytes)

        try store.markRevalidated(url, etag: "\"v2\"", lastModified: nil, now: t0 + 300)
        #expect(store.lookup(url, now: t0 + 300).metadata?.etag == "\"v2\"")
        #expect(throws: ImageCacheError.notCached(url: CacheTestData.url("b").serialized)) {
            try store.markRevalidated(CacheTestData.url("b"), etag: nil, lastModified: nil)
        }
    }

    @Test("markUsed records a use, but writes nothing for uses less than a minute apart")
    func markUsedGranularity() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let url = CacheTestData.url("a")
        try store.storeEntry([1], for: url, contentType: nil, etag: nil, lastModified: nil, now: t0)
        let written = folder.read(".imgcache.index")

        store.markUsed(url, now: t0 + 30)
        #expect(folder.read(".imgcache.index") == written)
        #expect(store.lookup(url).metadata?.lastUsedAt == t0)

        store.markUsed(url, now: t0 + 61)
        #expect(store.lookup(url).metadata?.lastUsedAt == t0 + 61)
        #expect(store.lookup(url).metadata?.fetchedAt == t0, "a use is not a fetch")
        store.markUsed(CacheTestData.url("never-stored"), now: t0 + 61)
        #expect(store.lookup(CacheTestData.url("never-stored")) == .missing)
    }

    @Test("storing an image again replaces it, and the size total counts it once")
    func restoreReplaces() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxTotalBytes: 250))
        try store.storeEntry(CacheTestData.bytes(100, seed: 1), for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil, now: t0)
        try store.storeEntry(CacheTestData.bytes(100, seed: 2), for: CacheTestData.url("b"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 1)
        let newer = CacheTestData.bytes(120, seed: 3)
        try store.storeEntry(newer, for: CacheTestData.url("a"), contentType: nil, etag: "\"2\"", lastModified: nil, now: t0 + 2)
        // 120 + 100 fits in 250: replacing A must not have counted its old 100 bytes too.
        #expect(store.contents(for: CacheTestData.url("b")) != nil)
        #expect(store.contents(for: CacheTestData.url("a"))?.bytes == newer)
        #expect(store.stats().totalBytes == 220)
    }

    @Test("a page's warm lookup records the uses of entries last used over a minute ago, in one append, and LRU follows them")
    func warmLookupRecordsUses() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 3600, maxTotalBytes: 300))
        let urls = ["a", "b", "c"].map(CacheTestData.url)
        for (index, url) in urls.enumerated() {
            try store.storeEntry(CacheTestData.bytes(100, seed: index), for: url, contentType: nil, etag: nil, lastModified: nil,
                            now: t0 + Double(index))
        }
        let before = try #require(folder.read(".imgcache.index"))

        // A page showing A and C, twice within a minute: the second look writes nothing.
        let lookups = store.lookUpForUse([urls[0], urls[2], CacheTestData.url("never-stored")].map { ImageToFetch($0) }, now: t0 + 120)
        #expect(lookups.map { $0.metadata != nil } == [true, true, false])
        let after = try #require(folder.read(".imgcache.index"))
        #expect(after.count > before.count)
        #expect(String(decoding: after[before.count...], as: UTF8.self).split(separator: "\n").count == 2)
        _ = store.lookUpForUse([urls[0], urls[2]].map { ImageToFetch($0) }, now: t0 + 150)
        #expect(folder.read(".imgcache.index") == after)

        // Another process sees the uses: B is now the least recently used, and goes first.
        let other = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 3600, maxTotalBytes: 300))
        #expect(other.lookup(urls[0], now: t0 + 150).metadata?.lastUsedAt == t0 + 120)
        try other.storeEntry(CacheTestData.bytes(100, seed: 9), for: CacheTestData.url("d"), contentType: nil, etag: nil, lastModified: nil,
                        now: t0 + 200)
        #expect(other.lookup(urls[1], now: t0 + 200) == .missing)
        #expect(other.lookup(urls[0], now: t0 + 200) != .missing && other.lookup(urls[2], now: t0 + 200) != .missing)
    }

    @Test("a folder whose index was deleted reads as empty, and prune removes the images nothing describes")
    func deletedIndex() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let entry = try store.storeEntry([1, 2, 3], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        try FileManager.default.removeItem(atPath: folder.path + "/.imgcache.index")

        #expect(store.lookup(CacheTestData.url("a")) == .missing)
        #expect(store.contents(forLocalName: entry.localName) == nil)
        #expect(store.stats().entryCount == 0)
        #expect(store.verify() == [entry.localName], "an image without a record is reported")
        #expect(try store.prune() == 1)
        #expect(!folder.exists(entry.localName))
        // And the folder works as before.
        try store.storeEntry([4], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        #expect(try ImageCacheStore(directory: folder.path).contents(for: CacheTestData.url("a"))?.bytes == [4])
    }

    @Test("a cache folder deleted while the store is open is recreated by the next store")
    func deletedFolderIsRecreated() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxTotalBytes: 10_000))
        try store.storeEntry([1], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
        try FileManager.default.removeItem(atPath: folder.path)
        #expect(store.lookup(CacheTestData.url("a")) == .missing)

        try store.storeEntry([2], for: CacheTestData.url("b"), contentType: nil, etag: nil, lastModified: nil)
        #expect(store.contents(for: CacheTestData.url("b"))?.bytes == [2])
        #expect(store.stats().totalBytes == 1, "the size total forgot the deleted entry")
    }

    @Test("an index line cut short by a killed process is skipped; records appended after it are read, and the cap holds")
    func damagedJournal() throws {
        let folder = try CacheTestFolder()
        let policy = CachePolicy(maxTotalBytes: 250)
        let first = try ImageCacheStore(directory: folder.path, policy: policy)
        try first.storeEntry(CacheTestData.bytes(100, seed: 1), for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil, now: t0)
        try first.storeEntry(CacheTestData.bytes(100, seed: 2), for: CacheTestData.url("b"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 1)
        let index = try #require(FileHandle(forWritingAtPath: folder.path + "/.imgcache.index"))
        try index.seekToEnd()
        try index.write(contentsOf: Data("{\"byteCount\":100,\"con".utf8))  // no newline: the writer died mid-line
        try index.close()

        let second = try ImageCacheStore(directory: folder.path, policy: policy)
        try second.storeEntry(CacheTestData.bytes(100, seed: 3), for: CacheTestData.url("c"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 2)
        try first.storeEntry(CacheTestData.bytes(100, seed: 4), for: CacheTestData.url("d"), contentType: nil, etag: nil, lastModified: nil, now: t0 + 3)

        #expect(first.lookup(CacheTestData.url("a")) == .missing)
        #expect(first.lookup(CacheTestData.url("b")) == .missing)
        #expect(first.contents(for: CacheTestData.url("c")) != nil)
        #expect(first.contents(for: CacheTestData.url("d")) != nil)
        #expect(first.stats().totalBytes == 200)
        #expect(try ImageCacheStore(directory: folder.path).stats().totalBytes == 200, "a new reader agrees")
    }

    @Test("a store appending for a long time keeps the index short, and another store instance follows the snapshot")
    func indexCompaction() throws {
        let folder = try CacheTestFolder()
        let writer = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 1_000_000))
        let reader = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 1_000_000))
        let (a, b) = (CacheTestData.url("a"), CacheTestData.url("b"))
        try writer.store([1, 2, 3], for: a, contentType: "image/png", etag: "\"0\"", lastModified: nil, now: t0)
        try writer.store([4, 5, 6], for: b, contentType: "image/png", etag: nil, lastModified: nil, now: t0)
        #expect(reader.lookup(a, now: t0).metadata?.etag == "\"0\"")
        var largest = 0
        for round in 1...1_500 {
            // Each 304 appends a whole record (about 400 bytes).
            try writer.markRevalidated(a, etag: "\"\(round)\"", lastModified: nil, now: t0 + Double(round))
            largest = max(largest, folder.read(".imgcache.index")?.count ?? 0)
            if round % 250 == 0 {
                #expect(reader.lookup(a, now: t0 + Double(round)).metadata?.etag == "\"\(round)\"")
            }
        }
        // 1,500 records of about 400 bytes would be 600 KB without compaction.
        #expect(largest <= 256 * 1_024 + 1_024, "compacted each time it passes 256 KB")
        #expect(reader.lookup(a, now: t0 + 1_500).metadata?.etag == "\"1500\"")
        #expect(reader.contents(for: b)?.bytes == [4, 5, 6], "entries untouched by the appends survive compaction")
        #expect(try ImageCacheStore(directory: folder.path).stats().entryCount == 2)
    }

    @Test("a reader that looks the same images up page after page follows another store's revalidations, replacements, uses and removals")
    func repeatedLookupsFollowWriter() throws {
        let folder = try CacheTestFolder()
        let writer = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 1_000_000))
        let reader = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 1_000_000))
        let urls = ["a", "b", "c"].map { CacheTestData.url($0) }
        for (position, url) in urls.enumerated() {
            try writer.store([UInt8(position)], for: url, contentType: "image/png", etag: "\"0\"", lastModified: nil, now: t0)
        }
        for page in 1...3 {
            #expect(reader.lookUpForUse(urls.map { ImageToFetch($0) }, now: t0).map { $0.metadata?.etag } == ["\"0\"", "\"0\"", "\"0\""], "page \(page)")
        }
        try writer.markRevalidated(urls[0], etag: "\"1\"", lastModified: nil, now: t0 + 10)
        try writer.store([9, 9], for: urls[1], contentType: "image/gif", etag: "\"2\"", lastModified: nil, now: t0 + 10)
        #expect(try writer.remove(urls[2]))
        let later = reader.lookUpForUse(urls.map { ImageToFetch($0) }, now: t0 + 200)
        #expect(later[0].metadata?.etag == "\"1\"" && later[0].metadata?.fetchedAt == t0 + 10)
        #expect(later[1].metadata?.contentType == "image/gif" && later[1].metadata?.byteCount == 2)
        #expect(later[2] == .missing)
        #expect(reader.contents(for: urls[1])?.bytes == [9, 9])
        // The reader recorded the uses (over a minute after the last): a third store sees them.
        #expect(try ImageCacheStore(directory: folder.path).lookup(urls[0], now: t0 + 200).metadata?.lastUsedAt == t0 + 200)
    }

    @Test("durable writes (fsync) store and read back the same way")
    func durableWrites() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(durableWrites: true))
        let stored = try store.storeEntry([9, 8, 7], for: CacheTestData.url("a"), contentType: "image/png", etag: nil, lastModified: nil, now: t0)
        #expect(store.lookup(CacheTestData.url("a"), now: t0) == .fresh(stored))
        try store.markRevalidated(CacheTestData.url("a"), etag: "\"x\"", lastModified: nil, now: t0 + 1)
        #expect(store.entry(for: CacheTestData.url("a"))?.metadata.etag == "\"x\"")
    }
}
