import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs

/// The bytes of image bodies held at once stay within ``DownloadPolicy/maxBytesInFlight`` (plus
/// one image), however many requests are in flight, and no image is lost to it.
@Suite("Bytes held in flight")
struct ByteBudgetTests {
    @Test("a budget takes parts while there is room, lets one image alone pass it, and gets bytes back on release")
    func budgetRules() {
        let budget = ByteBudget(limit: 100)
        let first = budget.charge()
        let second = budget.charge()
        #expect(first.add(60))
        #expect(!second.add(50), "60 + 50 would pass 100 while another image holds bytes")
        #expect(second.add(40))
        #expect(budget.heldBytes == 100)
        second.release()
        second.release()
        #expect(budget.heldBytes == 60, "a second release gives nothing back twice")
        #expect(first.add(500), "an image that holds every byte held may go past the limit")
        #expect(budget.heldBytes == 560)
        let third = budget.charge()
        #expect(!third.add(1))
        first.release()
        #expect(third.add(1))
        #expect(budget.peakHeldBytes == 560)
    }

    @Test("a dropped charge gives its bytes back")
    func droppedCharge() {
        let budget = ByteBudget(limit: 100)
        do {
            let charge = budget.charge()
            #expect(charge.add(70))
        }
        #expect(budget.heldBytes == 0)
    }

    @Test("images larger together than the budget all come in, the bytes held never pass it by more than one image",
          arguments: CommandLineTransport.allCases, [true, false])
    func pageLargerThanTheBudget(client: CommandLineTransport, declaresLength: Bool) async throws {
        let imageBytes = 300 * 1024
        let budget = 1024 * 1024
        let policy = DownloadPolicy(concurrency: 16, perHostConcurrency: 16, timeout: .seconds(60), retryDelay: .milliseconds(20),
                                    maxBytes: 512 * 1024, maxBytesInFlight: budget)
        let fixture = try await DownloadFixture.make(policy: policy, client: client)
        // Slow enough that all sixteen are arriving at once.
        let urls = (0..<16).map { index in
            fixture.server.route("/big\(index).png", .stream(prefix: TestImages.pngSignature, length: imageBytes, declaresLength: declaresLength,
                                                             chunkSize: 16 * 1024, interval: .milliseconds(10)))
            return BrowserURL(fixture.server.url("/big\(index).png"))!
        }
        let outcomes = await fixture.downloader.fetchAll(urls)
        #expect(outcomes.allSatisfy { $0.status == .downloaded }, "\(outcomes.map { $0.failure?.description ?? "ok" })")
        for url in urls { #expect(fixture.store.contents(for: url)?.bytes.count == imageBytes) }
        let held = try #require(fixture.downloader.bodyBudget)
        #expect(held.peakHeldBytes <= budget + policy.maxBytes, "peak \(held.peakHeldBytes)")
        #expect(held.heldBytes == 0, "every body's bytes were given back")
        // The budget acted: some images were stopped and asked for again.
        #expect(fixture.server.totalRequests > urls.count)
        try await fixture.close()
    }
}
