import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("Accept header of image requests")
struct AcceptHeaderTests {
    @Test("image requests accept exactly the enabled formats, so a negotiating CDN answers with one that is kept",
          arguments: [
              (Set<ImageFormat>([.jpeg, .png, .gif]), "image/jpeg, image/png, image/gif"),
              (Set<ImageFormat>([.jpeg, .png, .gif, .webp, .svg]), "image/jpeg, image/png, image/gif, image/webp, image/svg+xml"),
          ])
    func acceptsEnabledFormats(formats: Set<ImageFormat>, expected: String) async throws {
        let fixture = try await DownloadFixture.make(policy: DownloadPolicy(acceptedFormats: formats))
        fixture.server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        #expect(await fixture.fetch("/a.png").status == .downloaded)
        #expect(fixture.server.requests("/a.png").first?.header("Accept") == expected)
        try await fixture.close()
    }
}
