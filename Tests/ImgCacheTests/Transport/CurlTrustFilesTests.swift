@testable import ImgCacheURLs
@testable import ImgCacheStore
#if os(Linux)
import Foundation
import Glibc
@testable import ImgCache
@testable import ImgCacheHTTPClient
@testable import ImgCacheCurl
import ImgCacheTestServer
import Testing

/// libcurl is given a CA bundle only when the folder it searches lacks some of its certificates:
/// OpenSSL 3.0 takes about 40 ms to read the system's bundle, the folder costs the one file a
/// chain needs. The CAs trusted must be the same either way.
@Suite("CA files for libcurl")
struct CurlTrustFilesTests {
    private static func pem(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// The test CA's PEM with its base64 wrapped at 40 columns and CRLF line ends: the same certificate.
    private static func rewrapped(_ pem: String) -> String {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        var lines = ["-----BEGIN CERTIFICATE-----"]
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(40)))
            rest = rest.dropFirst(40)
        }
        lines.append("-----END CERTIFICATE-----")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// OpenSSL's subject hash of a PEM certificate (what `openssl rehash` names its file after),
    /// from libcrypto itself.
    private static func openSSLSubjectHash(ofPEM path: String) throws -> String {
        let body = try pem(path).split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: body))
        let crypto = try #require(dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL), "libcrypto, which libcurl loads")
        typealias Decode = @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?
        typealias Hash = @convention(c) (OpaquePointer?) -> UInt
        typealias Free = @convention(c) (OpaquePointer?) -> Void
        let decode = unsafeBitCast(try #require(dlsym(crypto, "d2i_X509")), to: Decode.self)
        let hash = unsafeBitCast(try #require(dlsym(crypto, "X509_subject_name_hash")), to: Hash.self)
        let free = unsafeBitCast(try #require(dlsym(crypto, "X509_free")), to: Free.self)
        let certificate = try der.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            return try #require(decode(nil, &cursor, raw.count))
        }
        defer { free(certificate) }
        return String(format: "%08lx", hash(certificate))
    }

    /// A hashed folder (`certs`) and a bundle (`bundle.pem`) in `temporary`, each holding the test CA alone.
    private static func folderAndBundleOfTheTestCA(in temporary: TemporaryFolder) throws -> (folder: String, bundle: String) {
        let folder = temporary.path("certs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try pem(TestCertificates.caPath).write(toFile: folder + "/0badc0de.0", atomically: true, encoding: .utf8)
        let bundle = temporary.path("bundle.pem")
        try pem(TestCertificates.caPath).write(toFile: bundle, atomically: true, encoding: .utf8)
        return (folder, bundle)
    }

    /// Whether `folder` holds every certificate of `bundle` (a Bool, so that a failure prints no certificate).
    private static func covers(_ folder: String, _ bundle: String) -> Bool {
        HashedCertificateFolder(path: folder).holdsEveryCertificate(of: bundle)
    }

    @Test("a bundle's certificates are read by their base64, whatever the line breaks and the comments between them")
    func pemBlocks() throws {
        let ca = try Self.pem(TestCertificates.caPath)
        let other = try Self.pem(TestCertificates.untrustedCAPath)
        let bundle = "# imgcache test CA\n" + ca + "\n# another\n" + Self.rewrapped(other)
        let blocks = try #require(HashedCertificateFolder.certificates(inPEM: Array(bundle.utf8)))
        #expect(blocks.count == 2)
        #expect(blocks == HashedCertificateFolder.certificates(inPEM: Array((Self.rewrapped(ca) + other).utf8)))
        #expect(HashedCertificateFolder.certificates(inPEM: Array("no certificate".utf8)) == [])
        // Anything OpenSSL would read differently makes the bundle stay in use.
        let trusted = ca.replacingOccurrences(of: "CERTIFICATE", with: "TRUSTED CERTIFICATE")
        #expect(HashedCertificateFolder.certificates(inPEM: Array(trusted.utf8)) == nil)
        let cutShort = String(ca.prefix(200))
        #expect(HashedCertificateFolder.certificates(inPEM: Array(cutShort.utf8)) == nil)
    }

    @Test("only openssl rehash's names count as the folder's files")
    func hashedNames() {
        #expect(HashedCertificateFolder.isHashedName("5ad8a5d6.0"))
        #expect(HashedCertificateFolder.isHashedName("5ad8a5d6.12"))
        for name in ["5ad8a5d6.r0", "5AD8A5D6.0", "5ad8a5d.0", "5ad8a5d6.", "ca.pem", "ca-certificates.crt", "5ad8a5d6.0.bak"] {
            #expect(!HashedCertificateFolder.isHashedName(name), "\(name)")
        }
    }

    @Test("a bundle is covered only when every one of its certificates is in a hashed file")
    func coverage() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path("certs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let ca = try Self.pem(TestCertificates.caPath)
        let other = try Self.pem(TestCertificates.untrustedCAPath)
        try Self.rewrapped(ca).write(toFile: folder + "/0badc0de.0", atomically: true, encoding: .utf8)
        let bundle = temporary.path("bundle.pem")
        try ca.write(toFile: bundle, atomically: true, encoding: .utf8)
        #expect(Self.covers(folder, bundle))

        // A certificate appended to the bundle by hand keeps it in use…
        try (ca + other).write(toFile: bundle, atomically: true, encoding: .utf8)
        #expect(!Self.covers(folder, bundle))
        // …even when it lies in the folder under a name OpenSSL does not look up.
        try other.write(toFile: folder + "/other.pem", atomically: true, encoding: .utf8)
        #expect(!Self.covers(folder, bundle))
        // OpenSSL stops at the first number missing: a file after a gap is never read.
        try other.write(toFile: folder + "/0badc0de.2", atomically: true, encoding: .utf8)
        #expect(!Self.covers(folder, bundle))
        try FileManager.default.moveItem(atPath: folder + "/0badc0de.2", toPath: folder + "/0badc0de.1")
        #expect(Self.covers(folder, bundle))
        try other.write(toFile: folder + "/0badc0de.99999999999999999999", atomically: true, encoding: .utf8)
        #expect(Self.covers(folder, bundle), "a number no Int holds is passed over")

        // A hashed file with trust settings, an empty bundle, a missing folder: the bundle stays.
        try ca.replacingOccurrences(of: "CERTIFICATE", with: "TRUSTED CERTIFICATE")
            .write(toFile: folder + "/12345678.0", atomically: true, encoding: .utf8)
        #expect(!Self.covers(folder, bundle))
        try FileManager.default.removeItem(atPath: folder + "/12345678.0")
        try "".write(toFile: bundle, atomically: true, encoding: .utf8)
        #expect(!Self.covers(folder, bundle))
        #expect(!Self.covers(temporary.path("missing"), TestCertificates.caPath))
    }

    @Test("the system's bundle is left out when the system's folder holds it, and so are SSL_CERT_FILE's; the extra CA files stay")
    func filesGivenToLibcurl() throws {
        let temporary = try TemporaryFolder()
        let (folder, bundle) = try Self.folderAndBundleOfTheTestCA(in: temporary)
        let extra = TestCertificates.untrustedCAPath

        let system = try CurlTrustFiles(.system, system: (bundle, folder))
        #expect(system.file == nil)
        #expect(system.folder == folder)
        #expect(system.filesInFolder == [bundle])

        let withExtra = try CurlTrustFiles(CertificateTrust(additionalCAFiles: [extra]), system: (bundle, folder))
        #expect(withExtra.file == extra, "the extra file alone, not joined with anything")
        #expect(withExtra.folder == folder)

        let fromEnvironment = try CurlTrustFiles(CertificateTrust(roots: [bundle, folder]), system: (nil, nil))
        #expect(fromEnvironment.file == nil)
        #expect(fromEnvironment.folder == folder)

        // The folder lacks the extra file's certificate: the bundle is read as before.
        try (Self.pem(TestCertificates.caPath) + Self.pem(extra)).write(toFile: bundle, atomically: true, encoding: .utf8)
        let notCovered = try CurlTrustFiles(.system, system: (bundle, folder))
        #expect(notCovered.file == bundle)
        #expect(notCovered.folder == folder)
        #expect(notCovered.filesInFolder.isEmpty)
    }

    /// Fetches one image over HTTPS from a server with the test CA's certificate, the system's
    /// CAs being `system`.
    private func fetch(system: (file: String?, folder: String?)) async throws -> DownloadOutcome {
        let server = try await TestImageServer.start(tls: .valid)
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let temporary = try TemporaryFolder()
        let transport = try CurlTransport(trust: .system, proxy: .direct, connectTimeout: .seconds(10), readTimeout: .seconds(30),
                                          resolvedNames: [:], systemCAs: system)
        let downloader = ImageDownloader(transport: transport, store: try ImageCacheStore(directory: temporary.path("images")))
        let outcome = await downloader.fetch(BrowserURL(server.url("/a.png"))!)
        await transport.shutdown()
        try await server.shutdown()
        return outcome
    }

    @Test("a server is trusted through the folder alone when it holds the bundle, and through the bundle when it does not")
    func trustThroughTheFolder() async throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path("certs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let hash = try Self.openSSLSubjectHash(ofPEM: TestCertificates.caPath)
        try Self.rewrapped(Self.pem(TestCertificates.caPath)).write(toFile: "\(folder)/\(hash).0", atomically: true, encoding: .utf8)
        let bundle = temporary.path("bundle.pem")
        try Self.pem(TestCertificates.caPath).write(toFile: bundle, atomically: true, encoding: .utf8)

        let throughFolder = try await fetch(system: (bundle, folder))
        #expect(throughFolder.status == .downloaded, "\(throughFolder.failure?.description ?? "")")

        // Proof that the bundle was not read: under a name OpenSSL does not look up, the same
        // folder trusts nothing.
        try FileManager.default.moveItem(atPath: "\(folder)/\(hash).0", toPath: "\(folder)/0badc0de.0")
        let misnamed = try await fetch(system: (bundle, folder))
        #expect(misnamed.status == .failed)
        #expect(misnamed.failure?.certificateProblem?.kind == .untrustedIssuer)

        // A bundle with a certificate the folder lacks is read, and trusts the server.
        let other = try Self.pem(TestCertificates.untrustedCAPath)
        try (Self.pem(TestCertificates.caPath) + other).write(toFile: bundle, atomically: true, encoding: .utf8)
        let throughBundle = try await fetch(system: (bundle, folder))
        #expect(throughBundle.status == .downloaded, "\(throughBundle.failure?.description ?? "")")
    }
}
#endif
