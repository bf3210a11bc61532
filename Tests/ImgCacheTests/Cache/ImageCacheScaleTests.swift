import Foundation
import Testing
@testable import ImgCache

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
}
