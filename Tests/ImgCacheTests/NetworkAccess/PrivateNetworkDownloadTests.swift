import Foundation
import ImgCacheTestServer
import ImgCacheURLSession
import NIOSSL
import Testing
@testable import ImgCache
@testable import ImgCacheHTTPClient
@testable import ImgCacheURLs
@testable import ImgCacheStore

/// Downloads with private networks denied, against real servers on 127.0.0.1: a loopback address,
/// which is what the tests can reach, is refused unless excepted.
@Suite("Denying private networks")
struct PrivateNetworkDownloadTests {
    /// A downloader whose transport answers `images.example.com` with 127.0.0.1, as a hostile DNS
    /// name would.
    private struct Fixture {
        let server: TestImageServer
        let folder: TemporaryFolder
        let store: ImageCacheStore
        let transport: any ImageTransport
        let downloader: ImageDownloader

        static func make(wire: Wire, access: PrivateNetworkAccess, client: CommandLineTransport) async throws -> Fixture {
            let server = try await wire.startServer()
            let folder = try TemporaryFolder()
            let store = try ImageCacheStore(directory: folder.path("images"))
            // libcurl's connect time-out covers the TLS handshake, and the test server's (a debug
            // build of BoringSSL, one event loop) took over 5 s for some of six at once while the
            // suite's busiest tests ran: 4 of 6 images "timed out while connecting" in CI.
            let transport = try client.make(
                trust: CertificateTrust(additionalCAFiles: [TestCertificates.caPath]),
                resolvedNames: ["images.example.com": IPAddress("127.0.0.1")!, "metadata.example.com": IPAddress("169.254.169.254")!],
                connectTimeout: .seconds(30), readTimeout: .seconds(10), maxConnectionsPerHost: 8)
            let policy = DownloadPolicy(retries: 0, privateNetworks: access)
            return Fixture(server: server, folder: folder, store: store, transport: transport,
                           downloader: ImageDownloader(transport: transport, store: store, policy: policy))
        }

        func close() async throws {
            await transport.shutdown()
            try await server.shutdown()
        }
    }

    private static let loopbackAllowed = PrivateNetworkAccess.denied(except: [AddressRange("127.0.0.1")!])

    @Test("an image on a loopback address is refused without a connection, and says why", arguments: Wire.allCases, CommandLineTransport.allCases)
    func loopbackRefused(wire: Wire, client: CommandLineTransport) async throws {
        let fixture = try await Fixture.make(wire: wire, access: .denied(), client: client)
        fixture.server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let outcome = await fixture.downloader.fetch(BrowserURL(fixture.server.url("/a.png"))!)
        #expect(outcome.status == .failed)
        #expect(outcome.failure?.description == "refused: 127.0.0.1 is a loopback address, and private networks are denied")
        #expect(fixture.server.totalConnections == 0)
        #expect(fixture.store.lookup(BrowserURL(fixture.server.url("/a.png"))!).metadata == nil)
        try await fixture.close()
    }

    @Test("a public-looking name that resolves to 127.0.0.1 is refused on the address, not the name", arguments: [Wire.http, .https2], CommandLineTransport.allCases)
    func nameResolvingToLoopback(wire: Wire, client: CommandLineTransport) async throws {
        let fixture = try await Fixture.make(wire: wire, access: .denied(), client: client)
        fixture.server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let scheme = wire == .http ? "http" : "https"
        let url = BrowserURL("\(scheme)://images.example.com:\(fixture.server.port)/a.png")!
        let outcome = await fixture.downloader.fetch(url)
        #expect(outcome.status == .failed)
        #expect(outcome.failure?.description == "refused: images.example.com is at 127.0.0.1, a loopback address, and private networks are denied")
        #expect(fixture.server.totalConnections == 0)
        try await fixture.close()
    }

