import Foundation
@testable import ImgCache
@testable import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
import X509
@testable import ImgCacheURLs
@testable import ImgCacheStore

/// Certificates users meet: one from a CA they named, and the refused ones, each with a reason
/// that names the host and the problem, nothing cached and no retry.
@Suite("Certificates")
struct CertificateFailureTests {
    /// Fetches one image from a server presenting `identity`, through a transport that trusts the
    /// test CA (or only the system's CAs).
    private func fetch(from identity: TestTLSIdentity, trustTestCA: Bool = true, http2: Bool = true,
                       client: CommandLineTransport) async throws -> (DownloadOutcome, requests: Int, cached: Bool)
    {
        let server = try await TestImageServer.start(tls: identity, http2: http2)
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("images"))
        let trust = trustTestCA ? CertificateTrust(additionalCAFiles: [TestCertificates.caPath]) : .system
        let transport = try client.make(trust: trust)
        let downloader = ImageDownloader(transport: transport, store: store,
                                         policy: DownloadPolicy(retryDelay: .milliseconds(10)))
        let url = BrowserURL(server.url("/a.png"))!
        let outcome = await downloader.fetch(url)
        await transport.shutdown()
        let requests = server.totalRequests
        try await server.shutdown()
        return (outcome, requests, store.lookup(url).metadata != nil)
    }

    @Test("a certificate from the CA given with --cacert is accepted, over HTTP/2 and HTTP/1.1", arguments: [true, false], CommandLineTransport.allCases)
    func namedCAIsTrusted(http2: Bool, client: CommandLineTransport) async throws {
        let (outcome, requests, cached) = try await fetch(from: .valid, http2: http2, client: client)
        #expect(outcome.status == .downloaded, "\(outcome.failure?.description ?? "")")
        #expect(requests == 1)
        #expect(cached)
    }

    @Test("the same certificate is refused when its CA is not trusted, and the reason says by whom it was issued", arguments: CommandLineTransport.allCases)
    func unknownCAIsRefused(client: CommandLineTransport) async throws {
        let (outcome, requests, cached) = try await fetch(from: .valid, trustTestCA: false, client: client)
        #expect(outcome.status == .failed)
        #expect(outcome.failure?.description == "TLS certificate of 127.0.0.1 refused: issued by 'CN=imgcache test CA', which is not a trusted CA")
        #expect(outcome.failure?.certificateProblem?.kind == .untrustedIssuer, "the kind a program acts on")
        #expect(requests == 0)
        #expect(!cached)
    }

    @Test("a certificate from another CA is refused as not trusted", arguments: CommandLineTransport.allCases)
    func untrusted(client: CommandLineTransport) async throws {
        let (outcome, requests, cached) = try await fetch(from: .untrusted, client: client)
        #expect(outcome.status == .failed)
        #expect(outcome.failure?.description == "TLS certificate of 127.0.0.1 refused: issued by 'CN=imgcache untrusted CA', which is not a trusted CA")
        #expect(outcome.failure?.certificateProblem?.kind == .untrustedIssuer, "the kind a program acts on")
        #expect(requests == 0)
        #expect(!cached)
    }

    @Test("an expired certificate is refused with its end date", arguments: CommandLineTransport.allCases)
    func expired(client: CommandLineTransport) async throws {
        let (outcome, requests, cached) = try await fetch(from: .expired, client: client)
        #expect(outcome.status == .failed)
        #expect(outcome.failure?.description == "TLS certificate of 127.0.0.1 refused: expired on 2021-01-01")
        #expect(outcome.failure?.certificateProblem?.kind == .outsideValidity, "the kind a program acts on")
        #expect(requests == 0)
        #expect(!cached)
    }

    @Test("a certificate for another host is refused with the names it is for", arguments: CommandLineTransport.allCases)
    func wrongHost(client: CommandLineTransport) async throws {
        let (outcome, requests, cached) = try await fetch(from: .wrongHost, client: client)
        #expect(outcome.status == .failed)
        #expect(outcome.failure?.description == "TLS certificate of 127.0.0.1 refused: issued for other.example, not 127.0.0.1")
        #expect(outcome.failure?.certificateProblem?.kind == .otherHost, "the kind a program acts on")
        #expect(requests == 0)
        #expect(!cached)
    }

    @Test("as on Darwin, where a chain refusal can hide a host name mismatch: a chain whose leaf is for another host is explained by its names; one for this host by its issuer")
    func chainRefusalExplainedByNames() throws {
        func chain(_ file: String) throws -> [Certificate] {
            let pem = try String(contentsOfFile: TestCertificates.path(file), encoding: .utf8)
            return try [Certificate(pemEncoded: pem)]
        }
        let wrongHost = try chain("wrong-host.pem")
        let darwin = CertificateDiagnosis.explain(wrongHost, host: "127.0.0.1", hostnameMismatch: false, now: Date(), namesMayExplainChain: true)
        #expect(darwin == CertificateProblem(.otherHost, "issued for other.example, not 127.0.0.1"))
        let untrusted = try chain("untrusted.pem")
        let darwinUntrusted = CertificateDiagnosis.explain(untrusted, host: "127.0.0.1", hostnameMismatch: false, now: Date(),
                                                           namesMayExplainChain: true)
        #expect(darwinUntrusted.kind == .untrustedIssuer, "\(darwinUntrusted)")
        // On Linux BoringSSL tells the cases apart, and a refused chain is explained by its issuer.
        #expect(CertificateDiagnosis.explain(wrongHost, host: "127.0.0.1", hostnameMismatch: false, now: Date(),
                                             namesMayExplainChain: false).kind != .otherHost)
    }
}
