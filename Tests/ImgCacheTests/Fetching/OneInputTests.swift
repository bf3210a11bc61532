import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

@Suite("One page or stylesheet through the session")
struct OneInputTests {
    @Test("bytes without an output: nothing is written, the result carries the page with the cached images rewritten and the failed one remote")
    func bytesWithoutOutput() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let session = LocalizationSession(.init(store: try ImageCacheStore(directory: folder.path("images")),
                                                transport: AsyncHTTPClientTransport(), downloadPolicy: DownloadPolicy(retries: 0),
                                                debounce: .zero))
        let ready = ThreadSafeLog<String>()
        let result = try await session.localize(.bytes(Array("<img src=a.png><img src=gone.png>".utf8), url: BrowserURL(server.url("/page.html"))),
                                                mode: .build, pageReady: { ready.append(String(decoding: $0.bytes, as: UTF8.self)) })
        await session.finish()
        let png = LocalImageNaming().localName(for: BrowserURL(server.url("/a.png"))!)!
        let expected = "<img src=images/\(png)><img src=\(server.url("/gone.png"))>"
        #expect(result.page.map { String(decoding: $0.bytes, as: UTF8.self) } == expected)
        #expect(ready.values == [expected], "build mode hands the page over once, final")
        #expect(result.outcomes.count == 2 && result.failures.map(\.url) == [server.url("/gone.png")])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["images"])
        try await server.shutdown()
    }

    @Test("bytes with an output: written there, referring to the cache as the configuration says; the result keeps no copy")
    func bytesWithOutput() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let session = LocalizationSession(.init(store: try ImageCacheStore(directory: folder.path("cache")),
                                                transport: AsyncHTTPClientTransport(),
                                                rewriting: RewriteOptions(referenceStyle: .urlPrefix("imgcache://")), debounce: .zero))
        let output = folder.path("out/page.html")
        let result = try await session.localize(.bytes(Array("<img src=a.png>".utf8), url: BrowserURL(server.url("/page.html")), output: output),
                                                mode: .live)
        await session.finish()
        let png = LocalImageNaming().localName(for: BrowserURL(server.url("/a.png"))!)!
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "<img src=imgcache://\(png)>")
        #expect(result.page == nil)
        #expect(result.input.output == output && result.outcomes.values.map(\.status) == [.downloaded])
        try await server.shutdown()
    }
}