    @Test("an allowed address is fetched through the guard, HTTP/2 included", arguments: Wire.allCases, CommandLineTransport.allCases)
    func allowedThroughGuard(wire: Wire, client: CommandLineTransport) async throws {
        let fixture = try await Fixture.make(wire: wire, access: Self.loopbackAllowed, client: client)
        let png = TestImages.png(width: 3, height: 5)
        for index in 0..<6 { fixture.server.route("/\(index).png", .image(bytes: png, contentType: "image/png")) }
        let outcomes = await withTaskGroup(of: DownloadOutcome.self) { group in
            for index in 0..<6 { group.addTask { await fixture.downloader.fetch(BrowserURL(fixture.server.url("/\(index).png"))!) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0.status == .downloaded }, "\(outcomes.map(\.failure?.description))")
        #expect(fixture.store.contents(for: BrowserURL(fixture.server.url("/3.png"))!)?.bytes == png)
        if wire == .https2 { #expect(fixture.server.negotiatedProtocols.allSatisfy { $0 == "h2" }) }
        try await fixture.close()
    }

    @Test("a redirect from an allowed server to a refused address is refused at the redirect",
          arguments: [("http://127.0.0.2:PORT/a.png", "127.0.0.2 is a loopback address"),
                      ("http://metadata.example.com/latest/meta-data/", "metadata.example.com is at 169.254.169.254, a link-local address"),
                      ("https://[::ffff:10.0.0.1]:PORT/a.png", "::ffff:10.0.0.1 is a private address")])
    func redirectToPrivate(target: String, reason: String) async throws {
        for client in CommandLineTransport.allCases {
            try await redirectToPrivate(target: target, reason: reason, client: client)
        }
    }

    private func redirectToPrivate(target: String, reason: String, client: CommandLineTransport) async throws {
        let fixture = try await Fixture.make(wire: .http, access: Self.loopbackAllowed, client: client)
        let location = target.replacingOccurrences(of: "PORT", with: "\(fixture.server.port)")
        fixture.server.route("/r.png", .redirect(to: location))
        fixture.server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let outcome = await fixture.downloader.fetch(BrowserURL(fixture.server.url("/r.png"))!)
        #expect(outcome.status == .failed)
        #expect(outcome.failure?.description == "refused: \(reason), and private networks are denied")
        #expect(fixture.server.requestCount("/r.png") == 1)
        #expect(fixture.server.requestCount("/a.png") == 0)
        try await fixture.close()
    }

    @Test("a connection opened for a request that allowed loopback (at all, or as an exception) is not reused by one that denies it",
          arguments: CommandLineTransport.allCases, [PrivateNetworkAccess.allowed, loopbackAllowed])
    func allowedConnectionNotReusedWhenDenied(client: CommandLineTransport, first: PrivateNetworkAccess) async throws {
        let fixture = try await Fixture.make(wire: .http, access: .allowed, client: client)
        fixture.server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let url = fixture.server.url("/a.png")
        var allowedRequest = TransportRequest.get(url)
        allowedRequest.privateNetworks = first
        let allowed = try await fixture.transport.send(allowedRequest)
        #expect(allowed.status == 200)
        var denied = TransportRequest.get(url)
        denied.privateNetworks = .denied()
        let error = await transportError { try await fixture.transport.send(denied) }
        #expect(error as? TransportError == .deniedAddress(host: "127.0.0.1", address: "127.0.0.1", kind: "a loopback address"))
        #expect(fixture.server.requestCount("/a.png") == 1)
        try await fixture.close()
    }

    @Test("a transport that cannot check connected addresses (URLSession) gets the host's names checked first")
    func checkedBeforeRequest() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("images"))
        let transport = URLSessionTransport()
        let downloader = ImageDownloader(transport: transport, store: store, policy: DownloadPolicy(retries: 0, privateNetworks: .denied()))
        let outcome = await downloader.fetch(BrowserURL("http://localhost:\(server.port)/a.png")!)
        #expect(outcome.status == .failed)
        #expect(outcome.failure?.description.hasPrefix("refused: localhost is at ") == true, "\(outcome.failure?.description ?? "")")
        #expect(outcome.failure?.description.contains("a loopback address") == true)
        #expect(server.totalConnections == 0)
        await transport.shutdown()
        try await server.shutdown()
    }

    @Test("a transport that cannot check connected addresses (URLSession): a URL whose host cannot be read is refused, not sent unchecked")
    func unreadableHostRefused() async throws {
        let transport = URLSessionTransport()
        var request = TransportRequest.get("http://127.0.0.1:99999/a.png")
        request.privateNetworks = .denied()
        let error = await transportError { try await transport.sendCheckingAddresses(request) }
        #expect(error as? TransportError == .invalidRequest(
            "cannot find the host of http://127.0.0.1:99999/a.png to check its addresses, and private networks are denied"))
        await transport.shutdown()
    }
}
