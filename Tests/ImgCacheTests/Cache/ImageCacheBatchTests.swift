import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

/// Storing several images in one turn of the folder lock, as the downloader does under load.
@Suite("Cache: batch stores")
struct ImageCacheBatchTests {
    private func image(_ index: Int, bytes: [UInt8]? = nil) -> ImageToStore {
        ImageToStore(bytes: bytes ?? TestImages.png(byteCount: 200 + index), url: BrowserURL("https://cdn.example/\(index).png")!,
                     contentType: "image/png", etag: "\"e\(index)\"", lastModified: nil)
    }

    @Test("every image of a batch is stored intact, with one index line each, and another store instance sees them")
    func batchIsStored() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        let images = (0..<6).map { image($0) }
        let results = store.store(images)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        for item in images {
            #expect(store.contents(for: item.url)?.bytes == item.bytes)
        }
        let indexLines = String(decoding: folder.read(".imgcache.index") ?? [], as: UTF8.self).split(separator: "\n")
        #expect(indexLines.count == 6)
        let other = try ImageCacheStore(directory: folder.path)
        #expect(other.entry(for: images[3].url)?.metadata.etag == "\"e3\"")
        #expect(folder.entryFiles().count == 6, "no temporary file is left: \(folder.allFiles())")
    }

    @Test("an image that cannot be named fails alone; the rest of the batch is stored")
    func oneFailureIsItsOwn() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path)
        var images = (0..<3).map { image($0) }
        images.insert(ImageToStore(bytes: TestImages.png(), url: BrowserURL("https://cdn.example/page.html")!,
                                   contentType: nil, etag: nil, lastModified: nil), at: 1)
        let results = store.store(images)
        #expect((try? results[1].get()) == nil)
        #expect([0, 2, 3].allSatisfy { (try? results[$0].get()) != nil })
        #expect(folder.entryFiles().count == 3)
    }

    @Test("with a size cap the batch is stored one image at a time and the cap holds")
    func capHolds() throws {
        let folder = try CacheTestFolder()
        let images = (0..<5).map { image($0, bytes: TestImages.png(byteCount: 1_000)) }
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxTotalBytes: 2_500))
        let results = store.store(images)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(store.stats().totalBytes <= 2_500)
        #expect(store.contents(for: images[4].url) != nil, "the newest survives")
    }

    @Test("a missing cache folder is created for the batch")
    func missingFolder() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, naming: LocalImageNaming(fanOut: true))
        let results = store.store((0..<4).map { image($0) })
        #expect(results.allSatisfy { (try? $0.get()) != nil }, "\(results)")
    }
}
