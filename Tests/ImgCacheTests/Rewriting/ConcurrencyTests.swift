import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("Thread safety")
struct ConcurrencyTests {
    @Test("one rewriter used from many tasks at once gives every task the same, correct result")
    func concurrentRewrites() async throws {
        let pages = try ["rewrite/reference-kinds.html", "rewrite/gbk.html", "rewrite/css.html", "rewrite/srcset.html"].map(Fixtures.bytes)
        let rewriter = ImageRewriter()
        let pageURL = BrowserURL("https://example.com/dir/page.html")
        let serial = pages.map { rewriter.rewrite($0, pageURL: pageURL).bytes }
        let results = await withTaskGroup(of: (Int, [UInt8]).self) { group in
            for round in 0..<64 {
                group.addTask {
                    let index = round % pages.count
                    return (index, rewriter.rewrite(pages[index], pageURL: pageURL).bytes)
                }
            }
            return await group.reduce(into: [(Int, [UInt8])]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        for (index, bytes) in results {
            #expect(bytes == serial[index])
        }
        #expect(serial.enumerated().allSatisfy { $0.element != pages[$0.offset] })
    }
}
