import Foundation
import Testing
@testable import ImgCache

@Suite("Image cache store performance")
struct ImageCachePerformanceTests {
    @Test("storing 2,000 images of 20 KB under a size cap takes seconds, not minutes, and lookups are cheap")
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

            let storing = Date()
            for index in 0..<2_000 {
                try store.store(images[index], for: urls[index], contentType: "image/png", etag: nil, lastModified: nil,
                                now: CacheTestData.t0 + Double(index))
            }
            let storeSeconds = Date().timeIntervalSince(storing)

            let looking = Date()
            var found = 0
            for round in 0..<5 {
                for index in 1_000..<2_000 {
                    if case .fresh = store.lookup(urls[index], now: CacheTestData.t0 + 2_000 + Double(round)) { found += 1 }
                }
            }
            let lookupSeconds = Date().timeIntervalSince(looking)

            #expect(found == 5_000)
            #expect(store.stats().entryCount == 1_000)
            #expect(store.lookup(urls[999]) == .missing, "the oldest thousand were evicted")
            // Generous bounds for a debug build on a slow machine; quadratic behaviour would blow them
            // by an order of magnitude.
            // (Here: about 2 s to store, most of it the file system creating 4,000 files, and 0.3 s
            // for the lookups.)
            #expect(storeSeconds < 30, "storing took \(storeSeconds) s")
            #expect(lookupSeconds < 5, "looking up took \(lookupSeconds) s")
        }
    }
}
