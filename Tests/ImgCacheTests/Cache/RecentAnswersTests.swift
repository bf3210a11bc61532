import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

/// What a store answers from memory for images it found or stored a moment ago: the look a
/// site's pages, sharing their images, make again and again.
@Suite("A store's recent answers")
struct RecentAnswersTests {
    let t0 = CacheTestData.t0

    @Test("an image the store stored or found fresh is answered from memory until an entry leaves the cache, it turns stale, or a minute has passed")
    func answersFromMemory() throws {
        let folder = try CacheTestFolder()
        let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 600))
        let urls = (0..<3).map { BrowserURL("https://images.example.com/\($0).png")! }
        let keys = urls.map(\.serializedWithoutFragment)
        #expect(store.recentAnswers(for: keys, now: t0).allSatisfy { $0 == nil }, "nothing found or stored yet")

        // Stored through the downloader's batch, and found by a lookup for use.
        let stored = store.store([ImageToStore(bytes: CacheTestData.bytes(100, seed: 1), url: urls[0], contentType: "image/png")], now: t0)
        #expect((try? stored[0].get()) != nil)
        _ = try store.storeEntry(CacheTestData.bytes(200, seed: 2), for: urls[1], contentType: nil, etag: nil, lastModified: nil, now: t0)
        #expect(store.recentAnswers(for: keys, now: t0)[1] == nil, "stored alone, not looked up yet")
        _ = store.lookUpForUse([ImageToFetch(urls[1])], now: t0 + 1)
        let answers = store.recentAnswers(for: keys, now: t0 + 2)
        #expect(answers.map { $0?.byteCount } == [100, 200, nil])
        #expect(answers[0]?.localName == LocalImageNaming().localName(for: urls[0]))

        #expect(store.recentAnswers(for: keys, now: t0 + 61)[0] == nil, "a minute on, its use would need recording: looked up again")

        _ = store.lookUpForUse(urls.prefix(2).map { ImageToFetch($0) }, now: t0 + 100)
        #expect(store.recentAnswers(for: keys, now: t0 + 101).compactMap { $0 }.count == 2)
        try store.remove(urls[1])
        #expect(store.recentAnswers(for: keys, now: t0 + 102).allSatisfy { $0 == nil }, "an entry left the cache: every answer is looked up again")

        _ = store.lookUpForUse([ImageToFetch(urls[0])], now: t0 + 590)
        #expect(store.recentAnswers(for: keys, now: t0 + 595)[0] != nil)
        #expect(store.recentAnswers(for: keys, now: t0 + 601)[0] == nil, "stale: revalidated, not answered")
    }
}
